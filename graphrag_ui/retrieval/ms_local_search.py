"""GraphRAG local search, step 1: the index as GraphRAG's query loaders see it, and the entity search.

``read_indexer_entities`` / ``read_indexer_reports`` depend on ``community_level``; the views are
built once per (index, level) and cached. Entity search reproduces LanceDB's k-NN exactly: squared
L2 distances computed with LanceDB's own float32 summation order (bit-identical ``_distance``), ties
broken by row order (or by pylance ≤ 0.32's TopK heap, ``lance_topk``), ``score = 1 - |distance|``, no
threshold, ``k = 2 × top_k_mapped_entities``.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from graphrag_ui import tokens
from graphrag_ui.index.model import Chunk, Community, Entity, Index, Relation, VectorTable
from graphrag_ui.retrieval import vector_engine
from graphrag_ui.retrieval.lance_topk import TopKHeap

ENCODING = "cl100k_base"  # GraphRAG's CLI counts through litellm, which uses cl100k_base for OpenAI models


@lru_cache(maxsize=4096)
def count(text: str) -> int:
    """cl100k_base tokens of a short text (table headers): cached process-wide."""
    return tokens.count(text, ENCODING)


def count_text(text: str) -> int:
    """cl100k_base tokens of a whole section (not cached: each is built once)."""
    return tokens.count(text, ENCODING)


@dataclass
class EntityView:
    """An entity as ``read_indexer_entities`` loads it at one community level."""

    entity: Entity
    short_id: str
    rank: int | None
    community_ids: list[str]


@dataclass
class LevelView:
    level: int
    entities: dict[str, EntityView]  # by GraphRAG id, only the entities GraphRAG keeps at this level
    by_id_order: list[EntityView]  # GraphRAG's list order (its groupby sorts by id)
    reports: dict[str, Community]  # community id -> community with a report, level <= level
    memo: dict = field(default_factory=dict)  # other modes' per-level results (ms.global's weights and batches)


@dataclass
class IndexView:
    """Per-index lookups GraphRAG keeps as dicts and lists, built once."""

    rel_row: dict[str, int]
    rel_rank: dict[str, int]  # combined_degree (GraphRAG's relationship rank)
    rel_short: dict[str, str]  # human_readable_id as GraphRAG prints it
    chunks: dict[str, Chunk]
    unit_short_id: dict[str, str]
    levels: dict[int, LevelView] = field(default_factory=dict)
    row_tokens: dict[str, int] = field(default_factory=dict)  # table row -> tokens, counted once per index
    rel_lines: dict[tuple, tuple[str, int]] = field(default_factory=dict)  # (id, weight?, links?, links) -> row

    def tokens(self, row: str) -> int:
        """Tokens of a table row (stored texts are counted once per index, not once per query)."""
        n = self.row_tokens.get(row)
        if n is None:
            n = self.row_tokens[row] = tokens.count(row, ENCODING)
        return n


_VIEWS: dict[int, IndexView] = {}  # cache keyed by id(index), dropped when the index is collected


def index_view(index: Index) -> IndexView:
    view = _VIEWS.get(id(index))
    if view is None:
        degree = dict(index.graph.degree())
        view = IndexView(
            rel_row={r.id: i for i, r in enumerate(index.relations)},
            rel_rank={r.id: _rel_rank(r, degree) for r in index.relations},
            rel_short={r.id: _short(r.extra, i) for i, r in enumerate(index.relations)},
            chunks={c.id: c for c in index.chunks},
            unit_short_id={c.id: str(c.extra.get("short_id", c.order)) for c in index.chunks},
        )
        _VIEWS[id(index)] = view
        weakref.finalize(index, _VIEWS.pop, id(index), None)
    return view


def _short(extra: dict, row: int) -> str:
    """GraphRAG's printed id (human_readable_id); indexes from other sources use the row number."""
    if "human_readable_id" not in extra:
        return str(row)
    hid = extra["human_readable_id"]
    return "" if hid is None else str(hid)


