"""ms.local's Entities candidates: the entity search's hits, merged with the Entities table's rows.

``search_entities`` maps the question to entities (GraphRAG's ``map_query_to_entities``); the local context
cuts the Entities table at the first entity that does not fit (``mixed_context.build_local``, its dropped rows
a ``ColumnTail`` of rows). ``entity_candidates`` then makes a candidate per hit up to that entity and leaves the rest —
each not loaded at the level or over the budget — as a tail made on read: at a wide
``top_k_mapped_entities`` most of the 2 × k hits a sweep step finds are dropped.
"""

from __future__ import annotations

import itertools
from typing import Any

from graphrag_ui.base.i18n import lmsg, msg
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import Candidates, ColumnTail, runs
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.recall import recall_entities
from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.retrieval.ms.indexer_adapters import EntityView, LevelView
from graphrag_ui.retrieval.ms.local_search.rows import Row, Section, Selected, merge_rows
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
        found = reuse.prefixed(name, id(index), key, lambda: HitList(_vector_found(lv, hits)), HitList.first)
        if isinstance(found, HitList):
            return found.selected(index), found
    else:
        qvec = deps.vector(query) if strategy == "hybrid" and table is not None and len(table) else None
        weights = (params.w_ilike, params.w_sim, params.w_occ)
        for hit in recall_entities(index, query, qvec, strategy=strategy, top_k=2 * k, weights=weights):
            found.append((lv.entities.get(hit.entity.id), hit.entity.id, hit.why, hit.score))
    return [view for view, *_ in found if view is not None], found


class HitList(list):
    """A sweep's hits (``Found``) at its widest step; a narrower step's are its ``first`` ones, sharing the widest
    step's columns (``Columns``, made once) and ``made``: per hit position and row tokens, the candidate of a hit
    the Entities table kept (the same at every step that keeps it: the hit and its table row are), which a step
    copies instead of making it again (``entity_candidates``)."""

    def __init__(self, items: list[Found], root: HitList | None = None) -> None:
        super().__init__(items)
        self.root = self if root is None else root
        self.made: dict[tuple[int, int], Candidate] = {} if root is None else root.made
        self._columns: Columns | None = None

    def first(self, n: int) -> HitList:
        return HitList(self[:n], self.root)

    def columns(self, index: Index) -> Columns:
        root = self.root
        if root._columns is None:
            root._columns = Columns(index, root)
        return root._columns

    def selected(self, index: Index) -> Selected:
        """The loaded hits' views, ids and names: the widest step's first ones."""
        cols = self.columns(index)
        m = cols.upto[len(self)]
        return Selected(cols.views[:m], cols.ids[:m], cols.names[:m])


class Columns:
    """The widest step's hits as columns: the loaded ones' positions, views, ids and names, how many of the first
    ``n`` hits are loaded (``upto``), how many first loaded ones repeat no id (``unique``), and the hits'
    dropped reasons past a table's cut (``reasons``; None: a loaded hit, over the Entities budget)."""

    def __init__(self, index: Index, found: list[Found]) -> None:
        self.positions = [i for i, (view, *_) in enumerate(found) if view is not None]
        self.views = [found[i][0] for i in self.positions]
        self.ids = tuple(found[i][1] for i in self.positions)
        self.names = tuple(v.entity.name for v in self.views)
        self.upto = list(itertools.accumulate((view is not None for view, *_ in found), initial=0))
        seen: set[str] = set()
        self.unique = len(self.ids)
        for j, eid in enumerate(self.ids):
            if eid in seen:
                self.unique = j
                break
            seen.add(eid)
        known = index.entity_by_id
        self.reasons = [None if f[0] is not None else _UNLOADED if f[1] in known else _UNKNOWN for f in found]


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


def entity_candidates(
    index: Index, lv: LevelView, found: list[Found], table: Section, summary: dict | None = None
) -> list[Candidate]:
    """A candidate per hit in ``found`` order, the selected ones with their Entities ``table`` row; the hits
    from the first selected entity the table left out are a tail made on read (``table.tail``'s rows).
    ``summary``: a sweep's summary step (``reuse.summaries``), a kept hit one ``reuse.SummaryRow`` per entity
    and sweep (held there; an entity hit twice merges its rows as a whole run does)."""
    cols = found.columns(index) if isinstance(found, HitList) else None  # a sweep's widest hits as columns
    made = found.made if isinstance(found, HitList) else None  # and its kept candidates

    def candidate(i: int, row: Row | None) -> Candidate:
        view, eid, why, score = found[i]
        if view is None:
            return _not_loaded(index, lv, eid, i, why, score)
        if summary is not None and row is not None and row.in_context:
            return reuse.summary_row(summary, eid, lambda: view.entity.name)
        if made is not None and row is not None and row.in_context:
            kept = made.get((i, row.tokens))
            if kept is not None:
                return reuse.copied(kept)
        cand = _entity_candidate(view, i, why, score)
        if row is not None:  # its row data names its short id already
            cand.in_context, cand.dropped, cand.tokens = row.in_context, row.dropped, row.tokens
            if made is not None and row.in_context and not row.dropped:
                made[(i, row.tokens)] = reuse.copied(cand)
        return cand

    if cols is not None:
        m = cols.upto[len(found)]
        positions, twice = cols.positions[:m], cols.unique < m
    else:
        positions = [i for i, (view, *_) in enumerate(found) if view is not None]  # the selected ones' hits
        ids = [found[i][1] for i in positions]
        twice = len(set(ids)) != len(ids)
    tail = table.tail
    if twice:  # an entity hit twice: the rows merge by id, as a list would
        cands = [candidate(i, None) for i in range(len(found))]
        rows = table.rows + ([tail.row(j) for j in range(len(tail))] if tail is not None else [])
        merge_rows(cands, Section("", 0, 0, rows))
        return cands
    by_hit = dict(zip(positions, table.rows, strict=False))
    if tail is None:  # every selected entity has its row
        return [candidate(i, by_hit.get(i)) for i in range(len(found))]
    start = positions[len(table.rows)]  # the first hit the table left out
    head = [candidate(i, by_hit.get(i)) for i in range(start)]
    in_tail: dict[int, int] = {}  # hit -> the table's tail row, listed on the first read

    def make(i: int) -> Candidate:
        if not in_tail:
            in_tail.update((hit, j) for j, hit in enumerate(positions[len(table.rows) :]))
        j = in_tail.get(start + i)
        return candidate(start + i, None if j is None else tail.row(j))

    over = tail.runs[0][0]
    if cols is not None:
        reasons = [over if r is None else r for r in cols.reasons[start : len(found)]]
    else:
        known = index.entity_by_id
        reasons = [over if f[0] is not None else _UNLOADED if f[1] in known else _UNKNOWN for f in found[start:]]
    rest = found[start:]

    def labels() -> list[str]:  # each tail row's label, as ``_entity_candidate`` and ``_not_loaded`` give it
        known = index.entity_by_id
        return [f[0].entity.name if f[0] is not None else known[f[1]].name if f[1] in known else f[1] for f in rest]

    return Candidates(head, ColumnTail(len(rest), lambda: [f[1] for f in rest], make, runs(reasons), labels))
