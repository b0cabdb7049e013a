"""A vector search asked again (LightRAG's near misses repeat the pipeline's searches without the threshold)
reuses the last searches' top rows: the same rows and scores as a fresh search, never another matrix's."""

from __future__ import annotations

import gc
import weakref

import numpy as np

from graphrag_ui.index import cache as index_cache
from graphrag_ui.index.model import VectorTable
from graphrag_ui.retrieval.core import recall
from graphrag_ui.retrieval.core.recall import normalise, top_order, vector_topk


def _fresh(table: VectorTable, q: np.ndarray, k: int, threshold: float | None = None) -> list[tuple[int, float]]:
    """The search done from scratch: the top ``k`` by argsort order, up to the first below the threshold."""
    scores = table.matrix @ normalise(q)
    hits = []
    for row in top_order(scores, k):
        if threshold is not None and scores[row] < threshold:
            break
        hits.append((int(row), float(scores[row])))
    return hits


def _table(seed: int, rows: int = 500, dim: int = 16) -> VectorTable:
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((rows, dim)).astype(np.float32)
    matrix[7] = matrix[3]  # an exact tie: argsort's order must be kept
    return VectorTable([f"r{i}" for i in range(rows)], matrix)


def test_a_repeated_search_gives_the_fresh_rows_with_and_without_the_threshold():
    table, q = _table(0), np.random.default_rng(1).standard_normal(16).astype(np.float32)
    for threshold in (0.2, None, 0.0, 0.5, None, -1.0):
        assert vector_topk(table, q, 40, threshold) == _fresh(table, q, 40, threshold)
    got = vector_topk(table, q, 40)
    got.append((0, 9.0))  # a caller's list is its own
    assert vector_topk(table, q, 40) == _fresh(table, q, 40)


def test_another_matrix_or_query_is_searched_again():
    table, q = _table(0), np.random.default_rng(1).standard_normal(16).astype(np.float32)
    before = vector_topk(table, q, 10)
    table.matrix = _table(2).matrix  # e.g. a re-embedded index: its rows changed
    assert vector_topk(table, q, 10) == _fresh(table, q, 10) != before
    other = q.copy()
    other[0] += 1e-3
    assert vector_topk(table, other, 10) == _fresh(table, other, 10)
    assert vector_topk(table, q, 5) == _fresh(table, q, 5)  # another top_k is its own search


def test_the_memo_keeps_no_dropped_index_s_vectors_alive():
    table, q = _table(3), np.ones(16, dtype=np.float32)
    vector_topk(table, q, 10)
    gone = weakref.ref(table.matrix)
    del table
    gc.collect()
    assert gone() is None
    small = _table(10, rows=50)
    for i in range(recall.RECENT + 3):  # and it stays small: a few searches per table
        vector_topk(small, np.full(16, i + 1.0, dtype=np.float32) + np.arange(16, dtype=np.float32), 5)
    assert len(index_cache.peek(small, recall.RECENT_TOPS)) == recall.RECENT
