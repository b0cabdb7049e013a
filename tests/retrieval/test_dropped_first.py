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
    kept, dropped = tables.split_tables(result, "entities")
    assert not dropped.empty
    assert _order(_shown(dropped))[:4] == ["change", "dropped", "label", "why"]  # change: what moved, if anything
    assert _order(_shown(kept))[:3] == ["change", "#", "label"] and "dropped" not in _order(_shown(kept))
    assert list(_shown(kept)["#"]) == [c.order + 1 for c in result.entities if c.in_context]  # numbered from 1
    both = tables.candidate_rows("entities", result.candidates("entities"))
    assert {"order", "id", "label", "score", "rank", "tokens", "why", "dropped"} <= set(both.columns)


def test_the_dropped_grid_builds_only_the_rows_it_shows_and_counts_them_all():
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    result = run_query(index, "nano.local", "Who are the most important people and how are they connected?", {})
    kept, dropped = tables.split_tables(result, "entities")
    assert len(dropped) > 3
    head_kept, head, n = tables.split_shown(result, "entities", dropped_shown=3)
    assert n == len(dropped) and head_kept.equals(kept)
    assert list(head["id"]) == list(dropped["id"][:3]) and list(head["dropped"]) == list(dropped["dropped"][:3])
