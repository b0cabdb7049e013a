"""``nano.local``: nano-graphrag 0.0.8.2's local query (seed 000), step by step, explained.

1. recall — entities from the vector table (nano-vectordb semantics: top_k, stop at the first score
   below ``query_better_than_threshold``), or ILIKE / hybrid recall (seed 003);
2. node data — each recalled entity with its degree as ``rank``; not cut by tokens;
3. communities — clusters of the recalled entities at level <= ``level``, counted per entity, sorted by
   (count, report rating) descending, cut by report tokens, then optionally only the first;
4. text units — the entities' source chunks, first entity wins, sorted by (entity order, -supporting
   relations), cut by chunk tokens;
5. relations — every edge touching a recalled entity, as a sorted pair, sorted by (edge degree,
   weight) descending, cut by description tokens;
6. assemble — four CSV tables in nano's exact layout (``csv_context``).

Two deliberate fixes (docs/differences/nano.md): tied relations keep insertion order (entity order,
then graph adjacency order) instead of a set's hash order, and a query with no entity above the
threshold gives an empty context plus a warning instead of ``None``. Clusters without a stored report
and chunks missing from the store are skipped with a warning where nano would raise.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from graphrag_ui.base.i18n import Reason, lmsg, msg
from graphrag_ui.base.timing import elapsed_ms as _ms
from graphrag_ui.base.timing import now
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import Candidates, ColumnTail
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.recall import RecallHit, recall_params
from graphrag_ui.retrieval.core.result import Budget, Candidate, Retrieval, TraceStep
from graphrag_ui.retrieval.nano import csv_context, local_tables, relation_tail
from graphrag_ui.retrieval.nano import local_gather as gather
from graphrag_ui.retrieval.nano import params as nano_params
from graphrag_ui.retrieval.nano.prep import prepared
from graphrag_ui.retrieval.nano.prompts import LOCAL
from graphrag_ui.retrieval.nano.recall import recall
from graphrag_ui.retrieval.nano.relation_tail import relation_candidates
from graphrag_ui.retrieval.spec.needs import Needs
from graphrag_ui.retrieval.spec.reference_params import NANO
from graphrag_ui.retrieval.spec.schema import ANSWER_PROMPT, ModeSpec, Params

MODE = "nano.local"
FAIL_RESPONSE_NOTE = msg(
    "no entity scored above query_better_than_threshold: nano-graphrag returns None here and answers "
    '"Sorry, I\'m not able to provide an answer to that question." without calling the LLM'
)


def _over(section: str, running: int, limit: int) -> Reason:
    if section == "Reports":
        return lmsg("over budget (section Reports: {running}/{limit} tokens)", running=running, limit=limit)
    if section == "Sources":
        return lmsg("over budget (section Sources: {running}/{limit} tokens)", running=running, limit=limit)
    return relation_tail.over(running, limit)


_OVER_REPORTS = _over("Reports", 0, 0).template  # the dropped tails' reason templates (``binding`` counts by them)
_OVER_SOURCES = _over("Sources", 0, 0).template


def _shown(index: Index) -> dict[tuple[str, str], tuple[str, dict]]:
    """(label, row data) of a chunk or relation candidate by id: a function of the index alone, so a sweep's
    steps share them (as its replayed candidates share their rows); outside a sweep, this run's own."""
    return reuse.once(("nano.local shown", id(index)), dict)


