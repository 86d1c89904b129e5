"""The status line after a compute that failed: the error, and no "computing…" left behind."""

from __future__ import annotations


def _status(app) -> str:
    return str(app.query_one("#status").render())


async def test_a_failed_change_is_not_shown_as_still_computing(make_app, ready):
    # model=file with no weights file set cannot be computed
    app = make_app("gates")
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        app.set_param("model", "file")
        await ready(app, pilot)
        assert "model=file needs a weights file" in _status(app)
        assert "computing" not in _status(app)
        app.set_param("model", "agreement")  # a change that works clears the error
        await ready(app, pilot)
        assert "needs a weights file" not in _status(app) and "computing" not in _status(app)
        assert app.result is not None and app.values.model == "agreement"


async def test_an_unknown_words_hint_is_not_cut_off_the_status_line(make_app):
    """The error came after the frame label and the kernels' line, so at 100x30 the unknown
    word's hint ("closest known: cabinet...") fell off the cut end. The error comes first."""
    from seqviz.ui.export import screen_text

    app = make_app("inside")
    async with app.run_test(size=(100, 30)) as pilot:
        await app.until_ready()
        app.set_param("text", "the keys to the cabnet are missing")
        await app.until_ready()
        await pilot.pause()
        error = app._error
        status = screen_text(app).splitlines()[-2].strip()
    assert "cabnet" in error and "closest" in error
    assert status.startswith(error[:90].rstrip()), status
