"""Dropped rows lead with why they were dropped (Explore and Compare share kind_table); the CSV keeps every column."""

from __future__ import annotations

from pathlib import Path

from graphrag_ui.index import store
from graphrag_ui.services.query import run_query
from graphrag_ui.ui.results import tables
from graphrag_ui.ui.results.kind_table import _order, _shown

ROOT = Path(__file__).resolve().parents[2]


def test_dropped_table_leads_with_why_dropped_then_what_and_why_considered():
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    result = run_query(index, "nano.local", "Who are the most important people and how are they connected?", {})
    kept, (dropped, _) = tables.kept_rows(result, "entities"), tables.dropped_rows(result, "entities")
    assert not dropped.empty
    assert _order(_shown(dropped))[:4] == ["change", "dropped", "label", "why"]  # change: what moved, if anything
    assert _order(_shown(kept))[:3] == ["change", "#", "label"] and "dropped" not in _order(_shown(kept))
    assert list(_shown(kept)["#"]) == [c.order + 1 for c in result.entities if c.in_context]  # numbered from 1
    both = tables.candidate_rows("entities", result.candidates("entities"))
    assert {"order", "id", "label", "score", "rank", "tokens", "why", "dropped"} <= set(both.columns)


def test_the_dropped_grid_builds_only_the_rows_it_shows_and_counts_them_all():
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    result = run_query(index, "nano.local", "Who are the most important people and how are they connected?", {})
    kept, (dropped, _) = tables.kept_rows(result, "entities"), tables.dropped_rows(result, "entities")
    assert len(dropped) > 3
    head_kept = tables.kept_rows(result, "entities")
    head, n = tables.dropped_rows(result, "entities", dropped_shown=3)
    assert n == len(dropped) and head_kept.equals(kept)
    assert list(head["id"]) == list(dropped["id"][:3]) and list(head["dropped"]) == list(dropped["dropped"][:3])


def test_rows_that_left_lead_the_dropped_table_and_rows_not_considered_close_it():
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    q = "Who are the most important people and how are they connected?"
    runs = (run_query(index, "nano.local", q, {"top_k": k, "query_better_than_threshold": 0.0}) for k in (8, 2))
    before, after = runs
    marks = tables.Marks.between(before, after)
    for kind in ("entities", "relations"):  # entities left but still listed; relations no longer considered
        left = {c.id for c in marks.left[kind]}
        dropped, n = tables.dropped_rows(after, kind, marks)
        ids = list(dropped["id"])
        considered = [c.id for c in after.candidates(kind) if not c.in_context]
        gone = [i for i in ids if i not in {c.id for c in after.candidates(kind)}]
        assert left and n == len(ids) == len(considered) + len(gone) and len(set(ids)) == len(ids)
        moved = [i for i in considered if i in left]
        assert ids == moved + [i for i in considered if i not in left] + gone  # each part in the mode's order
        assert set(dropped[dropped["id"].isin(gone)]["dropped"]) <= {tables.translate(tables.NOT_CONSIDERED)}
    assert any(c.id not in {x.id for x in after.relations} for c in marks.left["relations"])
