"""``nano.local``'s candidates before any token cut: what each section could hold, in nano's order, why.

Split from the cut (``local_query``) because nothing here reads a budget: a sweep over a budget gathers
once and cuts at every step (``reuse.once``, keyed by the recalled entities and the level), and a single
query runs the two back to back. Each gather returns its rows, their token costs and reasons, and the
warnings it found; the caller appends those warnings to the retrieval it builds. ``nodes`` is the Entities
section, which no budget cuts: the recalled entities as candidates with their degrees and running tokens.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphrag_ui.base.i18n import Reason, lmsg, msg
from graphrag_ui.index.model import Community, Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.recall import RecallHit
from graphrag_ui.retrieval.core.result import Candidate


@dataclass
class Gathered:
    rows: list[Any]  # per section: (key, item, ...) in nano's order
    costs: list[int]  # tokens each row costs in its section
    whys: Sequence[Any]  # why each row is a candidate (reports: made when read)
    warnings: list[str] = field(default_factory=list)
    extra: list[Any] = field(default_factory=list)  # communities: the ones above the level (cid, level, n)
    via: list[int] = field(default_factory=list)  # units: the recalled entity that brought each row
    warned_by: list[int] = field(default_factory=list)  # units: the entity each warning is about
    # what steps cutting this gather made of it (units: its running totals, its kept rows as candidates' fields);
    # a gather narrowed from another names it (``made["from"]``): its rows are that one's first ones
    made: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def narrowed(got: Gathered, k: int) -> Gathered:
    """The gather of the first ``k`` recalled entities, from the gather of more of them (units; relations: ``Edges.narrowed``).

    A row's entity is the first one (in recall order) that brings it, and nothing about the row depends on
    later entities (a chunk's support counts its own entity's neighbours; an edge's degree is the graph's);
    the sort is stable on keys that do not depend on them either, so the first ``k``'s rows are exactly the
    rows brought by one of them, in the same order, with the same costs and reasons. The rows are sorted by
    their entity first and the warnings met in entity order: those of the first ``k`` are a prefix."""
    m, w = bisect.bisect_left(got.via, k), bisect.bisect_left(got.warned_by, k)
    out = Gathered(
        got.rows[:m],
        got.costs[:m],
        got.whys[:m],
        got.warnings[:w],
        via=got.via[:m],
        warned_by=got.warned_by[:w],
    )
    out.made["from"] = got.made.get("from", got)
    return out


def nodes(index: Index, prep, hits: list[RecallHit], summary: bool) -> tuple[list[Candidate], list[int], list[int]]:
    """Each hit as an entity in the context, its degree and the running total of their tokens: a function of the
    hit alone (its place in the recall), so a sweep's steps that recall it share it (``nano.recall.Ranked``
    keeps the same hit object); a whole step reads copies. A summary step's hits are the first ones of the
    widest step's (``Ranked.hits`` unnoted): its columns are the first ones of that step's, its entities
    ``reuse.SummaryRow``s (no reason, no row data). ``local_query``'s Entities, before the token cuts: nothing
    here reads a budget."""
    if summary:
        widest = reuse.once(("nano.local summary nodes", id(index)), dict)
        held = widest.get("hits")
        n = len(hits)
        if held is not None and len(held) >= n and held[:n] == hits:
            cands, degrees, running = widest["columns"]
            return cands[:n], degrees[:n], running[:n]
        known = prep.degrees()
        degrees = [known.get(hit.entity.name, 0) for hit in hits]
        rows = [reuse.SummaryRow(hit.entity.id, hit.entity.name) for hit in hits]
        columns = rows, degrees, list(itertools.accumulate(prep.entity_tokens(hit.entity) for hit in hits))
        if held is None or n > len(held):
            widest["hits"], widest["columns"] = list(hits), columns
        return columns
    return _node_columns(index, prep, hits)


def _node_columns(index: Index, prep, hits: list[RecallHit]) -> tuple[list[Candidate], list[int], list[int]]:
    made = reuse.once(("nano.local nodes", id(index)), dict)
    degrees = prep.degrees()  # the graph's degree of each node, one dict read instead of a degree view
    out = []
    for pos, hit in enumerate(hits):
        found = made.get(id(hit))
        if found is None or found[0] is not hit or found[1].order != pos:
            e = hit.entity
            degree = degrees.get(e.name, 0)
            why = hit.why
            if hit.sim is not None and f"sim {hit.sim:.3f}" not in why:
                why = msg("{why}, sim {sim}", why=why, sim=f"{hit.sim:.3f}")
            cand = Candidate(
                id=e.id,
                label=e.name,
                data={"name": e.name, "type": e.type, "description": e.description, "communities": e.communities},
                order=pos,
                why=msg("{why}, degree {degree}", why=why, degree=degree),
                score=hit.sim if hit.sim is not None else hit.score,
                rank=float(degree),
                tokens=prep.entity_tokens(e),
            )
            found = made[id(hit)] = (hit, cand, degree)
        out.append((found[1], found[2]))
    cands = [cand for cand, _ in out]
    return cands, [degree for _, degree in out], list(itertools.accumulate(cand.tokens for cand in cands))


def reports(index: Index, prep, hits: list[RecallHit], level: int) -> Gathered:
    """Clusters of the recalled entities at level <= ``level``, sorted by (count, rating) descending (a sweep's
    top_k steps cut one ``ReportPlan`` instead)."""
    keys: list[str] = []
    too_deep: dict[str, int] = {}
    deep_counts: Counter[str] = Counter()
    for hit in hits:
        for lvl, cid in hit.entity.communities:
            if lvl <= level:
                keys.append(cid)
            else:
                too_deep.setdefault(cid, lvl)
                deep_counts[cid] += 1
    counts = Counter(keys)
    found: dict[str, Community] = {}
    warnings = []
    for cid in counts:
        community = index.community_by_id.get(cid)
        if community is None:
            warnings.append(_no_report(cid))
        else:
            found[cid] = community
    ordered = sorted(found, key=lambda c: (counts[c], prep.rating(found[c])), reverse=True)
    rows = [(cid, found[cid]) for cid in ordered]
    whys = _ReportWhys(rows, [counts[c] for c in ordered], prep)
    deep = [(cid, lvl, deep_counts[cid]) for cid, lvl in too_deep.items() if cid not in counts]
    costs = [prep.report_tokens(found[c]) for c in ordered]
    return Gathered(rows, costs, whys, warnings, deep)


class ReportPlan:
    """What ``reports`` reads of some recalled entities, read once: a sweep's top_k steps gather the reports of
    the first ``k`` of them (``gather(k)``) without walking the entities' clusters, the index's lookups and each
    report's rating and tokens again at every step.

    The clusters at level <= ``level`` are counted in recall order, so the first ``k`` entities' are a prefix of
    the keys (``pos`` says where each key came from), as are the deeper ones. A step counts its prefix per
    cluster and sorts by (count, rating) descending, first seen first on ties (``sorted(..., reverse=True)`` is
    stable): one ``lexsort`` over columns; a rating that is NaN (no order) sorts as ``sorted`` does."""

    def __init__(self, index: Index, prep, hits: list[RecallHit], level: int) -> None:
        self.prep = prep
        self.pos: list[int] = []  # each key's recalled entity
        keys: list[str] = []  # the clusters at level <= ``level``, entity by entity
        self.deep: list[tuple[str, int]] = []  # the deeper ones (cluster, level), entity by entity
        self.deep_pos: list[int] = []
        for p, hit in enumerate(hits):
            for lvl, cid in hit.entity.communities:
                if lvl <= level:
                    self.pos.append(p)
                    keys.append(cid)
                else:
                    self.deep.append((cid, lvl))
                    self.deep_pos.append(p)
        self.number = {cid: i for i, cid in enumerate(dict.fromkeys(keys))}  # clusters by first sight
        self.key_no = np.array([self.number[cid] for cid in keys], dtype=np.int64)
        found = [index.community_by_id.get(cid) for cid in self.number]
        self.rows = [(cid, c) for cid, c in zip(self.number, found, strict=True)]
        self.stored = np.array([c is not None for c in found], dtype=bool)
        self.rating = np.array([prep.rating(c) if c is not None else 0.0 for c in found], dtype=np.float64)
        self.tokens = np.array([prep.report_tokens(c) if c is not None else 0 for c in found], dtype=np.int64)
        self.exact = not np.isnan(self.rating).any()

    def gather(self, k: int) -> Gathered:
        """``reports`` of the first ``k`` entities."""
        counts = np.bincount(self.key_no[: bisect.bisect_left(self.pos, k)], minlength=len(self.rows))
        seen = counts > 0
        warnings = [_no_report(self.rows[i][0]) for i in np.flatnonzero(seen & ~self.stored).tolist()]
        here = np.flatnonzero(seen & self.stored)
        if self.exact:
            order = here[np.lexsort((here, -self.rating[here], -counts[here]))].tolist()
        else:  # NaN compares false both ways: only ``sorted`` itself gives ``sorted``'s order
            order = sorted(here.tolist(), key=lambda i: (int(counts[i]), float(self.rating[i])), reverse=True)
        number = self.number
        too_deep: dict[str, int] = {}
        deep_counts: Counter[str] = Counter()
        for cid, lvl in self.deep[: bisect.bisect_left(self.deep_pos, k)]:
            too_deep.setdefault(cid, lvl)
            deep_counts[cid] += 1
        deep = [
            (cid, lvl, deep_counts[cid]) for cid, lvl in too_deep.items() if not (cid in number and seen[number[cid]])
        ]
        rows = [self.rows[i] for i in order]
        whys = _ReportWhys(rows, counts[order].tolist(), self.prep)
        return Gathered(rows, self.tokens[order].tolist(), whys, warnings, deep)


def _no_report(cid: str) -> str:
    return msg("cluster {cid} has no community report: skipped (nano-graphrag 0.0.8.2 raises KeyError)", cid=cid)


class _ReportWhys(Sequence):
    """Each report row's reason, made when read: a step of a top_k sweep gathers 10² clusters and shows a few."""

    def __init__(self, rows: list[tuple[str, Community]], counts: list[int], prep) -> None:
        self.rows, self.counts, self.prep = rows, counts, prep  # counts: of each row's cluster

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        community = self.rows[i][1]
        return lmsg(
            "{n} of the recalled entities are in it, rating {rating}, level {level}",
            n=self.counts[i],
            rating=f"{self.prep.rating(community):g}",
            level=community.level,
        )


