"""ms.local's Entities candidates: the entity search's hits, merged with the Entities table's rows.

``search_entities`` maps the question to entities (GraphRAG's ``map_query_to_entities``); the local context
cuts the Entities table at the first entity that does not fit (``mixed_context.build_local``, its dropped rows
a ``RowTail``). ``entity_candidates`` then makes a candidate per hit up to that entity and leaves the rest —
each not loaded at the level or over the budget — as a tail made on read: at a wide
``top_k_mapped_entities`` most of the 2 × k hits a sweep step finds are dropped.
"""

from __future__ import annotations

from typing import Any

from graphrag_ui.base.i18n import lmsg, msg
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import Candidates, ColumnTail, runs
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.recall import recall_entities
from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.retrieval.ms.indexer_adapters import EntityView, LevelView
from graphrag_ui.retrieval.ms.local_search.rows import Row, Section, merge_rows
from graphrag_ui.retrieval.ms.vector_search import VectorHit, lance_knn, negative_scores
from graphrag_ui.retrieval.spec.schema import Params

Found = tuple[EntityView | None, str, Any, float | None]  # view at the level (None: not loaded), id, why, score


def search_entities(
    index: Index, lv: LevelView, query: str, params: Params, deps: Deps, out: Retrieval
) -> tuple[list[EntityView], list[Found]]:
    """``map_query_to_entities``: the k-NN hits (or ILIKE/hybrid recall) that GraphRAG has loaded, and every
    hit found (``entity_candidates`` makes their candidates once the Entities table is cut)."""
    k = params.top_k_mapped_entities
    strategy = params.recall
    if query == "":  # GraphRAG: the top-k entities by rank (degree), ties in its id-sorted list order
        chosen = sorted(lv.by_id_order, key=lambda v: v.rank or 0, reverse=True)[:k]
        return chosen, [
            (v, v.entity.id, msg("empty query: top {k} entities by degree ({degree})", k=k, degree=v.rank), None)
            for v in chosen
        ]
    table = index.vectors.get("entities")
    found: list[Found] = []
    if strategy == "vector":
        if table is None or not len(table):
            out.warnings.append(msg("the index has no entity vectors: the entity search found nothing"))
            return [], []
        kernel = index.manifest.settings.get("lance_kernel", "flat")
        hits = lance_knn(table, deps.vector(query), 2 * k, kernel)
        out.warnings += negative_scores(hits)
        # in a sweep once per hits: a narrower step's hits are the first of a wider one's (``lance_knn``)
        key = tuple((hit.id, hit.distance) for hit in hits)
        name = f"ms.local hits at level {lv.level}"
        found = reuse.prefixed(name, id(index), key, lambda: _vector_found(lv, hits), lambda wider, n: wider[:n])
    else:
        qvec = deps.vector(query) if strategy == "hybrid" and table is not None and len(table) else None
        weights = (params.w_ilike, params.w_sim, params.w_occ)
        for hit in recall_entities(index, query, qvec, strategy=strategy, top_k=2 * k, weights=weights):
            found.append((lv.entities.get(hit.entity.id), hit.entity.id, hit.why, hit.score))
    return [view for view, *_ in found if view is not None], found


def _vector_found(lv: LevelView, hits: list[VectorHit]) -> list[Found]:
    """(view at the level — None: not loaded —, id, why, score) per hit, in hit order."""
    return [
        (
            lv.entities.get(hit.id),
            hit.id,
            lmsg(
                "entity #{n} by vector (LanceDB L2 {distance}), score {score}",
                n=pos,
                distance=f"{hit.distance:.4f}",
                score=f"{hit.score:.3f}",
            ),
            hit.score,
        )
        for pos, hit in enumerate(hits, start=1)
    ]


def _entity_candidate(view: EntityView, order: int, why: Any, score: float | None) -> Candidate:
    e = view.entity
    return Candidate(
        id=e.id,
        label=e.name,
        order=order,
        why=why,
        score=score,
        rank=None if view.rank is None else float(view.rank),
        data={
            "name": e.name,
            "type": e.type,
            "description": e.description,
            "short_id": view.short_id,
            "degree": view.rank,
            "communities": view.community_ids,
        },
    )


def _not_loaded(index: Index, lv: LevelView, eid: str, order: int, why: Any, score: float | None) -> Candidate:
    entity = index.entity_by_id.get(eid)
    return Candidate(
        id=eid,
        label=entity.name if entity else eid,
        data={"name": entity.name if entity else ""},
        order=order,
        why=why,
        score=score,
        in_context=False,
        dropped=_unloaded(lv.level) if entity else _unknown(),
    )


def _unloaded(level: int) -> Any:
    return msg(
        "not loaded at community_level {level} (in no community of level ≤ {level}): GraphRAG skips it", level=level
    )


def _unknown() -> Any:
    return msg("vector id names no entity: GraphRAG skips it")


_UNLOADED, _UNKNOWN = _unloaded(0).template, _unknown().template  # what ``binding`` counts a tail's rows by


def entity_candidates(index: Index, lv: LevelView, found: list[Found], table: Section) -> list[Candidate]:
    """A candidate per hit in ``found`` order, the selected ones with their Entities ``table`` row; the hits
    from the first selected entity the table left out are a tail made on read (``table.tail``'s rows)."""
    positions = [i for i, (view, *_) in enumerate(found) if view is not None]  # the selected ones' hits

    def candidate(i: int, row: Row | None) -> Candidate:
        view, eid, why, score = found[i]
        if view is None:
            return _not_loaded(index, lv, eid, i, why, score)
        cand = _entity_candidate(view, i, why, score)
        if row is not None:  # its row data names its short id already
            cand.in_context, cand.dropped, cand.tokens = row.in_context, row.dropped, row.tokens
        return cand

    ids = [found[i][1] for i in positions]
    tail = table.tail
    if tail is None or len(set(ids)) != len(ids):  # an entity hit twice: the rows merge by id, as a list would
        cands = [candidate(i, None) for i in range(len(found))]
        rows = table.rows + ([tail.make(j) for j in range(len(tail))] if tail is not None else [])
        merge_rows(cands, Section("", 0, 0, rows))
        return cands
    by_hit = dict(zip(positions, table.rows, strict=False))
    start = positions[len(table.rows)]  # the first hit the table left out
    head = [candidate(i, by_hit.get(i)) for i in range(start)]
    in_tail = {hit: j for j, hit in enumerate(positions[len(table.rows) :])}  # hit -> the table's tail row

    def make(i: int) -> Candidate:
        j = in_tail.get(start + i)
        return candidate(start + i, None if j is None else tail.make(j))

    def reason(f: Found) -> Any:
        return tail.runs[0][0] if f[0] is not None else _UNLOADED if f[1] in index.entity_by_id else _UNKNOWN

    rest = found[start:]
    return Candidates(head, ColumnTail(len(rest), lambda: [f[1] for f in rest], make, runs(map(reason, rest))))
