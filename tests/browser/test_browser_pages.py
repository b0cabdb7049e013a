"""Every page opened by its direct URL in Debian's chromium, every non-localhost request blocked.

Streamlit treats a ``pages/`` folder as a legacy multipage app in a new server process until
``st.navigation`` first runs, so the first link a fresh server sees is the case that broke. Each page
therefore gets its own fresh ``streamlit run``: it is opened there first (the fresh-process case),
then again in a second fresh browser context (the normal case). Both must show the whole frame
(sidebar navigation, index picker, shared index) with the page's own title and no "Page not found".
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from graphrag_ui.base.i18n import t
from graphrag_ui.ui.shell.frame import PAGES
from graphrag_ui.ui.shell.labels import PAGE_TITLES
from graphrag_ui.ui.shell.state import choice_label
from tests.support.browser_support import CHROMIUM, EXTERNAL, settle, streamlit_app, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)

INDEX = "sample:zh"  # not the picker's first choice: the page must have read it from the URL
# (url path, page name): every page by its own name, and the start page at / as well
LINKS = [(name, name) for name in PAGES] + [("", next(iter(PAGES)))]


def open_fresh(browser, url: str, blocked: list[str]):
    """``url`` in a new browser context (no cookies, no storage, no session)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})

    def block(route):
        blocked.append(route.request.url)
        route.abort()

    context.route(EXTERNAL, block)
    page = context.new_page()
    page.goto(url)
    return context, page


def assert_framed(page, name: str) -> None:
    """The page's title inside the app's frame, with the index from the URL and no dialog."""
    title = PAGE_TITLES[name]
    wait_until(page, lambda: page.locator("h1").all_inner_texts() == [title], what=f"the title {title!r} alone")
    settle(page)
    sidebar = page.get_by_test_id("stSidebar")
    nav = sidebar.get_by_test_id("stSidebarNav").locator("a").all_inner_texts()
    labels = [text.split("\n")[-1] for text in nav]
    assert labels == [PAGE_TITLES[other] for other in PAGES], labels  # the app's navigation, not Streamlit's file list
    picker = sidebar.get_by_test_id("stSelectbox").filter(has_text=t("Index", "en"))
    wait_until(page, lambda: picker.count() == 1, what="the index picker in the sidebar")
    opened = sidebar.get_by_text(choice_label(INDEX))
    wait_until(page, lambda: opened.count() == 1, what="the index from the URL open in the picker")
    assert page.get_by_role("dialog").count() == 0, page.get_by_role("dialog").all_inner_texts()
    assert page.get_by_text("Page not found").count() == 0
    assert page.get_by_test_id("stException").count() == 0


@pytest.mark.parametrize(("path", "name"), LINKS, ids=[path or "root" for path, _ in LINKS])
def test_direct_url_opens_the_page_in_the_frame(browser, path, name):
    blocked: list[str] = []
    with streamlit_app() as base:
        url = f"{base}/{path}?index={INDEX}"
        for visit in ("first link of a fresh server", "later link"):
            context, page = open_fresh(browser, url, blocked)
            try:
                assert_framed(page, name)
                assert page.url.split("?")[0].rstrip("/") == f"{base}/{path}".rstrip("/"), (visit, page.url)
            finally:
                context.close()
    assert blocked == [], f"requests left the machine: {blocked[:5]}"