def units(index: Index, prep, hits: list[RecallHit]) -> Gathered:
    """The entities' source chunks, first entity wins, sorted by (entity order, -supporting relations)."""
    found: dict[str, tuple[int, int]] = {}
    for order, hit in enumerate(hits):
        support = None
        for cid in hit.entity.source_chunk_ids:
            if cid not in found:
                if support is None:  # how many one-hop neighbours cite each of its chunks, kept per entity
                    support = prep.chunk_support(hit.entity)
                found[cid] = (order, support[cid])
    rows = []
    warnings, warned_by = [], []
    for cid, (order, support) in found.items():
        chunk = index.chunk_by_id.get(cid)
        if chunk is None:
            name = hits[order].entity.name
            warnings.append(msg("chunk {cid} cited by {name} is not stored: skipped", cid=cid, name=name))
            warned_by.append(order)
            continue
        rows.append((order, -support, cid, chunk))
    rows.sort(key=lambda u: (u[0], u[1]))
    whys = [
        lmsg(
            "source of entity #{n} {name}, {count} supporting relations",
            n=order + 1,
            name=hits[order].entity.name,
            count=-neg_support,
        )
        for order, neg_support, _cid, _chunk in rows
    ]
    costs = [prep.chunk_tokens(u[3]) for u in rows]
    return Gathered(rows, costs, whys, warnings, via=[u[0] for u in rows], warned_by=warned_by)


