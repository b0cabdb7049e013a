"""Entity recall for ``nano.local``: the hits, plus the near misses as dropped candidates.

``recall=vector`` is nano-graphrag's entity search (nano-vectordb: top_k by cosine, stop at the
first score below ``query_better_than_threshold``); ``ilike`` and ``hybrid`` are seed 003's
strategies from ``graphrag_ui.retrieval.core.recall``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphrag_ui.base.i18n import joined, lmsg, msg
from graphrag_ui.index.model import Index
from graphrag_ui.index.servers import vector_server
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.recall import RecallHit, entity_label, recall_entities, tie_note, top_rows
from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.retrieval.nano.prep import prepared
from graphrag_ui.retrieval.spec.schema import Params

EXPLAIN_BEYOND = 5  # how many entities past top_k to show as dropped candidates


def recall(index: Index, query: str, params: Params, deps: Deps, out: Retrieval) -> list[RecallHit]:
    strategy = params.recall
    top_k, threshold = params.top_k, params.query_better_than_threshold
    table = index.vectors.get("entities")
    qvec = deps.vector(query) if strategy != "ilike" and table is not None and len(table) else None
    if strategy != "ilike" and qvec is None:
        out.warnings.append(msg("the index has no entity vectors: vector recall found nothing"))
    if strategy == "vector":
        return _vector_recall(index, qvec, top_k, threshold, out) if qvec is not None else []
    weights = (params.w_ilike, params.w_sim, params.w_occ)
    return recall_entities(index, query, qvec, strategy=strategy, top_k=top_k, threshold=threshold, weights=weights)


def _vector_recall(index: Index, qvec, top_k: int, threshold: float, out: Retrieval) -> list[RecallHit]:
    """recall_entities(strategy="vector") plus the near misses, from ONE search.

    The search's first ``top_k + EXPLAIN_BEYOND`` rows (no threshold), cut at the first score below the
    threshold within ``top_k``, are exactly nano-vectordb's hits; the rest are listed as dropped candidates
    with the reason. A row's hit and reasons depend on its place alone, and on which rows tie with it inside
    that list: a sweep's steps share the rows of its widest search and each such hit (``Ranked``).
    """
    table = index.vectors["entities"]
    got = _ranked(index, table, qvec, top_k + EXPLAIN_BEYOND)
    width = max(0, min(len(got.rows), top_k + EXPLAIN_BEYOND))
    head = max(0, min(top_k, width))
    stop = min(got.first_below(threshold), head)
    for pos in got.missing:  # a vector row naming no entity: said, skipped
        if pos >= stop:
            break
        row = got.rows[pos]
        out.warnings.append(
            msg("vector row {row} ({id}) names no entity in the graph: skipped", row=row, id=table.ids[row])
        )
    explained = not reuse.summary_only()  # a summary step reads what, not why (below)
    hits = got.hits(bisect.bisect_left(got.present, stop), stop, width, explained)
    degrees = prepared(index).degrees() if stop < width else {}
    for pos in range(stop, width):
        entity = got.entities[pos]
        if entity is None:
            continue
        sim = got.sim_list[pos]
        if pos >= top_k:
            reason = lmsg("beyond top_k ({rank} > {top_k})", rank=pos + 1, top_k=top_k)
        elif sim < threshold:
            reason = lmsg("below threshold (sim {sim} < {threshold})", sim=f"{sim:.3f}", threshold=f"{threshold:g}")
        else:
            reason = lmsg("after the first score below threshold (nano-vectordb stops there)")
        out.entities.append(
            Candidate(
                id=entity.id,
                label=entity.name,
                data={"name": entity.name, "type": entity.type, "description": entity.description},
                order=len(out.entities),
                why=joined(
                    lmsg("vector candidate #{rank}, sim {sim}", rank=pos + 1, sim=f"{sim:.3f}"), got.note(pos, width)
                )
                if explained
                else "",
                score=sim,
                rank=float(degrees.get(entity.name, 0)),
                in_context=False,
                dropped=reason,
            )
        )
    return hits


@dataclass
class Ranked:
    """The entity search's first rows, best first, with each row's entity and label, its ties, its hits."""

    index: Index
    table: Any
    rows: list[int]
    sim_list: list[float]
    sims: np.ndarray
    entities: list[Any]  # None: a vector row naming no entity
    complete: bool  # the table has no more rows than these
    groups: dict[float, list[int]] = field(default_factory=dict)  # a score several rows share -> their positions
    made: dict[tuple, Any] = field(default_factory=dict)  # (pos, tied rows in the list) -> note, hit
    present: list[int] = field(default_factory=list)  # positions whose row names an entity
    missing: list[int] = field(default_factory=list)  # the others
    whole: list[Any] = field(default_factory=list)  # the hit at each present position, its whole tie group listed

    def first_below(self, threshold: float) -> int:
        """The first row whose score is below ``threshold`` (or the row count), once per threshold: a step's
        search stops there or at its top_k."""
        key = ("below", threshold)
        found = self.made.get(key)
        if found is None:
            below = np.flatnonzero(self.sims < threshold)
            found = self.made[key] = int(below[0]) if below.size else len(self.sims)
        return found

    def hits(self, n: int, stop: int, width: int, noted: bool = True) -> list[RecallHit]:
        """The hits of a list of the first ``width`` rows stopped at ``stop`` (its first ``n`` present rows): each
        row's hit with all of its ties noted, but for a tie group the list's edge cuts (its own note). Not
        ``noted`` (a sweep's summary step, which reads each hit's entity, not its reason): every tie noted."""
        for j in range(len(self.whole), n):
            self.whole.append(self.hit(self.present[j], len(self.rows), j))
        out = self.whole[:n]
        if not noted:
            return out
        for group in self.groups.values():
            if group[-1] >= width and group[0] < stop:
                for pos in group:
                    if pos < stop and self.entities[pos] is not None:
                        j = bisect.bisect_left(self.present, pos)
                        out[j] = self.hit(pos, width, j)
        return out

    def tied(self, pos: int, width: int) -> int:
        """How many rows of the first ``width`` share row ``pos``'s score (0: none, or only itself)."""
        group = self.groups.get(self.sim_list[pos])
        return bisect.bisect_left(group, width) if group else 0

    def note(self, pos: int, width: int) -> str:
        """``tie_note`` of row ``pos`` in a list of the first ``width`` rows (``tied_rows`` over that list)."""
        tied = self.tied(pos, width)
        if tied < 2:
            return ""
        key = ("note", pos, tied)
        found = self.made.get(key)
        if found is None:
            others = [q for q in self.groups[self.sim_list[pos]][:tied] if q != pos]
            found = self.made[key] = tie_note([entity_label(self.index, self.table, self.rows[q]) for q in others])
        return found

    def hit(self, pos: int, width: int, before: int) -> RecallHit:
        """Row ``pos`` as the hit after ``before`` others (the stored rows before it: the same at every step)."""
        key = ("hit", pos, self.tied(pos, width))
        found = self.made.get(key)
        if found is None:
            sim = self.sim_list[pos]
            why = joined(
                msg("entity #{rank} by vector, sim {sim}", rank=before + 1, sim=f"{sim:.3f}"), self.note(pos, width)
            )
            found = self.made[key] = RecallHit(self.entities[pos], sim, sim, "", why)
        return found


