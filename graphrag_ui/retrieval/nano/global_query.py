"""``nano.global``: nano-graphrag 0.0.8.2's global query up to its map stage, step by step, explained.

1. schema — ``community_schema()`` recomputed from the entities' clusters (``community_schema``);
2. level — clusters at level <= ``level``;
3. consider — sorted by schema occurrence (descending, stable), the first ``global_max_consider_community``;
4. reports — their stored reports (a cluster without one is skipped), rating >= ``global_min_community_rating``;
5. sort — by (stored report occurrence, rating) descending, stable;
6. batches — greedy consecutive groups whose report tokens sum to <= ``global_max_token_for_community_report``,
   each written as nano's ``id, content, rating, importance`` CSV and put into a map prompt.

The map and reduce model calls are not made here (retrieval stays pure): ``Retrieval.stages`` holds every
batch with its exact context and map messages, status ``needs_model``; the runner in
``graphrag_ui.model_calls.map_reduce`` calls the model and uses ``map_reduce.HOOKS`` to read map answers
and build the reduce context. One deliberate difference (docs/differences/nano.md): a report whose
tokens alone exceed the batch budget makes nano loop forever; we leave it out and say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphrag_ui.base.i18n import Reason, joined, lmsg, msg
from graphrag_ui.base.timing import elapsed_ms as _ms
from graphrag_ui.base.timing import now
from graphrag_ui.index.model import Community, Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import Candidates
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Budget, Candidate, Retrieval, TraceStep
from graphrag_ui.retrieval.core.stages import NEEDS_MODEL, Batch, Stages, staged_context
from graphrag_ui.retrieval.nano import csv_context
from graphrag_ui.retrieval.nano.community_schema import SchemaEntry, report_occurrence, report_rating
from graphrag_ui.retrieval.nano.map_reduce import HOOKS
from graphrag_ui.retrieval.nano.params import GLOBAL_MODE as MODE
from graphrag_ui.retrieval.nano.params import GLOBAL_PARAMS as PARAMS
from graphrag_ui.retrieval.nano.prep import prepared
from graphrag_ui.retrieval.nano.prompts import map_messages
from graphrag_ui.retrieval.spec.model_stages import ModelStages
from graphrag_ui.retrieval.spec.needs import Needs
from graphrag_ui.retrieval.spec.schema import ModeSpec, Params

MAP_HEADER = ["id", "content", "rating", "importance"]
NO_COMMUNITY_NOTE = msg(
    "no community report is left to map: nano-graphrag answers "
    '"Sorry, I\'m not able to provide an answer to that question." without calling the model'
)


@dataclass
class _Row:
    """A considered community with the values nano sorts, filters and prints."""

    key: str
    entry: SchemaEntry
    community: Community
    rating_shown: object
    rating: float
    occurrence: float
    note: str
    tokens: int


def _candidate(row: _Row, order: int, why: str, dropped: str = "") -> Candidate:
    com = row.community
    return Candidate(
        id=row.key,
        label=com.title,
        data={
            "level": row.entry.level,
            "title": com.title,
            "rating": row.rating_shown,
            "occurrence": row.occurrence,
            "schema_occurrence": row.entry.occurrence,
            "report": com.report,
            "members": row.entry.members,
        },
        order=order,
        why=joined(why, row.note),
        score=float(row.occurrence),
        rank=row.rating,
        in_context=not dropped,
        dropped=dropped,
        tokens=row.tokens,
    )


def _bare(
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


def _group(rows: list[_Row], limit: int) -> tuple[list[list[_Row]], list[_Row]]:
    """nano's greedy grouping: each group is the longest prefix of the rest within ``limit`` tokens.

    A report that cannot fit even alone would give nano an empty group forever; it is returned apart.
    """
    groups: list[list[_Row]] = []
    oversize: list[_Row] = []
    current: list[_Row] = []
    used = 0
    for row in rows:
        if limit <= 0 or row.tokens > limit:
            oversize.append(row)
            continue
        if used + row.tokens > limit:
            groups.append(current)
            current, used = [], 0
        current.append(row)
        used += row.tokens
    if current:
        groups.append(current)
    return groups, oversize


def map_table(rows: list[_Row], index: Index | None = None) -> str:
    """One batch's context: nano's CSV of ``id, content, rating, importance`` (id restarts at 0). A row's cells
    after its id are a function of its cluster: a sweep's steps share them (``reuse.once``, with ``index``)."""
    rests: dict[str, str] = reuse.once(("nano.global csv rows", id(index)), dict) if index is not None else {}
    cells = []
    for r in rows:
        found = rests.get(r.key)
        if found is None:
            found = rests[r.key] = csv_context.joined([r.community.report, r.rating_shown, r.occurrence])
        cells.append(found)
    return csv_context.numbered(MAP_HEADER, cells)


