"""Chromium drives the DRIFT tree (issue 20): with the local test server as the model, the Explore page
runs ms.drift, shows the question tree, and opens one question's local retrieval in the usual tables —
with every request that tries to leave the machine blocked and none attempted."""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.support.browser_support import CHROMIUM, new_page, settle, streamlit_app, wait_until
from tests.support.llm_server import Script, default_reply, start_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)

QUESTION = "Who directs the research station?"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    base, stop = start_server(Script(default_reply))
    env = {"GRAPHRAG_UI_LLM_MODEL": "openai/test-model", "GRAPHRAG_UI_LLM_API_BASE": base, "OPENAI_API_KEY": "sk-test"}
    try:
        with streamlit_app(env=env, home=tmp_path_factory.mktemp("home")) as url:
            yield url
    finally:
        stop()


@pytest.fixture()
def blocked():
    urls: list[str] = []
    yield urls
    assert urls == [], f"requests left the machine: {urls[:5]}"


def test_drift_tree_and_one_questions_local_retrieval(browser, app_url, blocked):
    page = new_page(browser, blocked)
    query = {"index": "sample:en", "mode": "ms.drift", "q": QUESTION}
    query |= {"drift_k_followups": "3", "primer_folds": "1", "n_depth": "1"}
    page.goto(f"{app_url}/?{urlencode(query)}")
    settle(page)
    page.get_by_role("button", name="Run DRIFT with the model").click()
    settle(page)
    picker = page.get_by_test_id("stSelectbox").filter(has_text="Local retrieval of the question").first
    wait_until(page, lambda: picker.count() > 0, what="the DRIFT tree and its question picker")
    grids = page.locator('[data-testid="stDataFrame"]')
    wait_until(page, lambda: grids.count() >= 1, what="the question tree (a canvas grid)")
    options = page.get_by_role("option")

    def listed() -> bool:
        if options.count() < 3:  # not open yet, or a rerun (the run finishing) redrew the picker and closed it
            picker.click()
            page.wait_for_timeout(300)
        return options.count() >= 3

    wait_until(page, listed, what="the questions a round ran")
    options.last.click()
    settle(page)
    wait_until(page, lambda: page.get_by_text("In the context").count() > 0, what="the question's local retrieval")
    assert page.get_by_text("Scripted local answer to:").count() > 0  # the question's own answer


def test_a_click_on_a_question_in_the_drift_graph_opens_its_local_retrieval(browser, app_url, blocked):
    """Issue 29: the tree is drawn as a clickable graph coloured by score; clicking a question that a round
    ran picks it, and its answer and local retrieval follow."""
    from tests.support.browser_support import node_screen_position, wait_graph_painted

    page = new_page(browser, blocked)
    page.set_viewport_size({"width": 1280, "height": 800})
    query = {"index": "sample:en", "mode": "ms.drift", "q": QUESTION}
    query |= {"drift_k_followups": "3", "primer_folds": "1", "n_depth": "1"}
    page.goto(f"{app_url}/?{urlencode(query)}")
    settle(page)
    page.get_by_role("button", name="Run DRIFT with the model").click()
    settle(page)
    wait_graph_painted(page, timeout=120_000)
    picker = page.get_by_test_id("stSelectbox").filter(has_text="Local retrieval of the question").first
    wait_until(page, lambda: picker.count() > 0, what="the question picker")
    chosen = picker.locator("input").first
    before = chosen.input_value()
    for node in ("3", "2", "1"):  # a follow-up the round ran (the picker starts at the first)
        at = node_screen_position(page, node)
        page.mouse.click(at["x"], at["y"])
        try:  # a question no round ran changes nothing: try the next
            wait_until(page, lambda: chosen.input_value() != before, timeout_s=20, what="the picked question")
            break
        except AssertionError:
            continue
    assert chosen.input_value() != before and f"#{node} ·" in chosen.input_value(), (before, chosen.input_value())
    wait_until(page, lambda: page.get_by_text("In the context").count() > 0, what="its local retrieval")
