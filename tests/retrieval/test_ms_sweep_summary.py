"""ms.local's summary steps (a sweep without ``on_step``, ``reuse.summaries``): they join no context, build no
answer messages and keep each kept entity, relationship, report and text unit as one ``reuse.SummaryRow`` per
item and sweep — the same object at every step that keeps it — while their summaries are the whole runs'
and each step's whole run (``Sweep.retrieval``) is the single run at its value. DRIFT's local step, which
reads its context, is never a summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import in_context
from graphrag_ui.retrieval.ms.local_search import search
from graphrag_ui.services import sweep as sweep_service
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep
from tests.retrieval.test_sweep_parity import comparable, summary

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"
KINDS = ("entities", "relations", "communities", "chunks")


@pytest.fixture(scope="module")
def index():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


@pytest.mark.parametrize(
    "fixed,param,values",
    [
        ({}, "top_k_mapped_entities", [20, 2, 5, 10, 14]),
        ({"top_k_mapped_entities": 5}, "max_context_tokens", [12000, 0, 800, 3000, 6000]),
    ],
)
def test_summary_steps_join_nothing_and_share_one_row_per_kept_item(index, fixed, param, values, monkeypatch):
    asked, runs = [], []
    real_messages, real_step = search._messages, sweep_service._step
    monkeypatch.setattr(search, "_messages", lambda *a: asked.append(1) or real_messages(*a))
    monkeypatch.setattr(sweep_service, "_step", lambda v, r, *a: runs.append(r) or real_step(v, r, *a))
    swept = run_sweep(index, "ms.local", QUESTION, fixed, param, values)
    assert asked == [] and all(r.context == "" for r in runs)
    rows: dict[tuple[str, str], object] = {}
    for result in runs:
        for kind in KINDS:
            for row in in_context(result.candidates(kind)):
                assert type(row) is reuse.SummaryRow, f"{kind}: a whole row in a summary step"
                assert rows.setdefault((kind, row.id), row) is row, f"{kind} {row.id}: made again"
    assert {kind for kind, _ in rows} == set(KINDS)
    assert sum(len(in_context(r.candidates(kind))) for r in runs for kind in KINDS) > len(rows)  # some rows shared
    whole = []
    full = run_sweep(index, "ms.local", QUESTION, fixed, param, values, on_step=lambda v, r: whole.append(r))
    assert asked and summary(swept) == summary(full)
    for i, value in enumerate(values):
        alone = run_query(index, "ms.local", QUESTION, {**fixed, param: value})
        assert comparable(swept.retrieval(index, i)) == comparable(whole[i]) == comparable(alone)


def test_drifts_local_step_is_never_a_summary(index):
    from graphrag_ui.retrieval.core.deps import Deps
    from graphrag_ui.retrieval.ms.drift_search import loop
    from graphrag_ui.services.query import prepare_query

    prepared = prepare_query(index, "ms.local", QUESTION, {})
    prepared.run()  # the question's vector, kept in ``prepared.vectors``

    def deps() -> Deps:
        return Deps(embed=lambda texts: pytest.fail("embedded again"), cache=dict(prepared.vectors))

    local = loop.local_params({})
    alone = loop.local_step(index, QUESTION, local, deps())
    with reuse.shared(), reuse.summaries():
        inside = loop.local_step(index, QUESTION, local, deps())
    assert inside.context and comparable(inside) == comparable(alone)


@pytest.mark.parametrize("summaries", [True, False])
def test_a_top_k_sweep_makes_each_text_unit_row_once(index, summaries, monkeypatch):
    """A narrower step's text units are the first of its widest step's (``sources._Prefix``): their rows are
    made once per sweep, not once per step that lists them."""
    from graphrag_ui.retrieval.ms.indexer_adapters import IndexView

    made = []
    real = IndexView.unit_row
    monkeypatch.setattr(IndexView, "unit_row", lambda self, unit: made.append(unit.id) or real(self, unit))
    values = [20, 3, 6, 10, 14]
    on_step = None if summaries else (lambda v, r: None)
    run_sweep(
        index, "ms.local", QUESTION, {"max_context_tokens": 30000}, "top_k_mapped_entities", values, on_step=on_step
    )
    assert made and len(made) == len(set(made)), "a text unit's row made at more than one step"