def _by_occurrence(schema: dict[str, SchemaEntry], level: int) -> list[tuple[str, SchemaEntry]]:
    """The clusters at ``level`` or above, by schema occurrence (stable: graph order on ties)."""
    in_level = [(k, e) for k, e in schema.items() if e.level <= level]
    return sorted(in_level, key=lambda item: item[1].occurrence, reverse=True)


def _too_deep(schema: dict[str, SchemaEntry], level: int) -> list[tuple[str, SchemaEntry]]:
    """The clusters above ``level``, in schema order."""
    return [(k, e) for k, e in schema.items() if e.level > level]


class _Unconsidered:
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
            return _bare(key, entry, com, order, lmsg("level {level}", level=entry.level), too_deep, 0)
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
        return _bare(key, entry, com, order, why, reason, 0)

    def ids(self) -> list[str]:
        return [k for k, _ in self.deep] + [k for k, _ in self.beyond]

    def reasons(self) -> list[tuple[str, None, int]]:
        out = [(_TOO_DEEP, None, len(self.deep))] if self.deep else []
        return out + ([(_BEYOND_CAP, None, len(self.beyond))] if self.beyond else [])


_TOO_DEEP = "level {level} > level {limit}"  # the tail's reason templates (``binding`` counts by them)
_BEYOND_CAP = "#{n} by schema occurrence, beyond global_max_consider_community ({cap})"


def _select(index: Index, params: Params, out: Retrieval) -> tuple[list[_Row], _Unconsidered, list[Candidate]]:
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
    # schema and the level); the clusters left out by them are made into candidates when read (``_Unconsidered``)
    by_occurrence = reuse.once(("nano.global by occurrence", id(index), level), lambda: _by_occurrence(schema, level))
    deep = reuse.once(("nano.global too deep", id(index), level), lambda: _too_deep(schema, level))
    considered = by_occurrence[:cap]
    unconsidered = _Unconsidered(index, deep, by_occurrence, level, cap)
    dropped: list[Candidate] = []  # these never reach nano's token count: their tokens stay 0
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
    rows: list[_Row] = []
    made = reuse.once(("nano.global rows", id(index)), dict)  # a row is a function of its cluster: shared, read only
    for key, entry in considered:
        com = index.community_by_id.get(key)
        if com is None:
            why = msg(
                "level {level}, schema occurrence {occurrence}", level=entry.level, occurrence=f"{entry.occurrence:.4g}"
            )
            no_report = msg("no community report is stored for this cluster")
            dropped.append(_bare(key, entry, None, 0, why, no_report, 0))
            continue
        row = made.get(key)
        if row is None or row.entry is not entry or row.community is not com:
            shown, rating, note = report_rating(com)
            occurrence = report_occurrence(com, entry)
            row = made[key] = _Row(key, entry, com, shown, rating, occurrence, note, prep.report_tokens(com))
        if row.note:
            out.warnings.append(msg("community {key}: {reason}", key=key, reason=row.note))
        shown, rating = row.rating_shown, row.rating
        if not rating >= min_rating:
            reason = msg("rating {rating} < global_min_community_rating {limit}", rating=shown, limit=f"{min_rating:g}")
            why = msg("level {level}, occurrence {occurrence}", level=entry.level, occurrence=f"{row.occurrence:.4g}")
            dropped.append(_candidate(row, 0, why, reason))
            continue
        rows.append(row)
    rows.sort(key=lambda r: (r.occurrence, r.rating), reverse=True)  # stable, like nano's sorted()
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


