"""``ms.global`` in Debian's chromium: Batches before any model call, the map calls run from the answer
button, then Points, Trace and the reduce context — with every non-localhost request blocked and the
model being the local OpenAI-compatible test server. Screenshots go to docs/screenshots/."""

from __future__ import annotations

import re

import pytest

from graphrag_ui.retrieval.registry import mode_names
from tests.browser import test_browser as base
from tests.support.browser_support import tab_counts, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# the module fixtures of test_browser: the test model server, the app, the blocked-request log (chromium is
# conftest's ``browser``)
llm, app_url, blocked = base.llm, base.app_url, base.blocked
QUESTION = "What are the main themes of the corpus?"


def map_requests(script, since: int) -> list[dict]:
    bodies = [r["body"] for r in script.requests[since:] if r["path"].rstrip("/").endswith("/chat/completions")]
    return [b for b in bodies if "Importance Score" not in b["messages"][0]["content"] and not b.get("stream")]


def test_ms_global_batches_then_points(browser, app_url, blocked, llm):
    if "ms.global" not in mode_names():
        pytest.fail("ms.global is not in the registry")
    _, script = llm
    page = base.new_page(browser, blocked)
    page.goto(f"{app_url}/?index=sample:en&mode=ms.global&ms_max_context_tokens=3000&q={QUESTION.replace(' ', '+')}")
    counts = base.counts_when(page, lambda c: c.get("Batches", 0) >= 2, "the map batches")
    batches = counts["Batches"]
    assert counts["Points"] == 0  # no model call yet: no points are invented
    page.get_by_test_id("stDataFrame").first.wait_for()
    assert page.get_by_text(re.compile(r"^Map prompt · batch 0 · \d+ reports")).first.is_visible()

    before = len(script.requests)
    page.get_by_role("button", name=re.compile(r"^Generate answer \(\d+ map calls")).click()
    after = base.counts_when(page, lambda c: c.get("Points", 0) > 0, "points from the map answers")
    assert after["Batches"] == batches
    assert len(map_requests(script, before)) == batches  # one map call per batch, then the reduce call
    page.get_by_text(re.compile(r"\d+ calls \(0 from the cache\)")).first.wait_for(timeout=60_000)
    base.shot(page, "ms-global-batches")

    base.open_tab(page, "Points")
    page.get_by_text(re.compile(r"^In the reduce context: \d+")).first.wait_for()
    page.get_by_text(re.compile(r"^Considered but dropped: \d+")).first.wait_for()
    base.shot(page, "ms-global-points")

    base.open_tab(page, "Trace")
    page.get_by_text("Model calls of the map and reduce stages").first.wait_for()
    base.open_tab(page, "Context")
    page.get_by_text("Reduce context").first.wait_for()

    # asking again costs nothing: every call comes from the answer cache
    sent = len(script.requests)
    page.get_by_role("button", name=re.compile(r"^Generate answer \(")).click()
    wait_until(page, lambda: page.get_by_text(re.compile(r"(\d+) calls \(\1 from the cache\)")).count() > 0)
    assert len(script.requests) == sent
    assert tab_counts(page)["Points"] == after["Points"]
    page.close()
