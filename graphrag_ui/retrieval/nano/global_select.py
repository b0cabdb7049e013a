"""``nano.global``'s steps 1-5 (``global_query``): the clusters nano considers, the reports it keeps, their order.

Apart from the batching because a sweep over ``global_max_consider_community`` shares it: the clusters a step
considers are the first ``cap`` of one order, so the widest step's selection (``Plan``: each considered cluster's
row, reason or warning, and the kept rows sorted once) holds every narrower one. A step keeps the sorted rows
considered before its cap — a stable sort of a subset is the full sort restricted to it — and the first of the
drops and warnings, which come in consider order. A NaN occurrence (no order) plans nothing: each step sorts.
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass
from typing import Any

from graphrag_ui.base.i18n import Reason, joined, lmsg, msg
from graphrag_ui.base.timing import elapsed_ms as _ms
from graphrag_ui.base.timing import now
from graphrag_ui.index.model import Community, Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.result import Candidate, Retrieval, TraceStep
from graphrag_ui.retrieval.nano.community_schema import SchemaEntry, report_occurrence, report_rating
from graphrag_ui.retrieval.nano.prep import prepared
from graphrag_ui.retrieval.spec.schema import Params


@dataclass
class Row:
    """A considered community with the values nano sorts, filters and prints."""

    key: str
    entry: SchemaEntry
    community: Community
    rating_shown: object
    rating: float
    occurrence: float
    note: str
    tokens: int


def candidate(row: Row, order: int, why: str | Reason, dropped: str | Reason = "") -> Candidate:
    com = row.community
    data = {
        "level": row.entry.level,
        "title": com.title,
        "rating": row.rating_shown,
        "occurrence": row.occurrence,
        "schema_occurrence": row.entry.occurrence,
        "report": com.report,
        "members": row.entry.members,
    }
    why = joined(why, row.note) if row.note else why
    return Candidate(
        row.key, com.title, data, order, why, float(row.occurrence), row.rating, not dropped, dropped, row.tokens
    )


def bare(
    key: str,
    entry: SchemaEntry,
    com: Community | None,
    order: int,
    why: str | Reason,
    dropped: str | Reason,
    tokens: int,
):
    return Candidate(
        id=key,
        label=com.title if com else f"Cluster {key}",
        data={"level": entry.level, "title": com.title if com else "", "schema_occurrence": entry.occurrence},
        order=order,
        why=why,
        score=entry.occurrence,
        rank=com.rating if com else None,
        in_context=False,
        dropped=dropped,
        tokens=tokens,
    )


def _by_occurrence(schema: dict[str, SchemaEntry], level: int) -> list[tuple[str, SchemaEntry]]:
    """The clusters at ``level`` or above, by schema occurrence (stable: graph order on ties)."""
    in_level = [(k, e) for k, e in schema.items() if e.level <= level]
    return sorted(in_level, key=lambda item: item[1].occurrence, reverse=True)


def _too_deep(schema: dict[str, SchemaEntry], level: int) -> list[tuple[str, SchemaEntry]]:
    """The clusters above ``level``, in schema order."""
    return [(k, e) for k, e in schema.items() if e.level > level]


class Unconsidered:
    """The clusters nano never considers — above the level, then past ``global_max_consider_community`` —
    as a ``core.candidates.Tail``: a step keeps a few of 10²–10³, a row is made when read."""

    def __init__(self, index: Index, deep: list, by_occurrence: list, level: int, cap: int) -> None:
        self.index, self.deep, self.beyond, self.level, self.cap = index, deep, by_occurrence[cap:], level, cap
        self.start = 0  # the first row's place in the whole section

    def __len__(self) -> int:
        return len(self.deep) + len(self.beyond)

    def row(self, i: int) -> Candidate:
        order = self.start + i
        if i < len(self.deep):
            key, entry = self.deep[i]
            com = self.index.community_by_id.get(key)
            too_deep = lmsg("level {level} > level {limit}", level=entry.level, limit=self.level)
            return bare(key, entry, com, order, lmsg("level {level}", level=entry.level), too_deep, 0)
        pos = i - len(self.deep)
        key, entry = self.beyond[pos]
        com = self.index.community_by_id.get(key)
        why = lmsg(
            "level {level}, schema occurrence {occurrence}", level=entry.level, occurrence=f"{entry.occurrence:.4g}"
        )
        reason = lmsg(
            "#{n} by schema occurrence, beyond global_max_consider_community ({cap})",
            n=self.cap + pos + 1,
            cap=self.cap,
        )
        return bare(key, entry, com, order, why, reason, 0)

    def ids(self) -> list[str]:
        return [k for k, _ in self.deep] + [k for k, _ in self.beyond]

    def reasons(self) -> list[tuple[str, None, int]]:
        out = [(_TOO_DEEP, None, len(self.deep))] if self.deep else []
        return out + ([(_BEYOND_CAP, None, len(self.beyond))] if self.beyond else [])


_TOO_DEEP = "level {level} > level {limit}"  # the tail's reason templates (``binding`` counts by them)
_BEYOND_CAP = "#{n} by schema occurrence, beyond global_max_consider_community ({cap})"


class Plan:
    """Steps 4-5 over the first ``width`` considered clusters, read once (see the module docstring): per
    considered position its row, or why it is left out, and the warning it gives; the kept rows sorted."""

    def __init__(self, index: Index, considered: list, min_rating: float, made: dict) -> None:
        self.width = len(considered)
        self.warnings: list[tuple[int, Any]] = []  # (position, warning), in consider order
        self.drops: list[tuple[int, Any]] = []  # (position, what makes its dropped candidate)
        kept: list[Row] = []
        self.considered_at: dict[str, int] = {}  # a kept row's position, by its cluster
        for pos, (key, entry) in enumerate(considered):
            got = _row(index, key, entry, made)
            if got is None:
                self.drops.append((pos, (key, entry)))
                continue
            if got.note:
                self.warnings.append((pos, msg("community {key}: {reason}", key=key, reason=got.note)))
            if not got.rating >= min_rating:
                self.drops.append((pos, got))
                continue
            kept.append(got)
            self.considered_at[key] = pos
        kept.sort(key=lambda r: (r.occurrence, r.rating), reverse=True)  # stable, like nano's sorted()
        self.sorted = kept
        self.warned_at = [p for p, _ in self.warnings]
        self.dropped_at = [p for p, _ in self.drops]

    @functools.cached_property
    def exact(self) -> bool:
        """Whether a narrower cap's sort is this one's restricted (NaN has no order: ``sorted`` only says)."""
        return not any(math.isnan(r.occurrence) for r in self.sorted)

    @functools.cached_property
    def _at(self) -> list[int]:
        return [self.considered_at[r.key] for r in self.sorted]

    def rows(self, cap: int) -> list[Row]:
        """The sorted rows of the first ``cap`` considered clusters (the plan's own list: read only)."""
        if cap >= self.width:
            return self.sorted
        return [r for r, at in zip(self.sorted, self._at, strict=True) if at < cap]


def _row(index: Index, key: str, entry: SchemaEntry, made: dict) -> Row | None:
    """A considered cluster's row (None: no stored report), made once per cluster (shared, read only)."""
    com = index.community_by_id.get(key)
    if com is None:
        return None
    row = made.get(key)
    if row is None or row.entry is not entry or row.community is not com:
        shown, rating, note = report_rating(com)
        occurrence = report_occurrence(com, entry)
        row = made[key] = Row(key, entry, com, shown, rating, occurrence, note, prepared(index).report_tokens(com))
    return row


def _dropped(drop: Any, min_rating: float) -> Candidate:
    """A considered cluster left out: no stored report (``drop``: its key and entry), or its rating too low."""
    if not isinstance(drop, Row):
        key, entry = drop
        why = msg(
            "level {level}, schema occurrence {occurrence}", level=entry.level, occurrence=f"{entry.occurrence:.4g}"
        )
        return bare(key, entry, None, 0, why, msg("no community report is stored for this cluster"), 0)
    shown, entry = drop.rating_shown, drop.entry
    reason = msg("rating {rating} < global_min_community_rating {limit}", rating=shown, limit=f"{min_rating:g}")
    why = msg("level {level}, occurrence {occurrence}", level=entry.level, occurrence=f"{drop.occurrence:.4g}")
    return candidate(drop, 0, why, reason)


def select(index: Index, params: Params, out: Retrieval) -> tuple[list[Row], Unconsidered, list[Candidate]]:
    """Steps 1-5: the sorted communities nano maps; every other cluster becomes a dropped candidate."""
    prep = prepared(index)
    level, cap = params.level, params.global_max_consider_community
    min_rating = params.global_min_community_rating
    start = now()
    schema = prep.schema()
    out.trace.append(
        TraceStep(
            "schema", msg("clusters of the entities, in graph order"), len(index.entities), len(schema), _ms(start)
        )
    )

    step = now()
    # a sweep's steps share the sort and the clusters above the level (reuse.once: functions of the index's
    # schema and the level); the clusters left out by them are made into candidates when read (``Unconsidered``)
    by_occurrence = reuse.once(("nano.global by occurrence", id(index), level), lambda: _by_occurrence(schema, level))
    deep = reuse.once(("nano.global too deep", id(index), level), lambda: _too_deep(schema, level))
    considered = by_occurrence[:cap]
    unconsidered = Unconsidered(index, deep, by_occurrence, level, cap)
    out.trace.append(
        TraceStep(
            "consider",
            msg("level <= {level}, sort by schema occurrence, first {cap}", level=level, cap=cap),
            len(schema),
            len(considered),
            _ms(step),
        )
    )
    step = now()
    made = reuse.once(("nano.global rows", id(index)), dict)  # a row is a function of its cluster: shared, read only
    plan = _plan(index, by_occurrence, level, cap, min_rating, made)
    if plan is None or (not plan.exact and len(considered) < plan.width):  # the plan of these clusters: its sort
        plan = Plan(index, considered, min_rating, made)
    n = len(considered)
    out.warnings.extend(w for _, w in plan.warnings[: bisect.bisect_left(plan.warned_at, n)])
    # these never reach nano's token count: their tokens stay 0
    dropped = [_dropped(d, min_rating) for _, d in plan.drops[: bisect.bisect_left(plan.dropped_at, n)]]
    rows = plan.rows(n)
    out.trace.append(
        TraceStep(
            "reports",
            msg("stored reports with rating >= {rating}, sort (occurrence, rating)", rating=f"{min_rating:g}"),
            len(considered),
            len(rows),
            _ms(step),
        )
    )
    return rows, unconsidered, dropped


def _plan(index: Index, by_occurrence: list, level: int, cap: int, min_rating: float, made: dict) -> Plan | None:
    """Inside a sweep, the plan of the widest consider cap met so far at this level and rating (None outside)."""
    if not reuse.active():
        return None
    holder = reuse.once(("nano.global plan", id(index), level, min_rating), dict)
    plan = holder.get("plan")
    if plan is None or (plan.width < cap and plan.width < len(by_occurrence)):
        plan = holder["plan"] = Plan(index, by_occurrence[:cap], min_rating, made)
    return plan
