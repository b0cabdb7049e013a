"""Issue 29, in Debian's chromium at 1280×800: the Graph page opens with every node (its label too) inside
the drawing, and the language picker names the languages while the link keeps their codes.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from graphrag_ui.base.i18n import t
from tests.support.browser_support import (
    CHROMIUM,
    GRAPH_BOX_JS,
    new_page,
    settle,
    tab_counts,
    wait_graph_painted,
    wait_until,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    from tests.support.browser_support import streamlit_app

    with streamlit_app(home=tmp_path_factory.mktemp("home")) as url:
        yield url


@pytest.fixture()
def page(browser):
    blocked: list[str] = []
    page = new_page(browser, blocked)  # a new page each time: no view saved by an earlier test
    page.set_viewport_size({"width": 1280, "height": 800})
    yield page
    page.close()
    assert not blocked, blocked


# each drawn node's box (shape and label, as vis measured them) against the drawing's own box
NODES_OUTSIDE = f"""() => {{
  const box = ({GRAPH_BOX_JS})(), net = box.__network, width = box.clientWidth, height = box.clientHeight;
  const ids = Object.keys(net.getPositions()), outside = [];
  for (const id of ids) {{
    const b = net.getBoundingBox(id);
    const a = net.canvasToDOM({{x: b.left, y: b.top}}), z = net.canvasToDOM({{x: b.right, y: b.bottom}});
    if (a.x < 0 || a.y < 0 || z.x > width || z.y > height) outside.push(id);
  }}
  return {{nodes: ids.length, outside, scale: net.getScale()}};
}}"""


@pytest.mark.parametrize("query", ["index=sample:en", "index=sample:zh&lang=zh", "index=sample:en&g_depth=2"])
def test_the_graph_page_opens_with_every_node_inside_the_drawing(page, app_url, query):
    page.goto(f"{app_url}/graph?{query}")
    wait_graph_painted(page, 180_000)
    settle(page)
    page.wait_for_timeout(300)  # the view set after the first paint (labels measured) is drawn
    drawn = page.evaluate(NODES_OUTSIDE)
    assert drawn["nodes"] >= 20 and drawn["outside"] == [], drawn
    # Fit puts them all back after the analyst moved away
    page.evaluate(f"() => ({GRAPH_BOX_JS})().__network.moveTo({{scale: 2, animation: false}})")
    assert page.evaluate(NODES_OUTSIDE)["outside"]
    lang = "zh" if "lang=zh" in query else "en"
    page.locator('[data-testid^="stBidiComponent"]').get_by_role("button", name=t("Fit", lang)).click()
    page.wait_for_timeout(200)
    assert page.evaluate(NODES_OUTSIDE)["outside"] == []


def _link_lang(page) -> list[str] | None:
    return parse_qs(urlparse(page.url).query).get("lang")


def test_the_language_picker_names_the_languages_and_the_link_keeps_the_code(page, app_url):
    page.goto(f"{app_url}/?index=sample:en")
    wait_until(page, lambda: tab_counts(page), timeout_s=180, what="the result views")
    settle(page)
    picker = page.get_by_test_id("stSidebar").get_by_role("combobox", name="Language / 语言")
    assert picker.input_value() == "English"
    picker.click()
    options = page.get_by_role("option").all_inner_texts()
    assert [o.strip() for o in options] == ["English", "简体中文"], options
    page.get_by_role("option", name="简体中文", exact=True).click()
    wait_until(page, lambda: _link_lang(page) == ["zh"], what="lang=zh in the link")
    wait_until(page, lambda: page.get_by_text(t("Explore", "zh"), exact=True).count() > 0, what="the Chinese page")
    assert picker.input_value() == "简体中文"

    # another page keeps the language, in the page and in its link
    page.get_by_test_id("stSidebarNav").get_by_text(t("Compare", "zh"), exact=True).click()
    wait_until(page, lambda: "/compare" in page.url and _link_lang(page) == ["zh"], what="Compare with lang=zh")
    settle(page)
    assert page.get_by_role("heading", name=t("Compare", "zh")).count() > 0

    # a link with lang=zh opens in Chinese, with the name shown; English again leaves the link clean
    page.goto(f"{app_url}/?index=sample:en&lang=zh")
    wait_until(page, lambda: tab_counts(page), timeout_s=180, what="the result views")
    settle(page)
    assert picker.input_value() == "简体中文"
    picker.click()
    page.get_by_role("option", name="English", exact=True).click()
    wait_until(page, lambda: _link_lang(page) is None, what="no lang in the link")
    wait_until(page, lambda: page.get_by_text("Explore", exact=True).count() > 0, what="the English page")
