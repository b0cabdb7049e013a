"""Links in Debian's chromium against ``streamlit run``, every non-local request blocked: each value a link
carries that the view cannot use gives a visible notice (a missing index, an unknown mode, top_k 0, -5,
abc, 1000000), the notice outlives the URL rewrite and the next run, a value in the CLI's spelling lands
in the URL in the widget's, and the question follows the analyst from Explore to Compare and is
cleared when the index changes language."""

from __future__ import annotations

import shutil
import urllib.parse
from pathlib import Path

import pytest

from tests.support.browser_support import CHROMIUM, choose_option, new_page, settle, streamlit_app, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)

from tests.ui.test_question_follows import ZH  # noqa: E402

LINKS = [  # (link, the notice's words, the URL key and the value it must no longer claim)
    ("/?index=team-notes", "index=team-notes is not an index of this app", "index", "team-notes"),
    ("/?index=path:alice-project", "registered on the machine the link was made on", "index", "path:alice-project"),
    ("/?index=sample:en&mode=nano.bogus", "mode=nano.bogus is not a retrieval mode", "mode", "nano.bogus"),
    (
        "/?index=sample:en&mode=nano.local&nano_top_k=0",
        "nano_top_k=0 cannot be used: parameter top_k=0 is below",
        "nano_top_k",
        "0",
    ),
    (
        "/?index=sample:en&mode=nano.local&nano_top_k=-5",
        "nano_top_k=-5 cannot be used: parameter top_k=-5 is below",
        "nano_top_k",
        "-5",
    ),
    (
        "/?index=sample:en&mode=nano.local&nano_top_k=abc",
        "nano_top_k=abc cannot be used: parameter top_k expects",
        "nano_top_k",
        "abc",
    ),
    (
        "/?index=sample:en&mode=nano.local&nano_top_k=1000000",
        "nano_top_k=1000000 cannot be used: parameter top_k=",
        "nano_top_k",
        "1000000",
    ),
    ("/compare?index=sample:en&b_mode=bogus", "b_mode=bogus is not a retrieval mode", "b_mode", "bogus"),
]


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    with streamlit_app(home=tmp_path_factory.mktemp("home")) as url:
        yield url


@pytest.fixture()
def blocked():
    urls: list[str] = []
    yield urls
    assert urls == [], f"requests left the machine: {urls[:5]}"


def notice(page, text: str):
    return page.get_by_test_id("stAlert").filter(has_text=text)


def query(page) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(page.url).query))


def test_each_unusable_link_value_gets_a_notice(browser, app_url, blocked):
    page = new_page(browser, blocked)
    for link, text, key, bad in LINKS:
        page.goto(app_url + link)
        notice(page, text).first.wait_for(timeout=60_000)
        settle(page)
        assert notice(page, text).count() == 1, link
        assert page.get_by_test_id("stException").count() == 0, link
        assert query(page).get(key) != bad, (link, page.url)  # Streamlit dropped it from the URL: we said so
    page.close()


def test_the_notice_outlives_the_next_run_and_spellings_are_rewritten(browser, app_url, blocked):
    page = new_page(browser, blocked)
    page.goto(app_url + "/?index=sample:en&mode=nano.local&nano_top_k=0&nano_local_community_single_one=yes")
    notice(page, "nano_top_k=0").first.wait_for(timeout=60_000)
    settle(page)
    page.get_by_role("button", name="Pin").first.click()  # a rerun of the page that is not about top_k
    settle(page)
    wait_until(page, lambda: query(page).get("nano_local_community_single_one") == "true", what="yes written as true")
    assert notice(page, "nano_top_k=0").count() == 1
    assert page.get_by_text("local_community_single_one=True").count() > 0  # the run used it
    page.close()


def test_the_question_follows_and_is_cleared_on_another_language(browser, app_url, blocked):
    page = new_page(browser, blocked)
    page.goto(app_url + "/?index=sample:en&q=Who+keeps+the+lighthouse%3F")
    box = page.get_by_test_id("stTextArea").locator("textarea")
    wait_until(page, lambda: box.input_value() == "Who keeps the lighthouse?", what="the linked question")
    settle(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare").click()
    wait_until(page, lambda: "/compare" in page.url, what="the Compare page")
    wait_until(page, lambda: box.first.input_value() == "Who keeps the lighthouse?", what="the question on Compare")
    settle(page)
    choose_option(page, "Index", "sample:zh")
    notice(page, "was cleared").first.wait_for(timeout=60_000)
    wait_until(page, lambda: box.first.input_value() == ZH[0], what="the Chinese sample's first question")
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Explore").first.click()
    wait_until(page, lambda: box.first.input_value() == ZH[0], what="the same question back on Explore")
    page.close()