def _ranked(index: Index, table: Any, qvec: np.ndarray, n: int) -> Ranked:
    """The first ``n`` rows of the search; inside a sweep one gather serves every ``n`` it covers (the first
    rows of a wider exact search are the narrower search, ``recall.top_rows``; a server's search is its own)."""
    exact = not vector_server.is_server(table)
    holder = reuse.kept("nano.local ranked", table, qvec, dict, id(index), *(() if exact else (n,)))
    found = holder.get("rows")
    if found is None or (len(found.rows) < n and not found.complete):
        found = holder["rows"] = _gather(index, table, qvec, n)
    return found


def _gather(index: Index, table: Any, qvec: np.ndarray, n: int) -> Ranked:
    scored = top_rows(table, qvec, n)
    rows = [row for row, _ in scored]
    sim_list = [sim for _, sim in scored]
    entities = [index.entity_by_id.get(table.ids[r]) or index.entity_by_name.get(table.ids[r]) for r in rows]
    got = Ranked(index, table, rows, sim_list, np.asarray(sim_list, dtype=np.float64), entities, len(scored) < n)
    by_score: dict[float, list[int]] = {}
    for pos, sim in enumerate(sim_list):
        by_score.setdefault(sim, []).append(pos)
    got.groups = {sim: group for sim, group in by_score.items() if len(group) > 1}
    got.present = [pos for pos, entity in enumerate(entities) if entity is not None]
    got.missing = [pos for pos, entity in enumerate(entities) if entity is None]
    return got
