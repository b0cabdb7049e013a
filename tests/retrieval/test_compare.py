"""compare.overlap: per-kind overlap of two retrievals' in-context items (the Compare page's table)."""

from __future__ import annotations

import pytest

from graphrag_ui.index.importers import lightrag as lightrag_importer
from graphrag_ui.retrieval.core.compare import overlap
from graphrag_ui.retrieval.core.result import KINDS, Candidate, Retrieval
from graphrag_ui.services.query import run_query
from tests.conftest import GOLDENS


def cand(id_: str, order: int, in_context: bool = True) -> Candidate:
    return Candidate(
        id=id_,
        label=f"label {id_}",
        data={},
        order=order,
        why="",
        in_context=in_context,
        dropped="" if in_context else "x",
    )


def retrieval(entities: list[Candidate], chunks: list[Candidate] = ()) -> Retrieval:
    return Retrieval(mode="m", query="q", params={}, entities=entities, chunks=list(chunks))


def test_counts_jaccard_and_sides_in_context_order():
    left = retrieval([cand("a", 0), cand("b", 1), cand("c", 2), cand("x", 3, in_context=False)])
    right = retrieval([cand("c", 0), cand("d", 1), cand("x", 2), cand("a", 3)])
    rows = {r.kind: r for r in overlap(left, right)}
    assert list(rows) == list(KINDS)
    e = rows["entities"]
    assert (e.left, e.right, e.shared) == (3, 4, 2)
    assert e.jaccard == pytest.approx(2 / 5)  # {a, c} of {a, b, c, d, x}; x is dropped on the left
    assert e.only_left == ["label b"]
    assert e.only_right == ["label d", "label x"]


def test_both_empty_has_no_jaccard_and_one_empty_is_none():
    """Two empty sets agree on nothing: no ratio (the page shows "—"), not a full 1.0."""
    rows = {r.kind: r for r in overlap(retrieval([]), retrieval([], [cand("k", 0)]))}
    assert rows["relations"].jaccard is None and rows["relations"].shared == 0
    assert rows["chunks"].jaccard == 0.0 and rows["chunks"].only_right == ["label k"]


def test_identical_retrievals_overlap_fully():
    r = retrieval([cand("a", 0), cand("b", 1)], [cand("k", 0)])
    rows = {row.kind: row for row in overlap(r, r)}
    assert all(not row.only_left and not row.only_right for row in rows.values())
    assert rows["entities"].jaccard == rows["chunks"].jaccard == 1.0
    assert rows["relations"].jaccard is None and rows["communities"].jaccard is None  # nothing on either side


def test_two_real_modes_on_one_index():
    """local vs hybrid of LightRAG share their entity path: hybrid's entities include local's."""
    index = lightrag_importer.import_dir(GOLDENS / "lightrag-1.4.7" / "en", embedder="hash")
    q = "How is Tidewater Institute related to Kelp Bay?"
    kw = {"hl": ["location", "research site"], "ll": ["Tidewater Institute", "Kelp Bay"]}
    local = run_query(index, "lightrag.local", q, **kw)
    hybrid = run_query(index, "lightrag.hybrid", q, **kw)
    naive = run_query(index, "lightrag.naive", q)
    rows = {r.kind: r for r in overlap(local, hybrid)}
    assert rows["entities"].left == len(local.selected_ids("entities")) > 0
    assert rows["entities"].shared == rows["entities"].left and rows["entities"].only_left == []
    vs_naive = {r.kind: r for r in overlap(local, naive)}
    assert vs_naive["entities"].right == 0 and vs_naive["entities"].jaccard == 0.0
    assert vs_naive["chunks"].shared == len(set(local.selected_ids("chunks")) & set(naive.selected_ids("chunks")))
