"""Which limits bound a run (issue 29): read from the dropped reasons, said in the run line, the Budget view
and per sweep step; and the Budget view's headroom counts only the sections that have a limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_ui.base.i18n import translate
from graphrag_ui.index import store
from graphrag_ui.retrieval.core.binding import BUDGET, COUNT, THRESHOLD, binding, limit_class, limits
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep
from tests.ui.test_app import open_view  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"


@pytest.fixture(scope="module")
def index():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


def test_a_count_the_threshold_undercuts_is_said_not_binding(index):
    result = run_query(index, "nano.local", QUESTION, {"top_k": 40})
    passing = [c for c in result.entities if c.score is not None and c.score >= 0.2]
    assert 0 < len(passing) < 40
    found = {(lim.kind, lim.limit): lim for lim in limits(result)}
    count = found[("entities", COUNT)]
    assert not count.binding
    assert count.text == f"Entities: top_k 40 is not binding: {len(passing)} candidates pass the threshold 0.2"
    below = [c for c in result.entities if not c.in_context and c.score is not None and c.score < 0.2]
    assert found[("entities", THRESHOLD)].cut == len(below) and found[("entities", THRESHOLD)].binding
    assert "阈值" in translate(found[("entities", THRESHOLD)].text, "zh")


def test_a_budget_that_cuts_relations_is_said_binding(index):
    result = run_query(index, "ms.local", QUESTION, {"top_k_mapped_entities": 14})
    cut = [c for c in result.relations if not c.in_context and limit_class(c.dropped) == BUDGET]
    assert cut
    texts = [lim.text for lim in binding(result)]
    assert f"Relations: budget binding, {len(cut)} candidates cut" in texts


def test_a_limit_that_cut_nothing_is_never_said_binding(index):
    for mode in ("nano.local", "ms.local", "lightrag.hybrid", "nano.naive", "ms.basic", "lightrag.naive"):
        result = run_query(index, mode, QUESTION, {})
        for lim in limits(result):
            kept = sum(1 for c in result.candidates(lim.kind) if c.in_context)
            assert lim.binding or lim.cut == 0, (mode, lim)
            assert lim.passed >= kept, (mode, lim)


def test_each_sweep_step_carries_its_binding_limits_and_the_chart_marks_where_they_change(index):
    from graphrag_ui.ui.results.sweep_view import binding_changes

    sweep = run_sweep(index, "nano.local", QUESTION, {}, "top_k", [2, 5, 10, 20, 40])
    for step in sweep.steps:
        assert step.binding == [
            lim.text for lim in binding(run_query(index, "nano.local", QUESTION, {"top_k": step.value}))
        ]
    changes = binding_changes(sweep)
    assert 2 in changes["value"].tolist()  # the first step with a binding limit
    assert any("threshold 0.2 binding" in text for text in changes["binding"])  # where the threshold takes over


def test_the_run_line_and_the_budget_view_say_which_limits_bound(app, index):
    at = app(index="sample:en", mode="nano.local", q=QUESTION)
    line = next(c.value for c in at.caption if c.value.startswith("run:"))
    result = run_query(index, "nano.local", QUESTION, {})
    assert "limits: " + "; ".join(lim.text for lim in limits(result)) in line
    open_view(at, "budget")
    shown = " ".join(c.value for c in at.caption)
    for lim in limits(result):
        assert ("● " if lim.binding else "○ ") + lim.text in shown


def test_headroom_counts_only_the_sections_with_a_limit(app, index):
    """nano.local's Entities section has no limit: it must not eat the others' headroom (it showed 0)."""
    result = run_query(index, "nano.local", QUESTION, {})
    expected = sum(max(b.limit - b.used, 0) for b in result.budgets if b.limit)
    assert any(b.limit is None for b in result.budgets) and expected > 0
    at = app(index="sample:en", mode="nano.local", q=QUESTION, view="budget")
    headroom = next(m for m in at.metric if m.label == "Headroom under the limits")
    assert headroom.value == f"{expected:,}"
    for frame in at.dataframe:
        assert "None" not in frame.value.astype(str).to_numpy().ravel().tolist()
