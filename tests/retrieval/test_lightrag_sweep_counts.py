"""LightRAG work a top_k sweep's steps no longer repeat: a VECTOR chunk pick whose candidates a sweep met
before takes their similarities as they were; a pick shared by steps lists its unpicked chunks
once, and a kept row's id, label and data are made once per item. Each step is still the single run."""

from __future__ import annotations

import contextlib

import pytest

from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.lightrag import chunks, explain
from graphrag_ui.retrieval.lightrag.v1_4_7 import context as ctx
from graphrag_ui.retrieval.lightrag.v1_4_7 import pipeline as p147
from graphrag_ui.retrieval.lightrag.v1_5_7 import context as c157
from graphrag_ui.retrieval.lightrag.v1_5_7 import pipeline as p157
from tests.retrieval.test_lightrag_sweep import QUESTION, _same_as_single, _sample, _steps


@pytest.mark.parametrize("version", ["1.4.7", "1.5.7"])
def test_a_pick_whose_candidates_a_sweep_met_takes_their_similarities(version, monkeypatch):
    """The widest top_k step measures its chunk candidates' similarities; a narrower step's VECTOR picks meet
    chunks already measured (a subset, mostly) and measure only new ones: fewer measurements than picks."""
    measured, picks = [], []
    real = chunks._similarities
    monkeypatch.setattr(chunks, "_similarities", lambda *a: measured.append(1) or real(*a))
    real_pick = chunks.vector_similarity_pick
    monkeypatch.setattr(chunks, "vector_similarity_pick", lambda *a: picks.append(1) or real_pick(*a))
    fixed = {
        "version": version,
        "kg_chunk_pick_method": "VECTOR",
        "max_entity_tokens": 30000,
        "max_relation_tokens": 30000,
        "cosine_better_than_threshold": 0.0,
    }
    sweep, steps = _steps(_sample(), "lightrag.local", QUESTION, fixed, "top_k", [40, 5, 10, 20, 30])
    assert measured and len(measured) < len(picks) / 2, "each pick measured its candidates again"
    monkeypatch.setattr(chunks, "_similarities", real)
    monkeypatch.setattr(chunks, "vector_similarity_pick", real_pick)
    _same_as_single(_sample(), "lightrag.local", QUESTION, fixed, "top_k", steps, sweep)


def test_a_pick_shared_by_steps_lists_its_unpicked_chunks_once(monkeypatch):
    """A step whose entities did not change shares the entity pick of an earlier step; the chunks that pick
    did not pick are listed once for it, and each step filters that list (its dropped rows still its own)."""
    lists = []
    real = explain._not_picked
    monkeypatch.setattr(explain, "_not_picked", lambda *a: lists.append((id(a[1]), real(*a))) or lists[-1][1])
    fixed = {"kg_chunk_pick_method": "WEIGHT"}
    sweep, steps = _steps(_sample(), "lightrag.hybrid", QUESTION, fixed, "top_k", [40, 5, 10, 20, 30])
    by_pick: dict[int, set[int]] = {}
    for pick, listed in lists:
        by_pick.setdefault(pick, set()).add(id(listed))
    assert any(len(listed) == 1 for listed in by_pick.values()) and len(by_pick) < len(lists)
    assert all(len(listed) == 1 for listed in by_pick.values()), "a shared pick listed its chunks again"
    monkeypatch.setattr(explain, "_not_picked", real)
    _same_as_single(_sample(), "lightrag.hybrid", QUESTION, fixed, "top_k", steps, sweep)


@pytest.mark.parametrize("version", ["1.4.7", "1.5.7"])
def test_a_kept_row_s_id_label_and_data_are_made_once_per_item_in_a_sweep(version, monkeypatch):
    """A top_k step's kept relations sit mostly at new positions (a new entity's edges come in before them):
    the row is new, its id, label and data are those made for the same relation (as printed) before."""
    made = []
    real = explain.candidate
    monkeypatch.setattr(explain, "candidate", lambda *a: made.append(a[1]) or real(*a))
    fixed = {"version": version, "max_relation_tokens": 30000, "cosine_better_than_threshold": 0.0}
    sweep, steps = _steps(_sample(), "lightrag.local", QUESTION, fixed, "top_k", [30, 5, 10, 20, 25])
    rows = [c for _, r in steps for c in [*r.entities.head, *r.relations.head]]
    items = {(c.id, c.label, c.data["path"]) for c in rows}
    assert len(rows) > 2 * len(items) and len(made) == len(items), "a kept item's fields were made again"
    monkeypatch.setattr(explain, "candidate", real)
    _same_as_single(_sample(), "lightrag.local", QUESTION, fixed, "top_k", steps, sweep)


