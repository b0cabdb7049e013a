"""What a new analyst tripped on (issue 29), in Debian's chromium at 1280×800: a sweep step's run is the
run the page shows (slider, run line and link), a Compare link keeps its question, the results get the
width they need.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import parse_qs, quote_plus, urlparse

import pytest

from tests.support.browser_support import (
    CHROMIUM,
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


def _run_line(page) -> str:
    return page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
            .map((e) => e.innerText).find((t) => t.startsWith('run:')) || ''"""
    )


@pytest.mark.parametrize(
    ("mode", "param", "url_key"),
    [("nano.local", "top_k", "nano_top_k"), ("lightrag.hybrid", "top_k", "lightrag_top_k")],
)
def test_show_the_run_at_a_sweep_step_sets_the_run_the_slider_and_the_link(page, app_url, mode, param, url_key):
    open_results(page, f"{app_url}/?index=sample:en&mode={mode}&view=sweep&q={quote_plus(QUESTION)}")
    page.get_by_test_id("stSelectbox").filter(has_text="Parameter").first.click()
    page.get_by_role("option", name=param, exact=True).first.click()
    settle(page)
    for label, value in (("from", "3"), ("to", "9"), ("step", "6")):
        box = page.get_by_test_id("stNumberInput").filter(has_text=re.compile(rf"^{label}")).first.locator("input")
        box.fill(value)
        box.press("Enter")
        settle(page)
    page.get_by_role("button", name="Run the sweep").click()
    page.get_by_text("Items and tokens per step").first.wait_for(timeout=120_000)
    settle(page)
    slider = page.get_by_test_id("stSlider").filter(has_text="Step").first
    slider.get_by_role("slider").focus()
    page.keyboard.press("End")
    settle(page)
    page.get_by_role("button", name=f"Show the run at {param}=9").click()
    wait_until(page, lambda: f"{param}=9 " in _run_line(page), timeout_s=120, what="the run at the step's value")
    assert parse_qs(urlparse(page.url).query).get(url_key) == ["9"]
    assert parse_qs(urlparse(page.url).query).get("view") == ["entities"]
    side = page.get_by_test_id("stSidebar").get_by_test_id("stSlider").filter(has_text=re.compile(rf"^{param}")).first
    wait_until(page, lambda: side.get_by_test_id("stSliderThumbValue").inner_text().strip() == "9", what="the slider")


def _question_box(page) -> str:
    return page.get_by_test_id("stTextArea").first.locator("textarea").input_value()


def test_a_compare_link_keeps_its_question_and_honours_q(page, app_url):
    other = "Who directs the research station?"
    page.goto(f"{app_url}/compare?index=sample:en&q={quote_plus(other)}")
    wait_until(page, lambda: _question_box(page) == other, timeout_s=120, what="the link's question in the box")
    wait_until(page, lambda: parse_qs(urlparse(page.url).query).get("cq") == [other], what="cq in the link")
    assert "q" not in parse_qs(urlparse(page.url).query)  # the other page's key does not linger
    open_results(page, f"{app_url}/?index=sample:en&q={quote_plus(QUESTION)}")
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare").click()
    wait_until(page, lambda: "/compare" in page.url, what="the Compare page")
    settle(page)
    wait_until(page, lambda: parse_qs(urlparse(page.url).query).get("cq") == [QUESTION], what="the carried question")
    assert "q" not in parse_qs(urlparse(page.url).query)
    assert _question_box(page) == QUESTION


