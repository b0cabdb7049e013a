"""GraphRAG's vector search: LanceDB's k-NN, reproduced exactly (``LanceDBVectorStore.similarity_search_by_vector``).

Squared L2 distances computed with LanceDB's own float32 summation order (bit-identical
``_distance``), ties broken by row order (or by pylance ≤ 0.32's TopK heap, ``lance_topk``),
``score = 1 - |distance|``, no threshold. Local search asks for ``k = 2 × top_k_mapped_entities``
entities, basic search for ``k`` text units. An index opened with ``vectors="server"`` hands the
search to its chroma server (``index.vector_server``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphrag_ui.base.i18n import msg
from graphrag_ui.index import validate
from graphrag_ui.index.model import VectorTable
from graphrag_ui.index.servers import vector_server
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.ms.lance_topk import TopKHeap

# --- LanceDB k-NN --------------------------------------------------------------------------------


def lance_distances(matrix: np.ndarray, query: np.ndarray, kernel: str) -> np.ndarray:
    """Squared L2 distances, float32, bit-identical to LanceDB's ``_distance``.

    ``ivf_flat`` (rows covered by an IVF_FLAT index, GraphRAG 2.4+): 8 float32 lanes accumulated with
    fused multiply-add over the dimension, then a halving tree sum. ``flat`` (rows scanned without an
    index, GraphRAG 3.x) and ``flat_topk`` (GraphRAG 2.0–2.3, no index): 16 lanes accumulated as
    ``acc + d*d`` (two roundings), then a left-to-right sum of the lanes. A dimension that is not a
    multiple of the lane count is zero-padded.
    """
    lanes = 8 if kernel == "ivf_flat" else 16
    diff = matrix.astype(np.float32, copy=False) - query.astype(np.float32, copy=False)
    n, dim = diff.shape
    if dim % lanes:
        diff = np.pad(diff, ((0, 0), (0, lanes - dim % lanes)))
    blocks = diff.reshape(n, -1, lanes)
    acc = np.zeros((n, lanes), dtype=np.float32)
    if kernel == "ivf_flat":
        for j in range(blocks.shape[1]):
            b = blocks[:, j, :].astype(np.float64)
            acc = (b * b + acc).astype(np.float32)
        while acc.shape[1] > 1:
            half = acc.shape[1] // 2
            acc = acc[:, :half] + acc[:, half:]
        return acc[:, 0]
    for j in range(blocks.shape[1]):
        b = blocks[:, j, :]
        acc = acc + b * b
    total = np.zeros(n, dtype=np.float32)
    for j in range(lanes):
        total = total + acc[:, j]
    return total


@dataclass
class VectorHit:
    row: int
    id: str
    distance: float
    score: float  # GraphRAG's 1 - |distance|


def negative_scores(hits: list[VectorHit]) -> list[str]:
    """One note when a score is below 0, which a reader takes for a fault: GraphRAG's score is 1 minus the
    squared L2 distance, which between unit vectors runs from 0 to 4 (below 0 once the cosine is below ½)."""
    if not any(hit.score < 0 for hit in hits):
        return []
    return [
        msg(
            "scores below 0 are GraphRAG's own: score = 1 − squared L2 distance, negative once a vector's cosine "
            "to the question is below 0.5; the hits are still ranked by distance"
        )
    ]


EXACT_ROWS = 4096  # below this, every row gets the exact kernel


def _squared_norms(table: VectorTable) -> np.ndarray:
    return validate.table_squared_norms(table)  # the table's first-read check's (or the loader's)


def lance_knn(table: VectorTable, query: np.ndarray, k: int, kernel: str) -> list[VectorHit]:
    """LanceDB ``search(query).limit(k)``: nearest first, equal distances in row order — or, for
    ``flat_topk`` (pylance ≤ 0.32), in the order its TopK heap leaves them (``lance_topk``).

    Large tables are pre-filtered with float64 ``|x|² + |q|² − 2x·q`` (one BLAS product): only rows
    within a safe margin of the k-th approximate distance can be in the top k (the float32 kernel is
    within ~1e-6 relative of the true distance, the margin is 1e-4), and only they get the exact kernel.
    """
    if k <= 0 or not len(table):
        return []
    q = np.asarray(query, dtype=np.float32)
    if vector_server.is_server(table):
        return _server_knn(table, q, k, kernel)
    if kernel == "flat_topk":
        return list(reuse.kept("lance_topk", table, q, lambda: _topk_knn(table, q, k), k))
    if reuse.active():  # a sweep: its widest step's top k once, of which a narrower step's top k is the first k
        held = reuse.kept("lance", table, q, dict, kernel)
        if held.get("k", -1) < k:
            rows, dist = _nearest(table, q, k, kernel)
            held["hits"], held["k"] = [_hit(table, int(rows[i]), dist[i]) for i in range(len(rows))], k
        return held["hits"][:k]  # the hits are read only
    rows, dist = _nearest(table, q, k, kernel)
    return [_hit(table, int(rows[i]), dist[i]) for i in range(len(rows))]


def _nearest(table: VectorTable, q: np.ndarray, k: int, kernel: str) -> tuple[np.ndarray, np.ndarray]:
    """The top ``k`` rows and their exact distances in (distance, row) order — a total order over rows whose
    distances are each row's own bits (the kernel works row by row), so the top ``k`` of a wider top is the
    same rows in the same order."""
    rows = np.arange(len(table))
    if len(table) > EXACT_ROWS and k < len(table):
        approx = _approx(table, q)
        rows = np.flatnonzero(approx <= _margin(np.partition(approx, k - 1)[k - 1]))
    dist = lance_distances(table.matrix[rows], q, kernel)
    if k < len(dist):
        cut = np.partition(dist, k - 1)[k - 1]
        keep = np.flatnonzero(dist <= cut)
        rows, dist = rows[keep], dist[keep]
    order = np.lexsort((rows, dist))[:k]
    return rows[order], dist[order]


def _approx(table: VectorTable, q: np.ndarray) -> np.ndarray:
    q64 = q.astype(np.float64)
    return _squared_norms(table) + float(q64 @ q64) - 2.0 * (table.matrix @ q).astype(np.float64)


def _margin(distance: float) -> float:
    """An approximate distance above this cannot be exactly below ``distance``."""
    return distance + 1e-4 * max(abs(distance), 1e-6) + 1e-9


def _topk_knn(table: VectorTable, q: np.ndarray, k: int) -> list[VectorHit]:
    """Every row in scan order through the TopK heap. The heap's top only falls, so in a large table
    a block's rows whose approximate distance is clearly not below it get no exact distance."""
    n = len(table)
    approx = _approx(table, q) if n > EXACT_ROWS else None
    heap = TopKHeap(k)
    for start in range(0, n, EXACT_ROWS):
        rows = np.arange(start, min(n, start + EXACT_ROWS))
        if approx is not None and heap.top != float("inf"):
            rows = rows[approx[rows] <= _margin(heap.top)]
            if not len(rows):
                continue
        for row, distance in zip(rows.tolist(), lance_distances(table.matrix[rows], q, "flat").tolist(), strict=True):
            heap.offer(row, distance)
    return [_hit(table, row, distance) for row, distance in heap.order()]


def _hit(table: VectorTable, row: int, distance: float) -> VectorHit:
    return VectorHit(row, table.ids[row], float(distance), 1 - abs(float(distance)))


def _server_knn(table: VectorTable, q: np.ndarray, k: int, kernel: str) -> list[VectorHit]:
    """The chroma server's cosine top-k as LanceDB hits: squared L2 of unit rows, ``|q|² + 1 - 2|q|·cos``."""
    qn = float(np.linalg.norm(q.astype(np.float64)))
    hits = vector_server.server_topk(table, q, k, lambda local: [h.id for h in lance_knn(local, q, k, kernel)])
    return [_hit(table, row, qn * qn + 1.0 - 2.0 * qn * (1.0 - dist)) for row, dist in hits]
