"""Entity recall strategies shared by every mode that starts from entities (seed 003).

* ``vector`` — exact cosine search with nano-vectordb's semantics (what nano-graphrag and LightRAG
  1.4.7 use), so the reference's order, ties included, is reproduced.
* ``ilike`` — the SQL catalog: ``name ILIKE %text% OR aliases ILIKE %text%``, plus names found
  inside the text (a whole question rarely sits inside an entity name).
* ``hybrid`` — ILIKE first; vector recall only when ILIKE returns fewer than the limit; merged by
  entity id and scored ``w_ilike·ilike + w_sim·sim + w_occ·log(occ+1)``.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from graphrag_ui.base.i18n import Msg, joined, msg
from graphrag_ui.index import cache as index_cache
from graphrag_ui.index.model import Entity, Index, VectorTable
from graphrag_ui.index.servers import vector_server
from graphrag_ui.retrieval.core import reuse, screen

K = TypeVar("K", bound=Hashable)

STRATEGIES = ("vector", "ilike", "hybrid")
DEFAULT_WEIGHTS = (1.0, 0.7, 0.2)


@dataclass
class RecallHit:
    entity: Entity
    score: float  # the value the ranking used (similarity for vector, seed-003 score otherwise)
    sim: float | None  # cosine similarity when the vector path saw the entity
    ilike: str  # match kind from the catalog ("name", "alias", "name in query", ...) or ""
    why: str


def normalise(vec: np.ndarray) -> np.ndarray:
    """nano-vectordb's ``a / np.linalg.norm(a, axis=-1, keepdims=True)``: the axis form sums in another
    order than the plain norm (it can differ by an ulp, and exact ties in the scores follow it)."""
    vec = np.asarray(vec, dtype=np.float32)
    norm = np.linalg.norm(vec, axis=-1, keepdims=True)
    return vec / norm if np.all(norm > 0) else vec


FULL_SORT_BELOW = 64  # rows; below this a full argsort costs less than the checks


# kept per table (``index.cache``): how many next searches sort at once. After a tie in a table's top, the
# partition that proves there is none is wasted work (hash-like vectors tie on most queries); it is tried
# again after 7. Either path gives the same rows, so a forgotten count costs time, never a result.
SORT_AT_ONCE = "sort_at_once"
RETRY_AFTER = 7


def top_order(scores: np.ndarray, top_k: int, table: object = None) -> np.ndarray:
    """Exactly ``np.argsort(scores)[-top_k:][::-1]``, without sorting every score when that is provable.

    When the ``top_k`` best scores are all distinct and strictly above every other score, argsort
    can only place them last in value order, so a partition plus a sort of those ``top_k`` gives the
    same rows. Any tie inside or at the edge of the top (or a NaN) falls back to the full argsort,
    whose tie order is what the reference produced.
    """
    n = len(scores)
    kept = index_cache.values(table) if table is not None else {}
    skip = kept.get(SORT_AT_ONCE, 0)
    if top_k >= n or n < FULL_SORT_BELOW or skip:
        if skip:
            kept[SORT_AT_ONCE] = skip - 1
        return np.argsort(scores)[-top_k:][::-1]
    rows = screen.above_block_maxima(scores, top_k)
    pool = scores if rows is None else scores[rows]
    kth = np.partition(pool, pool.size - top_k)[pool.size - top_k]  # the k-th best (NaN sorts last: no hit)
    rows = np.flatnonzero(scores >= kth) if rows is None else rows[pool >= kth]
    top = scores[rows]
    if rows.size != top_k or np.unique(top).size != top_k:
        kept[SORT_AT_ONCE] = RETRY_AFTER
        return np.argsort(scores)[-top_k:][::-1]
    return rows[np.argsort(top)[::-1]]


def vector_topk(
    table: VectorTable, query_vec: np.ndarray, top_k: int, threshold: float | None = None
) -> list[tuple[int, float]]:
    """(row, score) pairs best first, as nano-vectordb's cosine query returns them.

    Same arithmetic (float32 dot product with the normalised query), same selection
    (``argsort(scores)[-top_k:][::-1]``, so ties resolve exactly as in the reference), and the
    same early stop at the first score below the threshold. A ``ServerTable`` is searched by its
    chroma server instead (``vector_engine``), the score being ``1 - cosine distance``.
    """
    if len(table) == 0 or top_k <= 0:
        return []
    if vector_server.is_server(table):
        exact = lambda local: [local.ids[r] for r, _ in vector_topk(local, query_vec, top_k, threshold)]  # noqa: E731
        cut = None if threshold is None else (lambda dist: 1.0 - dist < threshold)
        return [(row, 1.0 - dist) for row, dist in vector_server.server_topk(table, query_vec, top_k, exact, cut)]
    if reuse.active():  # a sweep: one ranking of the table for this query, cut at every step
        top = reuse.kept("cosine", table, query_vec, lambda: _Ranked(table, query_vec)).top(top_k)
    else:
        top = _recent_top(table, query_vec, top_k)
    if threshold is None:
        return list(top)
    hits: list[tuple[int, float]] = []
    for row, score in top:
        if score < threshold:
            break
        hits.append((row, score))
    return hits


def top_rows(table: VectorTable, query_vec: np.ndarray, n: int) -> list[tuple[int, float]]:
    """``vector_topk(table, query_vec, n)`` without a threshold and, in a sweep too, without the full ranking:
    for a caller that keeps these ``n`` rows and cuts them for every smaller count itself (``nano.naive_rows``,
    ``top_order`` being exactly the argsort's last ``n``, its first ``m`` rows are the search at ``m``)."""
    if len(table) == 0 or n <= 0 or vector_server.is_server(table):
        return vector_topk(table, query_vec, n, None)
    return list(_recent_top(table, query_vec, n))


# the last few searches' top rows (no threshold) of a vector table, by query vector and top_k, in the one
# per-index cache (kept with the table, dropped when its index closes): LightRAG's near misses
# (``lightrag.near_misses``) ask again for the very searches its pipeline has just made, without the
# threshold — half the vector work of a lightrag.* query. The top is a pure function of table and key.
RECENT_TOPS = "recall.recent_tops"
RECENT = 8  # searches kept per table
_RECENT_LOCK = threading.Lock()


def _recent_top(table: VectorTable, query_vec: np.ndarray, top_k: int) -> list[tuple[int, float]]:
    matrix = table.matrix  # a table given new vectors drops what was kept for the old ones (held weakly)
    q = np.ascontiguousarray(query_vec)
    key = (q.dtype.str, q.shape, q.tobytes(), top_k)
    recent: OrderedDict[tuple, tuple[weakref.ref, list]] = index_cache.kept(table, RECENT_TOPS, OrderedDict)
    with _RECENT_LOCK:
        found = recent.get(key)
    if found is not None and found[0]() is matrix:
        return found[1]
    v = normalise(query_vec)
    top = None if index_cache.values(table).get(SORT_AT_ONCE) else screen.screened_top(table, matrix, v, top_k)
    if top is None:  # a small table, a tie in the top, a NaN, or a BLAS whose rows the screen cannot rescore
        scores = matrix @ v
        top = [(int(row), float(scores[row])) for row in top_order(scores, top_k, table)]
    with _RECENT_LOCK:
        recent[key] = (weakref.ref(matrix), top)
        recent.move_to_end(key)
        while len(recent) > RECENT:
            recent.popitem(last=False)
    return top


class _Ranked:
    """A table's best rows for one query so far, best first (``_recent_top`` at the widest ``k`` asked): its
    first ``k`` are ``np.argsort(scores)[-k:][::-1]`` for any narrower ``k``, so a sweep's steps cut it; a
    wider ``k`` searches again."""

    def __init__(self, table: VectorTable, query_vec: np.ndarray) -> None:
        self.table, self.query_vec, self.best = table, query_vec, []

    def top(self, top_k: int) -> list[tuple[int, float]]:
        if top_k > len(self.best) and len(self.best) < len(self.table):
            self.best = _recent_top(self.table, self.query_vec, top_k)
        return self.best[:top_k]


def tied_rows(scored: Iterable[tuple[K, float]]) -> dict[K, list[K]]:
    """row (or id) -> the others of ``scored`` with exactly the same score (argsort alone ordered them)."""
    groups: dict[float, list[K]] = {}
    for row, score in scored:
        groups.setdefault(score, []).append(row)
    return {row: [r for r in rows if r != row] for rows in groups.values() if len(rows) > 1 for row in rows}


def tie_note(others: list[str]) -> str:
    """The note a ``why`` gets (``joined``) when the item's similarity equals other items' exactly; "" when none."""
    if not others:
        return ""
    return msg(
        "tied with {names} (equal similarity: the order among them is the reference's argsort order)",
        names=", ".join(others),
    )


def ilike_match(kind: str) -> Msg:
    """The reason of a catalog (ILIKE) match of ``kind`` (``catalog.KINDS``)."""
    if kind == "alias":
        return msg("ILIKE alias match")
    if kind == "name in query":
        return msg("ILIKE name in query match")
    if kind == "alias in query":
        return msg("ILIKE alias in query match")
    if kind == "name":
        return msg("ILIKE name match")
    return msg("ILIKE {kind} match", kind=kind)


def entity_label(index: Index, table: VectorTable, row: int) -> str:
    entity = index.entity_by_id.get(table.ids[row]) or index.entity_by_name.get(table.ids[row])
    return entity.name if entity is not None else table.ids[row]


def _vector_hits(index: Index, query_vec: np.ndarray, top_k: int, threshold: float | None) -> list[RecallHit]:
    table = index.vectors.get("entities")
    if table is None:
        return []
    hits = []
    scored = vector_topk(table, query_vec, top_k, threshold)
    ties = tied_rows(scored)
    for rank, (row, sim) in enumerate(scored, start=1):
        hit = vector_hit(index, table, rank, row, sim, ties.get(row, []))
        if hit is not None:  # None: a vector whose entity is not in the graph: the references skip it too
            hits.append(hit)
    return hits


def vector_hit(index: Index, table: VectorTable, rank: int, row: int, sim: float, tied: list[int]) -> RecallHit | None:
    """Row ``row``'s hit at ``rank`` (1-based) of a vector recall, ``tied`` the other rows of the list with its
    score; None when the row names no entity."""
    entity = index.entity_by_id.get(table.ids[row]) or index.entity_by_name.get(table.ids[row])
    if entity is None:
        return None
    note = tie_note([entity_label(index, table, r) for r in tied])
    return RecallHit(
        entity, sim, sim, "", joined(msg("entity #{rank} by vector, sim {sim}", rank=rank, sim=f"{sim:.3f}"), note)
    )


def _ilike_hits(index: Index, text: str, limit: int) -> list[tuple[Entity, str]]:
    from graphrag_ui.index.servers import catalog

    found = []
    for row in catalog.find_entities_by_name_or_alias(catalog.for_index(index), text, limit):
        entity = index.entity_by_id.get(row["entity_id"])
        if entity is not None:
            found.append((entity, row.get("matched", "name")))
    return found


def _occ_term(entity: Entity, w_occ: float) -> float:
    return w_occ * math.log(max(entity.occurrence, 0) + 1)


def recall_entities(
    index: Index,
    text: str,
    query_vec: np.ndarray | None,
    *,
    strategy: str,
    top_k: int,
    threshold: float | None = None,
    weights: tuple[float, float, float] = DEFAULT_WEIGHTS,
) -> list[RecallHit]:
    """Entities to start from, best first, each with the reason it was recalled."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown recall strategy {strategy!r}")
    if strategy == "vector":
        return _vector_hits(index, query_vec, top_k, threshold) if query_vec is not None else []
    w_ilike, w_sim, w_occ = weights
    merged: dict[str, RecallHit] = {}
    for entity, kind in _ilike_hits(index, text, top_k):
        score = w_ilike + _occ_term(entity, w_occ)
        why = joined(
            ilike_match(kind),
            msg(
                "{w_ilike}·1 + {w_occ}·log({occurrence}+1) = {score}",
                w_ilike=f"{w_ilike:g}",
                w_occ=f"{w_occ:g}",
                occurrence=entity.occurrence,
                score=f"{score:.3f}",
            ),
        )
        merged[entity.id] = RecallHit(entity, score, None, kind, why)
    if strategy == "hybrid" and len(merged) < top_k and query_vec is not None:
        for hit in _vector_hits(index, query_vec, top_k, threshold):
            sim = hit.sim or 0.0
            known = merged.get(hit.entity.id)
            if known is not None:  # found by both: the seed's formula adds the similarity term
                known.sim = sim
                known.score += w_sim * sim
                also = msg(
                    "also vector sim {sim} (+{w_sim}·sim) = {score}",
                    sim=f"{sim:.3f}",
                    w_sim=f"{w_sim:g}",
                    score=f"{known.score:.3f}",
                )
                known.why = joined(known.why, also)
                continue
            score = w_sim * sim + _occ_term(hit.entity, w_occ)
            why = joined(
                msg("vector sim {sim} (ILIKE found {n} < {top_k})", sim=f"{sim:.3f}", n=len(merged), top_k=top_k),
                msg(
                    "{w_sim}·sim + {w_occ}·log({occurrence}+1) = {score}",
                    w_sim=f"{w_sim:g}",
                    w_occ=f"{w_occ:g}",
                    occurrence=hit.entity.occurrence,
                    score=f"{score:.3f}",
                ),
            )
            merged[hit.entity.id] = RecallHit(hit.entity, score, sim, "", why)
    ranked = sorted(merged.values(), key=lambda h: h.score, reverse=True)[:top_k]
    for rank, hit in enumerate(ranked, start=1):
        hit.why = msg("entity #{rank} by {strategy}: {why}", rank=rank, strategy=strategy, why=hit.why)
    return ranked


@dataclass
class RecallBreakdown:
    """Seed 003 laid open: both candidate lists and the merged ranking with every score term."""

    ilike: list[dict]
    vector: list[dict]
    merged: list[dict]
    vector_ran: bool


def explain_recall(
    index: Index,
    text: str,
    query_vec: np.ndarray | None,
    *,
    top_k: int,
    threshold: float | None = None,
    weights: tuple[float, float, float] = DEFAULT_WEIGHTS,
) -> RecallBreakdown:
    """ILIKE hits, vector hits (always computed here, so the page can show what hybrid skipped)."""
    w_ilike, w_sim, w_occ = weights
    ilike = [
        {"entity": e.name, "match": kind, "occurrence": e.occurrence, "aliases": ", ".join(e.aliases)}
        for e, kind in _ilike_hits(index, text, top_k)
    ]
    vector = []
    if query_vec is not None:
        for rank, hit in enumerate(_vector_hits(index, query_vec, top_k, threshold), start=1):
            vector.append({"rank": rank, "entity": hit.entity.name, "sim": round(hit.sim or 0.0, 4)})
    merged = []
    for rank, hit in enumerate(
        recall_entities(index, text, query_vec, strategy="hybrid", top_k=top_k, threshold=threshold, weights=weights),
        start=1,
    ):
        merged.append(
            {
                "rank": rank,
                "entity": hit.entity.name,
                "ilike term": w_ilike if hit.ilike else 0.0,
                "sim term": round(w_sim * (hit.sim or 0.0), 4),
                "occurrence term": round(_occ_term(hit.entity, w_occ), 4),
                "score": round(hit.score, 4),
                "match": hit.ilike or "vector",
            }
        )
    return RecallBreakdown(ilike, vector, merged, vector_ran=len(ilike) < top_k)


def recall_params(recall_help: str) -> tuple:
    """The recall strategy (``recall_help``: its help, "Entity recall: …") and its seed-003 weights, as
    every entity-starting mode exposes them."""
    from graphrag_ui.retrieval.spec.schema import ParamSpec

    w_ilike, w_sim, w_occ = DEFAULT_WEIGHTS
    return (
        ParamSpec("recall", "choice", "vector", recall_help, choices=STRATEGIES),
        ParamSpec(
            "w_ilike", "float", w_ilike, msg("Hybrid/ILIKE score weight of a name or alias match."), 0.0, 5.0, 0.1
        ),
        ParamSpec("w_sim", "float", w_sim, msg("Hybrid score weight of the vector similarity."), 0.0, 5.0, 0.1),
        ParamSpec("w_occ", "float", w_occ, msg("Hybrid score weight of log(occurrence + 1)."), 0.0, 5.0, 0.1),
    )
