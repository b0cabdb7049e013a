"""Issue 28 in Debian's chromium: ms.local answered by the citing test server; clicking a citation shows
its rows, the invented one says "not in the context", and the Entities grid marks the cited rows —
with every non-localhost request blocked."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.support.browser_support import CHROMIUM, new_page, settle, streamlit_app, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)

from tests.browser.test_browser import shot  # noqa: E402
from tests.browser.test_browser_tuning import GRID_CELLS  # noqa: E402
from tests.support.citing_replies import INVENTED_ID, citing_reply  # noqa: E402
from tests.support.llm_server import Script, start_server  # noqa: E402

QUESTION = "Who founded the Guild of Tidewrights, and what did he build?"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    url, stop = start_server(Script(citing_reply))
    env = {"GRAPHRAG_UI_LLM_MODEL": "openai/test-model", "GRAPHRAG_UI_LLM_API_BASE": url, "OPENAI_API_KEY": "sk-test"}
    try:
        with streamlit_app(env=env, home=tmp_path_factory.mktemp("home")) as app:
            yield app
    finally:
        stop()


@pytest.fixture()
def blocked():
    urls: list[str] = []
    yield urls
    assert urls == [], f"requests left the machine: {urls[:5]}"


def grid_rows(page, header: str) -> list[dict[str, str]]:
    return [row for grid in page.evaluate(GRID_CELLS) if header in grid["headers"] for row in grid["rows"]]


def test_clicking_a_citation_shows_its_rows(browser, app_url, blocked):
    page = new_page(browser, blocked)
    page.goto(f"{app_url}/?{urlencode({'index': 'sample:en', 'mode': 'ms.local', 'q': QUESTION, 'view': 'entities'})}")
    settle(page)
    page.get_by_role("button", name="Generate answer").click()
    run_line = page.get_by_text(re.compile(r"^answer cites \d+ of \d+ items; 1 citations not in the context"))
    wait_until(page, lambda: run_line.count() > 0, what="the answer's run line")

    page.get_by_role("radio", name=f"✗ Entities ({INVENTED_ID})").click()
    settle(page)
    wait_until(page, lambda: grid_rows(page, "status"), what="the invented citation's rows")
    (row,) = grid_rows(page, "status")
    assert row["status"] == "✗ not in the context" and row["row"] == ""
    assert row["note"] == "not in the Entities table"

    page.get_by_role("radio", name=re.compile(r"^Entities \(\d+, \d+\)$")).click()
    settle(page)
    wait_until(page, lambda: len(grid_rows(page, "status")) == 2, what="the first citation's two rows")
    rows = grid_rows(page, "status")
    assert {r["status"] for r in rows} == {"✓ in the context"} and all(r["row"] for r in rows)
    cited = [r for r in grid_rows(page, "cited by the answer") if r["cited by the answer"].startswith("✓")]
    assert {r["label"] for r in cited} == {r["row"] for r in rows}  # the grid marks the same two entities
    shot(page, "answer-citations")
    page.close()