@pytest.mark.parametrize(
    "rows",
    [
        [],
        [{"content": 'a "q"\n\t\u2028 é 中 </script>', "file_path": "x/y.txt"}, {"content": "", "file_path": None}],
        [{"content": "b", "file_path": ["x", "y"]}],  # a field that does not hash: the array dumped whole
    ],
)
def test_the_units_array_is_json_dumps_of_the_kept_chunks(rows):
    kept = [(f"c{i}", "entity") for i in range(len(rows))]
    expected = ctx.dumps(
        [{"id": i + 1, "content": r["content"], "file_path": r["file_path"]} for i, r in enumerate(rows)]
    )
    for scope in (contextlib.nullcontext(), reuse.shared()):  # a single run dumps it whole, a sweep joins parts
        with scope:
            assert p147._units_json(_sample(), kept, rows) == expected
            assert ctx.naive_context_text(p147._units_array(_sample(), rows)) == ctx.naive_context(
                [{"id": i + 1, "content": r["content"], "file_path": r["file_path"]} for i, r in enumerate(rows)]
            )


def test_a_kept_chunk_is_encoded_once_per_sweep(monkeypatch):
    """Each top_k step's Document Chunks array joins its kept chunks' encoded parts; a chunk kept by several
    steps is encoded once (its content is dumped once), and every context is still the single run's."""
    dumped = []
    real = ctx.dumps
    monkeypatch.setattr(ctx, "dumps", lambda obj: dumped.append(obj) or real(obj))
    fixed = {"version": "1.4.7", "cosine_better_than_threshold": 0.0}
    sweep, steps = _steps(_sample(), "lightrag.hybrid", QUESTION, fixed, "top_k", [40, 5, 10, 20, 30])
    contents = [d for d in dumped if isinstance(d, str) and len(d) > 40]  # chunk texts (not file paths)
    kept = sum(len([c for c in r.chunks.head]) for _, r in steps)
    assert contents and len(contents) == len(set(contents)) < kept, "a kept chunk was encoded again"
    monkeypatch.setattr(ctx, "dumps", real)
    _same_as_single(_sample(), "lightrag.hybrid", QUESTION, fixed, "top_k", steps, sweep)


@pytest.mark.parametrize(
    "rows",
    [
        [],
        [
            {"chunk_id": "a", "content": 'a "q"\n\t\u2028 é 中', "file_path": "x.txt"},
            {"chunk_id": "b", "content": "", "file_path": "unknown_source"},
            {"chunk_id": "c", "content": "c", "file_path": "x.txt"},
        ],
    ],
)
def test_1_5_7_lines_are_those_it_renders(rows):
    assert p157._chunk_lines(rows) == c157.chunk_lines(rows)
    assert p157._content_lines(rows) == c157.content_lines(rows)


def test_1_5_7_encodes_a_chunk_once_per_sweep(monkeypatch):
    """1.5.7 measures and renders each step's merged chunk rows as JSON lines; a chunk's text is encoded once
    per sweep (each step renders another list of mostly the same chunks), and each step is the single run."""
    p157._encoded_text.cache_clear()  # the texts encoded by earlier tests in this process are kept
    dumped = []
    real = c157.dumps
    monkeypatch.setattr(c157, "dumps", lambda obj: dumped.append(obj) or real(obj))
    fixed = {"version": "1.5.7", "cosine_better_than_threshold": 0.0}
    sweep, steps = _steps(_sample(), "lightrag.hybrid", QUESTION, fixed, "top_k", [40, 5, 10, 20, 30])
    contents = [d for d in dumped if isinstance(d, str) and len(d) > 40]  # chunk texts
    assert contents and len(contents) == len(set(contents)), "a chunk's text was encoded again"
    monkeypatch.setattr(c157, "dumps", real)
    _same_as_single(_sample(), "lightrag.hybrid", QUESTION, fixed, "top_k", steps, sweep)
