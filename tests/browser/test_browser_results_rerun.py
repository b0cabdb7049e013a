"""Explore reruns only its results after a parameter move (issue 29, responsiveness): in Debian's chromium,
what that must not break — the link follows every move and reproduces the run, a link notice is neither
made up by a move nor lost, and an action that sets a parameter from the results (the threshold rescue)
moves the sidebar's slider and the link with the run.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import parse_qs, quote_plus, urlparse

import pytest

from tests.support.browser_support import (
    CHROMIUM,
    VIEW_SWITCH,
    new_page,
    open_results,
    settle,
    streamlit_app,
    tab_counts,
    wait_until,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)

QUESTION = "How did the city respond to the flood?"
PLAIN = "Who are the most important people and how are they connected?"  # nano.local: below its threshold
RUN_LINE = """() => [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
    .map((e) => e.innerText).find((t) => t.startsWith('run:')) || ''"""


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    with streamlit_app(home=tmp_path_factory.mktemp("home")) as url:
        yield url


@pytest.fixture()
def page(browser):
    blocked: list[str] = []
    page = new_page(browser, blocked)
    page.set_viewport_size({"width": 1280, "height": 800})
    yield page
    page.close()
    assert not blocked, blocked


def _slider(page, name: str):
    return page.get_by_test_id("stSlider").filter(has_text=name).first


def _press(page, name: str, key: str = "ArrowLeft") -> str:
    """One key on the slider ``name``; waits for the run line of its new value and returns that value."""
    widget = _slider(page, name)
    before = widget.get_by_test_id("stSliderThumbValue").inner_text()
    widget.get_by_role("slider").focus()
    page.keyboard.press(key)
    wait_until(page, lambda: widget.get_by_test_id("stSliderThumbValue").inner_text() != before, what="the thumb")
    value = widget.get_by_test_id("stSliderThumbValue").inner_text()
    wait_until(page, lambda: f"{name}={value} " in page.evaluate(RUN_LINE), what=f"the run at {name}={value}")
    settle(page)
    return value


def _link(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def test_the_link_follows_every_move_and_reproduces_the_run(page, app_url, browser):
    open_results(
        page, f"{app_url}/?index=sample:en&mode=nano.local&view=entities&nano_top_k=12&q={quote_plus(QUESTION)}"
    )
    for _ in range(3):
        value = _press(page, "top_k")
        wait_until(page, lambda v=value: _link(page).get("nano_top_k") == [v], what=f"nano_top_k={value} in the link")
    _press(page, "top_k", "ArrowRight")
    line, counts, link = page.evaluate(RUN_LINE), tab_counts(page), page.url
    assert not page.get_by_test_id("stAlert").filter(has_text="The link's").count()  # no notice made up by a move

    again = new_page(browser, [])
    again.set_viewport_size({"width": 1280, "height": 800})
    try:
        open_results(again, link)
        line_again = again.evaluate(RUN_LINE)
        assert line_again.split(" · ")[:2] == line.split(" · ")[:2]  # mode and every parameter
        assert line_again.split("in the context:")[1] == line.split("in the context:")[1]
        assert tab_counts(again) == counts
    finally:
        again.close()


def test_a_link_notice_outlives_a_move_of_another_parameter(page, app_url):
    open_results(
        page,
        f"{app_url}/?index=sample:en&mode=nano.local&nano_query_better_than_threshold=abc&q={quote_plus(QUESTION)}",
    )
    notice = page.get_by_test_id("stAlert").filter(has_text="nano_query_better_than_threshold=abc")
    notice.first.wait_for(timeout=30_000)
    _press(page, "top_k")
    _press(page, "top_k")
    assert notice.count() == 1


def test_the_threshold_rescue_moves_the_slider_and_the_link_with_the_run(page, app_url):
    open_results(page, f"{app_url}/?index=sample:en&mode=nano.local&view=entities&q={quote_plus(PLAIN)}")
    button = page.get_by_role("button", name="Set query_better_than_threshold to 0.17 for this view")
    button.wait_for(timeout=60_000)
    button.click()
    wait_until(page, lambda: "query_better_than_threshold=0.17 " in page.evaluate(RUN_LINE), what="the run at 0.17")
    settle(page)
    thumb = _slider(page, "query_better_than_threshold").get_by_test_id("stSliderThumbValue")
    assert thumb.inner_text() == "0.17"
    assert _link(page).get("nano_query_better_than_threshold") == ["0.17"]
    assert tab_counts(page)["Entities"] > 0


def test_the_budget_is_one_table_with_its_bars_and_fits_at_every_width(page, app_url):
    """The budget's bars are a column of its table (no Vega chart to mount on a view click): the table is
    drawn with its share-of-budget header and fits its column at 1280, 1600 and 900 px, and switching to
    Entities and back draws it again."""
    fit = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')].filter((d) => d.offsetParent !== null)
      .map((d) => ({box: Math.round(d.parentElement.getBoundingClientRect().width),
                    drawn: Math.round(d.getBoundingClientRect().width)}))"""
    open_results(page, f"{app_url}/?index=sample:en&mode=nano.local&view=budget&q={quote_plus(QUESTION)}")
    for width in (1280, 1600, 900):
        page.set_viewport_size({"width": width, "height": 800})
        settle(page)
        page.wait_for_timeout(500)
        tables = wait_until(page, lambda: page.evaluate(fit), what="the budget table")
        assert len(tables) == 1 and 0 < tables[0]["drawn"] <= tables[0]["box"] + 1, (width, tables)
    assert page.get_by_test_id("stVegaLiteChart").count() == 0
    assert page.get_by_text("Limits of this run (● binding, ○ not binding):").count() == 1
    assert page.get_by_test_id("stMetric").count() == 3
    for view in ("Entities", "Budget"):
        page.locator(VIEW_SWITCH).filter(has_text=view).first.click()
        settle(page)
    assert wait_until(page, lambda: page.evaluate(fit), what="the budget table again")[0]["drawn"] > 0
