"""The Evaluate page in Debian's chromium (every non-localhost request blocked): the English sample's bundled
set over two modes and a top_k range, the chart fitting its container at every width, a missed item's why,
and its one-click fix into Explore, where the item is in the context and its row is marked.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from graphrag_ui.evaluation.formats import load_questions
from graphrag_ui.evaluation.plan import EvalPlan
from graphrag_ui.evaluation.runner import run_evaluation
from graphrag_ui.evaluation.stats import smallest_fix
from graphrag_ui.index import store
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.retrieval.registry import mode_names
from graphrag_ui.ui.evaluate.eval_drill import _short
from tests.support.browser_support import CHROMIUM, SCREENSHOTS, new_page, settle, streamlit_app, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
MODES, PARAM, VALUES = ("nano.local", "lightrag.local"), "top_k", [2, 8, 14, 20]
LINK = "ev_modes=nano.local&ev_modes=lightrag.local&ev_param=top_k&ev_from=2&ev_to=20&ev_step=6"
GRID_CELLS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
  .filter((grid) => grid.offsetParent !== null)
  .map((grid) => {
    const headers = {};
    for (const th of grid.querySelectorAll('th')) headers[th.getAttribute('aria-colindex')] = th.innerText.replace(/[↑↓]/g, '').trim();
    const rows = {};
    for (const td of grid.querySelectorAll('td')) {
      const row = td.closest('tr').getAttribute('aria-rowindex');
      (rows[row] = rows[row] || {})[headers[td.getAttribute('aria-colindex')]] = td.innerText.trim();
    }
    return {headers: Object.values(headers), rows: Object.values(rows)};
  })"""
# the chart's drawn width against the width of the block that holds it
CHART_FIT = """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')].map((chart) => {
  const svg = chart.querySelector('svg, canvas'); const box = chart.parentElement.getBoundingClientRect();
  return {drawn: svg ? svg.getBoundingClientRect().width : 0, room: box.width};
})"""


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    with streamlit_app(home=tmp_path_factory.mktemp("home")) as url:
        yield url


@pytest.fixture(scope="module")
def expected():
    """The evaluation the page runs, computed here, and the missed item with the best-placed fix."""
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    questions = load_questions(ROOT / "data" / "sample" / "en" / "questions.jsonl")
    run = run_evaluation(index, questions, EvalPlan(list(MODES), PARAM, VALUES))
    picks = []
    for row in run.rows:
        for n, item in enumerate(row.items):
            fix = None if item.found else smallest_fix(run, row.question_id, item.item, row.config)
            if fix is None:
                continue
            there = next(r for r in run.rows_of(fix.to) if r.question_id == row.question_id)
            placed = next(r for r in there.items if r.item == item.item).where[0]
            if placed.kind in KINDS:
                picks.append((placed.position, row, n, item, fix, placed))
    position, row, n, item, fix, placed = min(picks, key=lambda p: p[0])
    question = next(q for q in questions.questions if q.id == row.question_id)
    return {"run": run, "row": row, "n": n, "item": item, "fix": fix, "placed": placed, "question": question}


@pytest.fixture()
def page(browser):
    blocked: list[str] = []
    page = new_page(browser, blocked)
    page.set_viewport_size({"width": 1280, "height": 800})
    yield page
    page.close()
    assert not blocked, blocked


def _grids(page) -> list[dict]:
    return page.evaluate(GRID_CELLS)


def _choose(page, label: str, option: str) -> None:
    page.get_by_test_id("stSelectbox").filter(has=page.get_by_text(label, exact=True)).first.click()
    page.get_by_role("option", name=option, exact=True).first.click()
    settle(page)


def test_evaluate_two_modes_then_follow_a_fix_into_explore(page, app_url, expected):
    page.goto(f"{app_url}/evaluate?index=sample:en&{LINK}")
    page.get_by_text("questions.jsonl: 14 questions", exact=False).first.wait_for(timeout=120_000)
    page.get_by_role("button", name="Evaluate").click()
    page.get_by_test_id("stVegaLiteChart").first.wait_for(timeout=180_000)
    settle(page)

    table = wait_until(page, lambda: next((g for g in _grids(page) if "setting" in g["headers"]), None), what="table")
    settings = [(r["mode"], r["setting"]) for r in table["rows"]]
    assert settings == [(m, f"{PARAM}={v}") for m in MODES for v in VALUES]
    for width in (1280, 900, 640):  # the chart fits its container at every width
        page.set_viewport_size({"width": width, "height": 800})
        page.wait_for_timeout(600)
        for fit in page.evaluate(CHART_FIT):
            assert 0 < fit["drawn"] <= fit["room"] + 1, (width, fit)
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.get_by_role("button", name="Evaluate").scroll_into_view_if_needed()
    page.mouse.wheel(0, 300)
    page.wait_for_timeout(600)
    page.screenshot(path=str(SCREENSHOTS / "evaluate.png"))
    page.set_viewport_size({"width": 1280, "height": 800})

    # the missed item's why
    row, n, fix, question = expected["row"], expected["n"], expected["fix"], expected["question"]
    page.get_by_role("radio", name="Per question").click()
    settle(page)
    _choose(page, "Question", f"{question.id} · {_short(question.question)}")
    _choose(page, "Setting", row.config.key)
    items = wait_until(
        page, lambda: next((g for g in _grids(page) if "why missed" in g["headers"]), None), what="items"
    )
    shown = next(r for r in items["rows"] if r["#"] == str(n + 1))
    assert shown["in"] == "✗" and shown["why missed"] == expected["item"].missed.reason_text
    assert shown["smallest fix"] == f"{PARAM}: {row.config.value} → {fix.to.value}"
    page.get_by_role("button", name=re.compile(rf"^Open #{n + 1} in Explore")).scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    page.screenshot(path=str(SCREENSHOTS / "evaluate-why.png"))

    # one click: Explore on that question, that mode and value, the item in the context, its row marked
    page.get_by_role("button", name=re.compile(rf"^Open #{n + 1} in Explore at {PARAM}={fix.to.value} ")).click()
    page.get_by_text(f"gold ({question.id}): ", exact=False).first.wait_for(timeout=120_000)
    settle(page)
    link = parse_qs(urlparse(page.url).query)
    assert link["gold_q"] == [question.id] and link.get("q") == [question.question], page.url
    assert link.get("mode", [mode_names()[0]]) == [fix.to.mode]  # a bound widget leaves its default out
    assert link.get("nano_top_k", ["20"]) == [str(fix.to.value)]
    placed = expected["placed"]
    marked = wait_until(
        page,
        lambda: [r for g in _grids(page) for r in g["rows"] if r.get("gold") == "★ gold, followed"],
        what="the followed item's row",
    )
    assert marked[0]["#"] == str(placed.position) and marked[0]["label"] == placed.label
    page.screenshot(path=str(SCREENSHOTS / "explore-gold.png"))