GRID_FIT = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')].filter((g) => g.offsetParent !== null)
  .map((g) => { const s = g.querySelector('.dvn-scroller');
    return {sideways: s ? s.scrollWidth - s.clientWidth : 0, rows: g.querySelectorAll('tbody tr').length,
            whole: s ? s.scrollHeight <= s.clientHeight + 2 : true,
            headers: [...g.querySelectorAll('th')].map((th) => th.innerText.trim())}; })"""
CHART_FIT = """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')].filter((c) => c.offsetParent !== null)
  .map((c) => { const box = c.getBoundingClientRect(); const drawn = c.querySelector('canvas, svg');
    return {box: Math.round(box.width), drawn: drawn ? Math.round(drawn.getBoundingClientRect().width) : 0}; })"""


@pytest.mark.parametrize("mode", ["nano.local", "ms.local", "lightrag.hybrid"])
def test_at_1280_the_grids_show_ten_rows_without_sideways_scrolling(page, app_url, mode):
    """Without a model the answer panel goes below the results (it held a third of the width for a prompt);
    every kind's grids fit their width and show at least ten rows when they hold that many."""
    lists = "".join(f"&dropped_{kind}=1" for kind in ("entities", "relations", "communities", "chunks"))
    open_results(page, f"{app_url}/?index=sample:en&mode={mode}&view=entities&q={quote_plus(QUESTION)}{lists}")
    assert parse_qs(urlparse(page.url).query).get("layout") in (None, ["below"])
    for view, n in tab_counts(page).items():
        if view not in ("Entities", "Relations", "Communities", "Chunks"):
            continue
        page.locator('[data-testid="stButtonGroup"] [role="radio"]').filter(has_text=view).first.click()
        settle(page)
        drawn = lambda n=n: [g for g in page.evaluate(GRID_FIT) if g["headers"]] or (n == 0 and [{}])  # noqa: E731
        grids = wait_until(page, drawn, what=f"{view} grids")
        for grid in grids:
            if not grid:
                continue
            assert grid["sideways"] <= 2, (mode, view, grid)
            assert grid["rows"] >= 10 or grid["whole"], (mode, view, grid)  # ten rows, or every row


def _all_drawn(charts: list[dict]) -> list[dict] | None:
    """The charts once each has drawn something (None before, so ``wait_until`` keeps polling)."""
    return charts if charts and all(chart["drawn"] > 0 for chart in charts) else None


def test_the_sweep_chart_fits_its_column_at_every_width(page, app_url):
    open_results(page, f"{app_url}/?index=sample:en&mode=nano.local&view=sweep&q={quote_plus(QUESTION)}")
    page.get_by_role("button", name="Run the sweep").click()
    page.get_by_text("Items and tokens per step").first.wait_for(timeout=120_000)
    for width in (1280, 1600, 900):
        page.set_viewport_size({"width": width, "height": 800})
        settle(page)
        page.wait_for_timeout(500)
        # Vega draws its canvas a moment after the chart's box is laid out (seconds on a loaded machine):
        # wait for the drawing itself, or a box with nothing in it yet reads as "drawn 0"
        charts = wait_until(page, lambda: _all_drawn(page.evaluate(CHART_FIT)), what="the sweep chart drawn")
        for chart in charts:
            assert 0 < chart["drawn"] <= chart["box"] + 1, (width, chart)


def test_compare_fits_1280(page, app_url):
    page.goto(f"{app_url}/compare?index=sample:en&a_mode=nano.local&b_mode=ms.local&cq={quote_plus(QUESTION)}")
    page.get_by_text("Overlap").first.wait_for(timeout=180_000)
    settle(page)
    overlap = wait_until(
        page, lambda: next((g for g in page.evaluate(GRID_FIT) if g["headers"]), None), what="the overlap grid"
    )
    assert "Only right" in overlap["headers"] and overlap["sideways"] <= 2, overlap


@pytest.mark.parametrize(
    "mode",
    ["nano.local", "nano.global", "nano.naive", "lightrag.hybrid", "lightrag.naive"]
    + ["ms.local", "ms.global", "ms.basic", "ms.drift"],  # each family's pipelines: each writes its own trace
)
def test_every_view_of_every_mode_family_in_chinese_in_the_browser(page, app_url, mode):
    """The browser counterpart of test_i18n_zh: each view of each pipeline of every family, drawn in Chromium
    with lang=zh, shows no untranslated UI text (page text, grid headers, the reasons and the Trace view's
    steps and details in view)."""

    from tests.support.zh_catalogue import (
        GRID_REASON_TEXT,
        VISIBLE_UI_TEXT,
        allowed_names,
        reason_headers,
        untranslated,
    )

    page.goto(f"{app_url}/?index=sample:zh&lang=zh&mode={mode}")
    wait_until(page, lambda: page.locator('[data-testid="stButtonGroup"] [role="radio"]').count() > 0, 180)
    settle(page)
    allowed, problems = allowed_names(), {}
    views = page.get_by_test_id("stButtonGroup").first.get_by_role("radio")  # the views (a stage switch follows)
    for i in range(views.count()):
        views.nth(i).click()
        settle(page)
        page.wait_for_timeout(300)
        grids = page.evaluate(GRID_REASON_TEXT, reason_headers("zh"))
        missing = untranslated(page.evaluate(VISIBLE_UI_TEXT) + grids["headers"] + grids["reasons"], allowed)
        if missing:
            problems[views.nth(i).inner_text()] = missing
    assert not problems, problems