def nano_global(index: Index, query: str, params: Mapping[str, Any] | Params, deps: Deps) -> Retrieval:
    params = SPECS[0].typed(params)
    out = Retrieval(mode=MODE, query=query, params=params.as_dict())
    start = now()
    rows, unconsidered, filtered = _select(index, params, out)
    step = now()
    limit = params.global_max_token_for_community_report
    groups, oversize = _group(rows, limit)
    stages = Stages(status=NEEDS_MODEL)
    kept: list[Candidate] = []
    for b, group in enumerate(groups):
        context = map_table(group, index)
        used = sum(r.tokens for r in group)
        stages.batches.append(
            Batch(
                index=b,
                community_ids=[r.key for r in group],
                context=context,
                tokens=used,
                limit=limit,
                messages=map_messages(context, query),
            )
        )
        out.budgets.append(Budget(msg("map batch {n}", n=b + 1), used, limit))
        for i, row in enumerate(group):
            why = lmsg(  # data until read: a sweep makes it at every step
                "level {level}, occurrence {occurrence}, rating {rating}: #{n} by (occurrence, rating), "
                "batch {batch} row {row}",
                level=row.entry.level,
                occurrence=f"{row.occurrence:.4g}",
                rating=row.rating_shown,
                n=len(kept) + 1,
                batch=b + 1,
                row=i,
            )
            kept.append(_candidate(row, len(kept), why))
    for row in oversize:
        reason = msg(
            "its report alone is {tokens} tokens > global_max_token_for_community_report {limit}: "
            "nano-graphrag 0.0.8.2 loops forever here; left out",
            tokens=row.tokens,
            limit=limit,
        )
        out.warnings.append(msg("community {key}: {reason}", key=row.key, reason=reason))
        why = msg("level {level}, occurrence {occurrence}", level=row.entry.level, occurrence=f"{row.occurrence:.4g}")
        kept.append(_candidate(row, 0, why, reason))
    head = [c for c in kept if c.in_context] + [c for c in kept if not c.in_context]
    unconsidered.start = len(head)
    out.communities = Candidates(head, unconsidered, filtered)
    for pos, cand in enumerate(head):
        cand.order = pos
    for pos, cand in enumerate(filtered, start=len(head) + len(unconsidered)):
        cand.order = pos
    out.trace.append(
        TraceStep(
            "batches",
            msg("greedy groups within {limit} report tokens, one map prompt each", limit=limit),
            len(rows),
            len(groups),
            _ms(step),
        )
    )
    if stages.batches:
        out.context = staged_context(stages)
        stages.note = msg(
            "{n} map batch(es) built with their exact prompts. The map stage (one model call per batch) and the "
            "reduce stage need a model: nothing was sent and no answer is shown.",
            n=len(stages.batches),
        )
    else:
        out.warnings.append(NO_COMMUNITY_NOTE)
        stages.note = NO_COMMUNITY_NOTE
    out.stages = stages
    out.timings_ms["context"] = _ms(start)
    return out


SPECS = [
    ModeSpec(
        name=MODE,
        family="nano",
        func=nano_global,
        params=PARAMS,
        needs=Needs(reports="required"),
        summary=msg(
            "nano-graphrag 0.0.8.2 global: community reports by occurrence and rating → batches → "
            "map (key points per batch) → reduce (analyst points) → answer."
        ),
        stages=ModelStages(map_reduce=HOOKS),  # one map call per batch, then the reduce
        reference="nano:global",
    )
]
