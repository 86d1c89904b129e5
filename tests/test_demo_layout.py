"""`seqviz demo --check` fails what a lecture hall would not see whole: a caption cut, the tab bar
cut, a plot the captions talk about squeezed below 6 rows; the shipped demos pass at 100x30."""

from __future__ import annotations

import pytest

from seqviz.lecture import find_demo, parse_demo
from seqviz.lecture.runner import MIN_PLOT_ROWS, DemoApp, layout_problems

LONG = " ".join(["The GRU's line falls fastest on the log axis, step after step."] * 3)


def demo(caption: str) -> object:
    source = f'title = "t"\n[[step]]\nscene = "gradflow"\ncaption = "{caption}"\n'
    return parse_demo(source, name="t")


async def problems_at(script: object, size: tuple[int, int], prepare=None) -> list[str]:
    app = DemoApp(script, animate=False)
    async with app.run_test(size=size) as pilot:
        await app.goto(0)
        if prepare is not None:
            prepare(app)
        await pilot.pause()
        await pilot.pause()
        return layout_problems(app)


async def test_a_short_caption_at_a_lecture_size_has_no_problem():
    assert await problems_at(demo("The GRU falls fastest."), (120, 40)) == []


async def test_a_caption_that_takes_the_plots_rows_fails_the_plot():
    def tall(app):
        app.banner.styles.height = 16  # a caption as tall as a long one at a small size

    found = await problems_at(demo(LONG), (100, 30), tall)
    assert any("#flow-plot" in p and f"at least {MIN_PLOT_ROWS}" in p for p in found), found


async def test_a_cut_caption_fails():
    def cap(app):
        app.banner.styles.max_height = 1  # what the banner's old max-height did to long ones

    found = await problems_at(demo(LONG), (100, 30), cap)
    assert any("the caption needs" in p and "it is cut" in p for p in found), found


async def test_a_cut_tab_bar_fails():
    from seqviz.ui.widgets.scenebar import SceneTabs

    def long_tabs(app):
        tabs = app.query_one(SceneTabs)
        tabs.show(tabs.long_labels)  # what the bar showed from 100 columns up

    found = await problems_at(demo("The GRU falls fastest."), (100, 30), long_tabs)
    assert "the tab bar is cut: not every scene number shows" in found


@pytest.mark.slow
async def test_gradflow_gives_its_plot_eight_rows_at_100x30():
    """The plot of seven curves had 2 rows at 100x30 while a 13-row table kept its room; the
    captions talk about the plot."""
    script = find_demo("gradflow")
    app = DemoApp(script, animate=False)
    async with app.run_test(size=(100, 30)) as pilot:
        for index in range(len(script.steps)):
            await app.goto(index)
            await pilot.pause()
            await pilot.pause()
            rows = app.query_one("#flow-plot").region.height
            assert rows >= 8, (index + 1, rows)
            assert layout_problems(app) == []