def _communities(
    index: Index, prep, hits: list[RecallHit], params: Params, out: Retrieval, seen: tuple
) -> tuple[list, list]:
    """The reports in the context, and every gathered row (cluster id, report) in order (they are its first ones)."""
    level, limit = params.level, params.local_max_token_for_community_report
    got = reuse.once(("nano.reports", *seen, level), lambda: _reports(index, prep, hits, level, seen))
    out.warnings.extend(got.warnings)
    running = list(itertools.accumulate(got.costs))  # token costs are >= 0: ``csv_context.prefix_cut`` by bisecting
    kept = bisect.bisect_right(running, limit) if limit > 0 else 0
    single = params.local_community_single_one

    def row(pos: int, dropped: Reason | str = "") -> Candidate:
        (cid, com), why, cost = got.rows[pos], got.whys[pos], got.costs[pos]
        data = {"level": com.level, "title": com.title, "rating": com.rating, "report": com.report}
        data["members"] = len(com.members)
        return Candidate(cid, com.title, data, pos, why, None, prep.rating(com), not dropped, dropped, cost)

    switched = lmsg("single-community switch kept only the first")
    if single or not reuse.summary_only():
        head = [row(pos, switched if single and pos > 0 else "") for pos in range(kept)]
    else:  # a summary step: the kept reports' ids and titles (``reuse.SummaryRow``), one per cluster and sweep
        rows = reuse.once(("nano.local summary rows", id(index), "c"), dict)
        head = [reuse.summary_row(rows, cid, lambda com=com: com.title) for cid, com in got.rows[:kept]]
    used = [com for _, com in got.rows[: 1 if single else kept]] if kept else []
    deep = []
    for cid, lvl, n in got.extra:
        com = index.community_by_id.get(cid)
        deep.append(
            Candidate(
                id=cid,
                label=com.title if com else f"Cluster {cid}",
                data={"level": lvl, "title": com.title if com else "", "rating": com.rating if com else None},
                order=len(got.rows) + len(deep),
                why=lmsg("{n} of the recalled entities are in it, level {level}", n=n, level=lvl),
                rank=prep.rating(com) if com else None,
                in_context=False,
                dropped=lmsg("level {level} > level {limit}", level=lvl, limit=level),
                tokens=prep.report_tokens(com) if com else 0,
            )
        )
    over = _over_budget(
        lambda pos: row(pos, _over("Reports", running[pos], limit)),
        kept,
        [cid for cid, _ in got.rows[kept:]],
        _OVER_REPORTS,
    )
    out.communities = Candidates(head, over, deep)
    out.budgets.append(Budget("Reports", sum(prep.report_tokens(c) for c in used), limit))
    return used, got.rows


def _reports(index: Index, prep, hits: list[RecallHit], level: int, seen: tuple) -> gather.Gathered:
    """The reports gather; inside a sweep, cut from one plan of the widest recall that holds ``hits`` first."""
    if not reuse.active():
        return gather.reports(index, prep, hits, level)
    plan = reuse.prefixed(
        f"nano.report plan, level {level}",
        *seen,
        lambda: gather.ReportPlan(index, prep, hits, level),
        lambda wider, _k: wider,
    )
    return plan.gather(len(hits))


def _over_budget(make: Callable[[int], Candidate], start: int, ids: list[str], template: str) -> ColumnTail:
    """Rows ``start`` on of a gathered section, all dropped over its budget (one reason template, what
    ``binding`` counts): each made when read, as the eager loop made it."""
    return ColumnTail(len(ids), lambda: ids, lambda i: make(start + i), [(template, len(ids))])


def _copy(fields: dict[str, Any]) -> Candidate:
    """A candidate with its own copy of ``fields`` (a kept row's, made once per sweep: ``reuse.copied``)."""
    row = object.__new__(Candidate)
    row.__dict__ = fields.copy()
    return row


def _text_units(
    index: Index, prep, hits: list[RecallHit], params: Params, out: Retrieval, seen: tuple
) -> tuple[list, list]:
    """The chunks in the context, and every gathered row in order (they are its first ones)."""
    limit = params.local_max_token_for_text_unit
    got = reuse.prefixed("nano.units", *seen, lambda: gather.units(index, prep, hits), gather.narrowed)
    out.warnings.extend(got.warnings)
    shown = _shown(index)
    # a narrowed gather's rows are its root's first ones, the same rows with the same reasons and costs: its
    # running totals are a prefix of the root's, and a kept row is made once per sweep (each step a copy)
    root = got.made.get("from", got)
    running = root.made.get("running")
    if running is None:
        running = root.made["running"] = csv_context.prefix_cut(root.costs, 0)[1]
    kept = min(len(got.rows), bisect.bisect_right(running, limit)) if limit > 0 else 0  # csv_context.prefix_cut

    def row(pos: int, dropped: Reason | str = "") -> Candidate:
        (_order, neg_support, cid, chunk), why, cost = got.rows[pos], got.whys[pos], got.costs[pos]
        found = shown.get(("u", cid))
        if found is None:
            data = {"doc_id": chunk.doc_id, "order": chunk.order, "text": chunk.text}
            found = shown["u", cid] = (chunk.text[:80].replace("\n", " "), data)
        return Candidate(cid, *found, pos, why, None, float(-neg_support), not dropped, dropped, cost)

    over = _over_budget(
        lambda pos: row(pos, _over("Sources", running[pos], limit)),
        kept,
        [u[2] for u in got.rows[kept:]],
        _OVER_SOURCES,
    )
    if reuse.summary_only():  # the kept chunks' ids and labels, once per root row (its first rows are every step's)
        made = root.made.setdefault("summary", [])
        for pos in range(len(made), kept):
            cand = row(pos)
            made.append(reuse.SummaryRow(cand.id, cand.label))
        out.chunks = Candidates(made[:kept], over)
    elif reuse.active():
        made = root.made.setdefault("kept", [])
        made.extend(row(pos).__dict__ for pos in range(len(made), kept))
        out.chunks = Candidates([_copy(fields) for fields in made[:kept]], over)
    else:
        out.chunks = Candidates([row(pos) for pos in range(kept)], over)
    out.budgets.append(Budget("Sources", running[kept - 1] if kept else 0, limit))
    return [u[3] for u in got.rows[:kept]], got.rows


