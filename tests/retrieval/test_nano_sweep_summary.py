"""nano.local's summary steps (a sweep without ``on_step``, ``reuse.summaries``): they print no context, build
no answer messages, and keep their kept relations, sources and reports as ``reuse.SummaryRow`` — one per item
and sweep, the same object at every step that keeps it — while each step's whole run (``Sweep.retrieval``)
is still the single run at its value, and the summaries are those of the whole runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import in_context
from graphrag_ui.retrieval.nano import local_query, local_tables
from graphrag_ui.services import sweep as sweep_service
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep
from tests.retrieval.test_sweep_parity import comparable, summary

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"
CASES = [("top_k", [2, 12, 5, 8, 40]), ("local_max_token_for_local_context", [4800, 0, 300, 1200, 9000])]


@pytest.fixture(scope="module")
def index():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


def _counted(monkeypatch):
    """Counters of the context tables printed and the answer messages built, and each step's run as seen."""
    printed, asked, runs = [], [], []
    real_context, real_messages, real_step = local_tables.context, local_query._messages, sweep_service._step
    monkeypatch.setattr(local_tables, "context", lambda *a: printed.append(1) or real_context(*a))
    monkeypatch.setattr(local_query, "_messages", lambda *a: asked.append(1) or real_messages(*a))
    monkeypatch.setattr(sweep_service, "_step", lambda v, r, *a: runs.append(r) or real_step(v, r, *a))
    return printed, asked, runs


@pytest.mark.parametrize("param,values", CASES)
def test_summary_steps_print_nothing_and_share_one_row_per_kept_item(index, param, values, monkeypatch):
    printed, asked, runs = _counted(monkeypatch)
    swept = run_sweep(index, "nano.local", QUESTION, {}, param, values)
    assert printed == [] and asked == [], "a summary step printed its context or built its messages"
    assert all(r.context == "" for r in runs)
    rows: dict[tuple[str, str], object] = {}
    for result in runs:
        for kind in ("entities", "relations", "chunks", "communities"):
            for row in in_context(result.candidates(kind)):
                assert type(row) is reuse.SummaryRow, f"{kind}: a whole row in a summary step"
                assert rows.setdefault((kind, row.id), row) is row, f"{kind} {row.id}: made again"
    assert {kind for kind, _ in rows} == {"entities", "relations", "chunks", "communities"}  # every section kept some
    assert sum(len(in_context(r.relations)) for r in runs) > len([k for k in rows if k[0] == "relations"])

    whole = []
    full = run_sweep(index, "nano.local", QUESTION, {}, param, values, on_step=lambda v, r: whole.append(r))
    assert printed and asked  # a whole run prints its context
    assert summary(swept) == summary(full)
    for i, value in enumerate(values):
        alone = run_query(index, "nano.local", QUESTION, {param: value})
        assert comparable(swept.retrieval(index, i)) == comparable(whole[i]) == comparable(alone)


@pytest.mark.parametrize("param,values", [("top_k", [40, 2, 5, 12]), ("naive_max_token_for_text_unit", [4000, 0, 900])])
def test_naive_summary_steps_print_nothing_and_read_the_rows_made(index, param, values, monkeypatch):
    """nano.naive's summary steps join no context and build no messages, and read the kept rows made once per
    sweep (a whole step reads copies)."""
    runs = []
    real_step = sweep_service._step
    monkeypatch.setattr(sweep_service, "_step", lambda v, r, *a: runs.append(r) or real_step(v, r, *a))
    swept = run_sweep(index, "nano.naive", QUESTION, {}, param, values)
    assert all(r.context == "" and r.messages == [] for r in runs)
    rows: dict[str, object] = {}
    for result in runs:
        for row in in_context(result.chunks):
            assert rows.setdefault(row.id, row) is row, f"{row.id}: copied for a summary step"
    assert sum(len(in_context(r.chunks)) for r in runs) > len(rows)
    whole = []
    full = run_sweep(index, "nano.naive", QUESTION, {}, param, values, on_step=lambda v, r: whole.append(r))
    assert summary(swept) == summary(full)
    assert all(r.context for r in whole if in_context(r.chunks))  # a whole step joins its context
    kept = [row for r in whole for row in in_context(r.chunks)]
    assert len({id(row) for row in kept}) == len(kept)  # a whole step's rows are its own
    for i, value in enumerate(values):
        assert comparable(swept.retrieval(index, i)) == comparable(
            run_query(index, "nano.naive", QUESTION, {param: value})
        )


@pytest.mark.parametrize(
    "param,values",
    [
        ("global_max_consider_community", [40, 1, 3, 8, 20]),
        ("global_max_token_for_community_report", [16384, 1, 900, 3000]),
    ],
)
def test_global_summary_steps_write_no_batch_and_share_one_row_per_cluster(index, param, values, monkeypatch):
    """nano.global's summary steps write no batch's table or map prompt and keep one ``reuse.SummaryRow`` per
    cluster and sweep; their summaries are the whole runs' and each step's whole run is the single run."""
    from graphrag_ui.retrieval.nano import global_query

    written, runs = [], []
    real_messages, real_step = global_query.map_messages, sweep_service._step
    monkeypatch.setattr(global_query, "map_messages", lambda *a: written.append(1) or real_messages(*a))
    monkeypatch.setattr(sweep_service, "_step", lambda v, r, *a: runs.append(r) or real_step(v, r, *a))
    swept = run_sweep(index, "nano.global", QUESTION, {}, param, values)
    assert written == [] and all(r.context == "" and not r.stages.batches for r in runs)
    rows: dict[str, object] = {}
    for result in runs:
        for row in in_context(result.communities):
            assert type(row) is reuse.SummaryRow and rows.setdefault(row.id, row) is row
    assert sum(len(in_context(r.communities)) for r in runs) > len(rows) > 0
    whole = []
    full = run_sweep(index, "nano.global", QUESTION, {}, param, values, on_step=lambda v, r: whole.append(r))
    assert written and summary(swept) == summary(full)
    for i, value in enumerate(values):
        assert comparable(swept.retrieval(index, i)) == comparable(
            run_query(index, "nano.global", QUESTION, {param: value})
        )
