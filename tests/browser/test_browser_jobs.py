"""An import is the server's job, not the tab's (issue 29, item 8), in Debian's chromium against ``streamlit run``:
started in one tab, the tab closed while it runs, a new tab sees it done and opens the new index."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.support.browser_support import CHROMIUM, ROOT, new_page, settle, streamlit_app, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    allowed = tmp_path_factory.mktemp("allowed")
    shutil.copytree(ROOT / "tests" / "goldens" / "nano" / "en", allowed / "nano")
    env = {"GRAPHRAG_UI_SOURCE_ROOTS": str(allowed)}
    with streamlit_app(env=env, home=tmp_path_factory.mktemp("home")) as url:
        yield url, allowed


@pytest.fixture()
def blocked():
    urls: list[str] = []
    yield urls
    assert urls == [], f"requests left the machine: {urls[:5]}"


def open_import_tab(page, url: str) -> None:
    page.goto(url + "/index?index=sample:en")
    page.get_by_role("tab", name="Import").wait_for(timeout=60_000)
    settle(page)
    page.get_by_role("tab", name="Import", exact=True).click()
    settle(page)


def test_an_import_goes_on_after_its_tab_closes_and_a_new_tab_opens_it(browser, app_url, blocked):
    url, allowed = app_url
    first = new_page(browser, blocked)
    open_import_tab(first, url)
    first.locator('input[aria-label="Source folder (working dir / GraphRAG output)"]:visible').fill(
        str(allowed / "nano")
    )
    first.keyboard.press("Enter")
    settle(first)
    first.get_by_role("button", name="Import", exact=True).click()
    # the job has started once its box or its end is on the page; then the tab goes, mid-job or just after
    wait_until(
        first,
        lambda: first.get_by_text(re.compile(r"^(Importing nano…|Ready: nano is open now)")).count(),
        what="the import started",
    )
    first.close()

    second = new_page(browser, blocked)
    open_import_tab(second, url)
    wait_until(
        second,
        lambda: second.get_by_text(re.compile(r"^nano was imported on the server: detected nano · ")).count(),
        timeout_s=120,
        what="the new tab seeing the import done",
    )
    assert second.get_by_test_id("stException").count() == 0, "a traceback reached the page"
    second.get_by_role("button", name="Open nano", exact=True).click()
    wait_until(
        second,
        lambda: second.get_by_text(re.compile(r"^Ready: nano is open now")).count(),
        what="the imported index open",
    )
    assert "index=path%3Anano" in second.url or "index=path:nano" in second.url, second.url
    assert second.get_by_test_id("stException").count() == 0, "a traceback reached the page"
    second.close()