def _relations(index: Index, prep, hits: list[RecallHit], params: Params, out: Retrieval, seen: tuple) -> list[str]:
    """The Relationships candidates, and the CSV lines of the rows in the context (``csv_context.numbered``'s)."""
    limit = params.local_max_token_for_local_context
    got = reuse.prefixed("nano.relations", *seen, lambda: gather.relations(index, prep, hits), gather.Edges.narrowed)
    running = got.made.get("running")
    if running is None:  # token costs are >= 0: the running totals never fall
        running = got.made["running"] = np.cumsum(got.costs)
    kept = int(np.searchsorted(running, limit, side="right")) if limit > 0 else 0  # csv_context.prefix_cut
    out.relations = relation_candidates(got, kept, running, limit, _shown(index), out.relations)
    out.budgets.append(Budget("Relationships", int(running[kept - 1]) if kept else 0, limit))
    if reuse.summary_only():  # a summary step prints no context (``reuse.summaries``)
        return []
    cells = csv_context.joined
    if not reuse.active():  # one query: its own gather, nothing kept for another step
        rows = (got.row(pos) for pos in range(kept))
        return [f"{pos},\t{cells([r[2], r[3], r[4].description, r[1], r[0]])}" for pos, r in enumerate(rows)]
    # each row's CSV cells once per gather a sweep cuts (``relation_tail.rooted``), its lines once per gather
    lines = got.made.setdefault("lines", [])
    if len(lines) < kept:
        root, picks = relation_tail.rooted(got, len(lines), kept)
        by_row, rests = root.made.setdefault("rests by row", {}), local_tables.rests(index)
        for pos, i in enumerate(picks, start=len(lines)):
            rest = by_row.get(i)
            if rest is None:
                rank, weight, a, b, rel, _via = root.row(i)
                rest = rests.get(("r", rel.id))
                if rest is None:
                    rest = rests["r", rel.id] = cells([a, b, rel.description, weight, rank])
                by_row[i] = rest
            lines.append(f"{pos},\t{rest}")
    return lines[:kept]


