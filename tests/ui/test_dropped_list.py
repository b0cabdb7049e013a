"""Explore's dropped rows sit in a list that is built only when opened (issue 29: a slider move with the
list closed builds neither the dropped frame nor its grid), open in the link (``dropped_entities=1``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.services.query import run_query
from graphrag_ui.ui.results import tables
from graphrag_ui.ui.results.kind_table import dropped_key

ROOT = Path(__file__).resolve().parents[2]

QUESTION = "Who founded the Guild of Tidewrights, and what did he build?"


@pytest.fixture()
def built(monkeypatch):
    """Every call of the dropped rows' builder, by kind."""
    calls: list[str] = []
    real = tables.dropped_rows

    def spy(result, kind, *args, **kwargs):
        calls.append(kind)
        return real(result, kind, *args, **kwargs)

    monkeypatch.setattr(tables, "dropped_rows", spy)
    return calls


def _run(params: dict):
    return run_query(store.load(ROOT / "data" / "sample" / "en" / "index"), "nano.local", QUESTION, params)


def _dropped_count() -> int:
    return sum(1 for c in _run({}).entities if not c.in_context)


def _frames(at, column: str) -> list:
    return [df.value for df in at.dataframe if column in df.value.columns]


def _counts_lines(at) -> list[str]:
    return [c.value for c in at.caption if c.value.startswith("In the context: ")]


def test_a_closed_list_builds_no_dropped_row_and_one_line_gives_both_counts(app, built):
    """The kept and dropped counts share one caption and the list's label stays the same (issue 29: each
    element a move changes costs the browser)."""
    at = app(index="sample:en", mode="nano.local", view="entities", q=QUESTION)
    n = _dropped_count()
    assert n > 0
    kept = len(_frames(at, "why")[0])
    assert [e.label for e in at.expander if "dropped" in e.label] == ["Considered but dropped"]
    assert _counts_lines(at) == [f"In the context: {kept} · Considered but dropped: {n}"]
    assert built == [] and not _frames(at, "dropped")
    at.slider(key=next(s.key for s in at.slider if s.label == "top_k")).set_value(3).run()  # a move: still none
    assert built == [] and not _frames(at, "dropped")
    assert [e.label for e in at.expander if "dropped" in e.label] == ["Considered but dropped"]
    before, after = (_run(params) for params in ({}, {"top_k": 3}))
    was_in = {c.id for c in before.entities if c.in_context}
    now_in = {c.id for c in after.entities if c.in_context}
    considered = {c.id for c in after.entities}
    left = len(was_in - now_in)  # the list also holds rows that left and are no longer even candidates
    dropped = len(considered - now_in) + len(was_in - considered)
    assert left  # fewer seeds: rows left the context, and the same line says how many
    assert _counts_lines(at) == [
        f"In the context: {len(now_in)} · Considered but dropped: {dropped} · {left} of them were in the context before"
    ]


def test_the_link_opens_the_list_with_every_dropped_row_and_its_reason(app, built):
    at = app(index="sample:en", mode="nano.local", view="entities", q=QUESTION, dropped_entities="1")
    assert built == ["entities"]
    (dropped,) = _frames(at, "dropped")
    assert len(dropped) == _dropped_count() and dropped["dropped"].str.len().gt(0).all()


@pytest.mark.parametrize("raw", ["<script>alert(1)</script>", "true" * 5000, "0", ""])
def test_a_link_value_other_than_open_leaves_the_list_closed(app, built, raw):
    at = app(index="sample:en", mode="nano.local", view="entities", q=QUESTION, dropped_entities=raw)
    assert not at.exception and built == [] and not _frames(at, "dropped")
    assert all("<script>" not in e.label for e in at.expander)


def test_each_kind_keeps_its_own_key_and_other_results_keep_theirs():
    assert [dropped_key("main", k) for k in KINDS] == [f"dropped_{k}" for k in KINDS]
    assert dropped_key("cmp_left", "entities") == "cmp_left_dropped_entities"


def test_the_grids_headers_are_built_once_per_language_and_each_grid_gets_its_own_copy(monkeypatch):
    from graphrag_ui.ui.results import kind_table

    monkeypatch.setattr(kind_table, "language", lambda: "en")
    first = kind_table.column_config()
    first["mark"] = "a grid's own mark column"
    again = kind_table.column_config()
    assert "mark" not in again and again["label"] == first["label"]
    monkeypatch.setattr(kind_table, "language", lambda: "zh")
    monkeypatch.setattr("graphrag_ui.ui.shell.language.language", lambda: "zh")
    assert kind_table.column_config()["why"]["label"] != again["why"]["label"]  # 入选原因, not "Why selected"