@dataclass
class Edges:
    """The relations gather as columns, in nano's order: per row the edge's number in ``table`` (the prep's
    ``edge_table``), edge degree, weight, description tokens and the recalled entity that brought it."""

    table: list[Any]  # (sorted pair, edge degree, weight, relation) by edge number (``NanoPrep.edge_table``)
    nos: np.ndarray
    rank: np.ndarray
    weight: np.ndarray
    costs: np.ndarray
    via: np.ndarray
    names: list[str]  # the recalled entities' names, in recall order
    # what steps cutting this gather made of it (its running totals, its first rows as candidates, row tuples
    # and CSV lines): a sweep's budget steps cut one gather, each further than the last or not as far
    made: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.nos)

    def row(self, i: int) -> tuple:
        """(edge degree, weight, a, b, relation, via) of row ``i``: the stored values, not the columns' copies."""
        (a, b), rank, weight, rel = self.table[self.nos[i]]
        return rank, weight, a, b, rel, int(self.via[i])

    @property
    def rows(self) -> list[tuple]:
        return [self.row(i) for i in range(len(self))]

    def why_of(self, row: tuple) -> Reason:
        """The reason of a row (``row(i)``)."""
        rank, weight, _a, _b, _rel, via = row
        return lmsg(
            "edge degree {degree}, weight {weight}, touches entity #{n} {name}",
            degree=rank,
            weight=float(weight),
            n=via + 1,
            name=self.names[via],
        )

    def narrowed(self, k: int) -> Edges:
        """The gather of the first ``k`` recalled entities (see ``narrowed``: the same argument holds). It knows
        the gather it was cut from and which rows of it are its own (``made["from"]``): a row is the same there,
        its place aside, so what a step made of one is shared (``relation_tail.rooted``)."""
        keep = self.via < k
        out = Edges(
            self.table,
            self.nos[keep],
            self.rank[keep],
            self.weight[keep],
            self.costs[keep],
            self.via[keep],
            self.names[:k],
        )
        rows = np.flatnonzero(keep)
        origin = self.made.get("from")
        out.made["from"] = (origin[0], origin[1][rows]) if origin is not None else (self, rows)
        return out


def relations(index: Index, prep, hits: list[RecallHit]) -> Edges:
    """Every edge touching a recalled entity as a sorted pair, by (edge degree, weight) descending: the first
    entity (in recall order) that has an edge brings it; ties keep that insertion order (entity order, then
    ``graph.edges(name)`` order). Sorted as columns: nano at 100k entities gathers ~10⁵ edges per question."""
    columns = [prep.edge_columns(hit.entity.name) for hit in hits]
    names = [hit.entity.name for hit in hits]
    if not columns:
        empty = np.zeros(0, dtype=np.int64)
        return Edges(prep.edge_table, empty, empty, np.zeros(0), empty, empty, names)
    nos, rank, weight, costs = (np.concatenate([c[f] for c in columns]) for f in range(4))
    via = np.repeat(np.arange(len(columns), dtype=np.int64), [len(c.nos) for c in columns])
    _, first = np.unique(nos, return_index=True)  # each edge's first row: the first entity that has it
    first.sort()  # back in insertion order
    pick = first[np.lexsort((-weight[first], -rank[first]))]  # stable: ties keep insertion order, as list.sort
    return Edges(prep.edge_table, nos[pick], rank[pick], weight[pick], costs[pick], via[pick], names)
