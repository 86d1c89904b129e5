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