def _rel_rank(rel: Relation, degree: dict[str, int]) -> int:
    if "combined_degree" in rel.extra:
        return rel.extra["combined_degree"] or 0
    return degree.get(rel.source, 0) + degree.get(rel.target, 0)


def community_ids_at(entity: Entity, level: int) -> list[str]:
    """GraphRAG's ``Entity.community_ids``: a Python set of the community numbers at levels <= level,
    filled in communities.parquet row order, listed in set iteration order (ties in the report sort
    follow it). Numbers hash to themselves, so this order is the same in every process. Non-numeric
    ids (indexes from other sources) keep their listed order."""
    ids = [cid for lvl, cid in entity.communities if lvl <= level]
    if all(cid.lstrip("-").isdigit() for cid in ids):
        return [str(n) for n in {int(cid) for cid in ids}]
    return list(dict.fromkeys(ids))


def level_view(index: Index, level: int) -> LevelView:
    view = index_view(index)
    cached = view.levels.get(level)
    if cached is not None:
        return cached
    entities: dict[str, EntityView] = {}
    for row, e in enumerate(index.entities):
        ids = community_ids_at(e, level)
        if not ids:  # no community at or below the level: read_indexer_entities drops the entity
            continue
        rank = e.extra["degree"] if "degree" in e.extra else index.graph.degree(e.name)
        entities.setdefault(e.id, EntityView(e, _short(e.extra, row), rank, ids))
    present = {c.id for c in index.communities if c.level <= level}
    reports = {
        c.id: c
        for c in index.communities
        if c.extra.get("has_report", bool(c.report)) and c.id in present and _report_level(c) <= level
    }
    cached = LevelView(level, entities, sorted(entities.values(), key=lambda v: v.entity.id), reports)
    view.levels[level] = cached
    return cached


def _report_level(c: Community) -> int:
    lvl = c.extra.get("report_level")
    return c.level if lvl is None else int(lvl)


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


_NORMS: dict[int, tuple[int, np.ndarray]] = {}  # id(table) -> (id(matrix), squared row norms), dropped with the table
EXACT_ROWS = 4096  # below this, every row gets the exact kernel


def _squared_norms(table: VectorTable) -> np.ndarray:
    cached = _NORMS.get(id(table))
    if cached is not None and cached[0] == id(table.matrix) and len(cached[1]) == len(table):
        return cached[1]
    m = table.matrix.astype(np.float64)
    norms = np.einsum("ij,ij->i", m, m)
    if cached is None:
        weakref.finalize(table, _NORMS.pop, id(table), None)
    _NORMS[id(table)] = (id(table.matrix), norms)
    return norms


def prepare_norms(index: Index) -> None:
    """Square the row norms of every table ``lance_knn`` pre-filters (large ones), before the first query."""
    for table in index.vectors.values():
        if len(table) > EXACT_ROWS and not vector_engine.is_server(table):
            _squared_norms(table)


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
    if vector_engine.is_server(table):
        return _server_knn(table, q, k, kernel)
    if kernel == "flat_topk":
        return _topk_knn(table, q, k)
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
    return [_hit(table, int(rows[i]), dist[i]) for i in order]


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
    hits = vector_engine.server_topk(table, q, k, lambda local: [h.id for h in lance_knn(local, q, k, kernel)])
    return [_hit(table, row, qn * qn + 1.0 - 2.0 * qn * (1.0 - dist)) for row, dist in hits]


def relations_of(index: Index, names: list[str]) -> list[Relation]:
    """Relations touching any of ``names``, in relationships.parquet order, each once."""
    row = index_view(index).rel_row
    seen: dict[str, Relation] = {}
    for name in names:
        for rel in index.relations_by_entity.get(name, ()):
            seen.setdefault(rel.id, rel)
    return sorted(seen.values(), key=lambda r: row[r.id])