def nano_local(index: Index, query: str, params: Mapping[str, Any] | Params, deps: Deps) -> Retrieval:
    params = SPECS[0].typed(params)
    out = Retrieval(mode=MODE, query=query, params=params.as_dict())
    prep = prepared(index)
    start = now()
    # a sweep's steps share each stage whose inputs did not change (reuse.replayed): the key names them all
    recall_key = (
        params.recall,
        params.top_k,
        params.query_better_than_threshold,
        params.w_ilike,
        params.w_sim,
        params.w_occ,
    )
    hits = reuse.replayed(
        ("nano.recall", id(index), query, *recall_key), out, lambda: recall(index, query, params, deps, out)
    )
    out.trace.append(
        TraceStep(
            "recall",
            msg("{method} recall, top_k {k}", method=params.recall, k=params.top_k),
            len(index.entities),
            len(hits),
            _ms(start),
        )
    )
    if not hits:
        for cand in out.entities:
            cand.tokens = prep.entity_tokens(index.entity_by_id[cand.id])
        out.warnings.append(FAIL_RESPONSE_NOTE)
        if not index.entities:
            out.warnings.append(msg("the index has no entities"))
        return out

    step = now()
    cands, degrees, running = gather.nodes(index, prep, hits, reuse.summary_only())
    dropped_before = list(out.entities)
    # a sweep's steps share each node; a whole step reads its own copy, a summary step the shared one
    shared = reuse.active() and not reuse.summary_only()
    out.entities = [reuse.copied(cand) for cand in cands] if shared else list(cands)
    for cand in dropped_before:
        cand.order = len(out.entities)
        cand.tokens = prep.entity_tokens(index.entity_by_id[cand.id])
        out.entities.append(cand)
    out.budgets.append(Budget("Entities", running[-1] if running else 0, None))  # the ones in context
    out.trace.append(
        TraceStep("node data", msg("degree of each recalled entity = its rank"), len(hits), len(hits), _ms(step))
    )

    step = now()
    seen = (id(index), tuple(h.entity.id for h in hits))
    reports_key = (
        "nano.communities",
        *seen,
        params.level,
        params.local_max_token_for_community_report,
        params.local_community_single_one,
    )
    # its gather shared, its dropped rows lazy
    reports, report_rows = _communities(index, prep, hits, params, out, seen)
    out.trace.append(
        TraceStep(
            "communities",
            msg("level <= {level}, sort (count, rating)", level=params.level),
            len(out.communities),
            len(reports),
            _ms(step),
        )
    )
    step = now()
    units_key = ("nano.text_units", *seen, params.local_max_token_for_text_unit)
    chunks, unit_rows = _text_units(index, prep, hits, params, out, seen)
    out.trace.append(
        TraceStep(
            "text units", msg("sort (entity order, -supporting relations)"), len(out.chunks), len(chunks), _ms(step)
        )
    )
    step = now()
    relations_key = ("nano.relations", *seen, params.local_max_token_for_local_context)
    rels = _relations(index, prep, hits, params, out, seen)
    out.trace.append(
        TraceStep(
            "relations",
            msg("sort (edge degree, weight), insertion order on ties"),
            len(out.relations),
            len(rels),
            _ms(step),
        )
    )

    step = now()
    if reuse.summary_only():  # a summary step reads the sections' tokens, not the context (``reuse.summaries``)
        out.timings_ms["context"] = _ms(start)
        return out
    out.context = local_tables.context(
        index,
        seen,
        (hits, degrees),
        (reports, report_rows, reports_key),
        (chunks, unit_rows, units_key),
        (rels, relations_key),
        params.level,
    )
    out.messages = _messages(out.context, query, params)
    out.trace.append(
        TraceStep(
            "assemble", msg("four CSV sections"), len(hits) + len(rels) + len(reports) + len(chunks), 4, _ms(step)
        )
    )
    out.timings_ms["context"] = _ms(start)
    return out


def _messages(context: str, query: str, params: Params) -> list[dict[str, str]]:
    return LOCAL.messages(context, query, response_type=params.response_type)


PARAMS = (
    nano_params.top_k(msg("How many entities the vector search returns (nano QueryParam.top_k).")),
    nano_params.LEVEL,
    NANO.param(
        "local_max_token_for_text_unit", msg("Token budget of the Sources section (chunk text only)."), 0, 64000, 100
    ),
    NANO.param(
        "local_max_token_for_local_context",
        msg("Token budget of the Relationships section (descriptions only)."),
        0,
        64000,
        100,
    ),
    NANO.param(
        "local_max_token_for_community_report",
        msg("Token budget of the Reports section (report text only)."),
        0,
        64000,
        100,
    ),
    NANO.param(
        "local_community_single_one", msg("Keep only the best community report (applied after the budget cut).")
    ),
    nano_params.threshold(msg("Cosine similarity an entity must reach; the search stops at the first one below.")),
    NANO.param("response_type", ANSWER_PROMPT),
    *recall_params(msg("Entity recall: vector (nano), ilike (catalog) or hybrid (seed 003).")),
)

SPECS = [
    ModeSpec(
        name=MODE,
        family="nano",
        func=nano_local,
        params=PARAMS,
        needs=Needs(("entities",), reports="optional", by_name=True),
        answer_prompt=LOCAL,
        summary=msg(
            "nano-graphrag 0.0.8.2 local: entities by vector → their communities, source chunks and edges → four CSV tables."
        ),
        reference="nano:local",
    )
]
