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
from typing import Any

from graphrag_ui.base.i18n import lmsg, msg
from graphrag_ui.base.timing import elapsed_ms as _ms
from graphrag_ui.base.timing import now
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import Candidates
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Budget, Candidate, Retrieval, TraceStep
from graphrag_ui.retrieval.core.stages import NEEDS_MODEL, Batch, Stages, staged_context
from graphrag_ui.retrieval.nano import csv_context
from graphrag_ui.retrieval.nano.global_select import Row, candidate, select
from graphrag_ui.retrieval.nano.map_reduce import HOOKS
from graphrag_ui.retrieval.nano.params import GLOBAL_MODE as MODE
from graphrag_ui.retrieval.nano.params import GLOBAL_PARAMS as PARAMS
from graphrag_ui.retrieval.nano.prompts import map_messages
from graphrag_ui.retrieval.spec.model_stages import ModelStages
from graphrag_ui.retrieval.spec.needs import Needs
from graphrag_ui.retrieval.spec.schema import ModeSpec, Params

MAP_HEADER = ["id", "content", "rating", "importance"]
NO_COMMUNITY_NOTE = msg(
    "no community report is left to map: nano-graphrag answers "
    '"Sorry, I\'m not able to provide an answer to that question." without calling the model'
)


def _group(rows: list[Row], limit: int) -> tuple[list[list[Row]], list[Row]]:
    """nano's greedy grouping: each group is the longest prefix of the rest within ``limit`` tokens.

    A report that cannot fit even alone would give nano an empty group forever; it is returned apart.
    """
    groups: list[list[Row]] = []
    oversize: list[Row] = []
    current: list[Row] = []
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


def map_table(rows: list[Row], index: Index | None = None) -> str:
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


def _batch(group: list[Row], ids: list[str], index: Index, query: str) -> tuple[str, list[dict[str, str]]]:
    """A batch's context and map messages inside a sweep: once per batch of the same rows, and the table of a
    batch whose rows are the first ones of another's cut from that one's (a narrower cap's batches are often
    a wider one's, the last one cut short: its rows considered later sort after the others)."""
    keys = tuple(ids)

    def made() -> tuple[str, list[dict[str, str]]]:
        lines = reuse.prefixed("nano.global batch lines", id(index), keys, lambda: _lines(group, index), _wider)
        context = lines.table(len(keys))
        return context, map_messages(context, query)

    return reuse.once(("nano.global batch", id(index), keys, query), made)


def _lines(group: list[Row], index: Index) -> csv_context.Lines:
    rests = reuse.once(("nano.global csv rows", id(index)), dict)

    def rest(i: int) -> str:
        r = group[i]
        found = rests.get(r.key)
        if found is None:
            found = rests[r.key] = csv_context.joined([r.community.report, r.rating_shown, r.occurrence])
        return found

    return csv_context.Lines(MAP_HEADER, rest)


def _wider(lines: csv_context.Lines, _n: int) -> csv_context.Lines:
    return lines


def _kept(row: Row, n: int, batch: int, i: int, made: dict | None) -> Candidate:
    """The row mapped as the ``n``-th of all, row ``i`` of batch ``batch``; in a sweep made once per place
    (``made``) and copied: a narrower cap's batches often hold the same rows at the same places."""
    found = made.get((row.key, n, batch, i)) if made is not None else None
    if found is None or found[0] is not row:
        why = lmsg(  # data until read
            "level {level}, occurrence {occurrence}, rating {rating}: #{n} by (occurrence, rating), "
            "batch {batch} row {row}",
            level=row.entry.level,
            occurrence=f"{row.occurrence:.4g}",
            rating=row.rating_shown,
            n=n + 1,
            batch=batch + 1,
            row=i,
        )
        cand = candidate(row, n, why)
        if made is None:
            return cand
        found = made[row.key, n, batch, i] = (row, cand.__dict__)
    out = object.__new__(Candidate)
    out.__dict__ = found[1].copy()
    return out


def nano_global(index: Index, query: str, params: Mapping[str, Any] | Params, deps: Deps) -> Retrieval:
    params = SPECS[0].typed(params)
    out = Retrieval(mode=MODE, query=query, params=params.as_dict())
    start = now()
    rows, unconsidered, filtered = select(index, params, out)
    step = now()
    limit = params.global_max_token_for_community_report
    groups, oversize = _group(rows, limit)
    stages = Stages(status=NEEDS_MODEL)
    kept: list[Candidate] = []
    made = reuse.once(("nano.global kept rows", id(index)), dict) if reuse.active() else None
    # a sweep's summary step (``reuse.summaries``) reads the batches' tokens and the kept rows' ids and labels:
    # it writes no batch's context or map prompt, and its kept rows are one ``reuse.SummaryRow`` per cluster
    summary = made is not None and reuse.summary_only()
    shown = reuse.once(("nano.global summary rows", id(index)), dict) if summary else {}
    for b, group in enumerate(groups):
        used = sum(r.tokens for r in group)
        out.budgets.append(Budget(msg("map batch {n}", n=b + 1), used, limit))
        if summary:
            kept.extend(reuse.summary_row(shown, r.key, lambda r=r: r.community.title) for r in group)
            continue
        ids = [r.key for r in group]
        context, shared = _batch(group, ids, index, query) if made is not None else (map_table(group, index), None)
        messages = map_messages(context, query) if shared is None else [dict(m) for m in shared]
        stages.batches.append(
            Batch(index=b, community_ids=ids, context=context, tokens=used, limit=limit, messages=messages)
        )
        for i, row in enumerate(group):
            kept.append(_kept(row, len(kept), b, i, made))
    for row in oversize:
        reason = msg(
            "its report alone is {tokens} tokens > global_max_token_for_community_report {limit}: "
            "nano-graphrag 0.0.8.2 loops forever here; left out",
            tokens=row.tokens,
            limit=limit,
        )
        out.warnings.append(msg("community {key}: {reason}", key=row.key, reason=reason))
        why = msg("level {level}, occurrence {occurrence}", level=row.entry.level, occurrence=f"{row.occurrence:.4g}")
        kept.append(candidate(row, 0, why, reason))
    head = [c for c in kept if c.in_context] + [c for c in kept if not c.in_context]
    unconsidered.start = len(head)
    out.communities = Candidates(head, unconsidered, filtered)
    for pos in range(len(head) - len(oversize) if summary else 0, len(head)):  # a summary row has no place
        head[pos].order = pos
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
    if groups:
        out.context = staged_context(stages) if not summary else ""
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
