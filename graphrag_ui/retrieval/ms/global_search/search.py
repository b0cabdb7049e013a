"""``ms.global``: Microsoft GraphRAG global search as ``get_global_search_engine`` builds it (2.x and 3.x).

Steps (trace order): reports (level ≤ ``community_level``, or dynamic community selection when the
caller ran it with a model) → weights, rank filter and shuffle → batches of ``max_context_tokens`` →
one map prompt per batch. The map and reduce calls happen in ``graphrag_ui.model_calls.map_reduce`` through
``HOOKS`` (``hooks``); without a model the Retrieval holds every batch and map prompt and
its stages say the model stages did not run. Parameters carry GraphRAG's config names and its
factory's values (summary off, rank and occurrence weight columns on, random state 86).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from graphrag_ui.base.i18n import joined, msg
from graphrag_ui.base.timing import elapsed_ms as _ms
from graphrag_ui.base.timing import now
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Budget, Candidate, Retrieval, TraceStep
from graphrag_ui.retrieval.core.stages import Batch, Stages, staged_context
from graphrag_ui.retrieval.ms.global_search import rating_rounds
from graphrag_ui.retrieval.ms.global_search.community_context import (
    GlobalContext,
    ReportRow,
    build_batches,
    level_reports,
)
from graphrag_ui.retrieval.ms.global_search.dynamic_selection import Selection
from graphrag_ui.retrieval.ms.global_search.hooks import HOOKS
from graphrag_ui.retrieval.ms.global_search.params import MODE, PARAMS
from graphrag_ui.retrieval.ms.indexer_adapters import level_view
from graphrag_ui.retrieval.ms.prompts import map_messages
from graphrag_ui.retrieval.spec.model_stages import ModelRounds, ModelStages
from graphrag_ui.retrieval.spec.needs import Needs
from graphrag_ui.retrieval.spec.schema import ModeSpec, Params


def run(
    index: Index, query: str, params: Mapping[str, Any] | Params, deps: Deps, *, selection: Selection | None = None
) -> Retrieval:
    """Build GraphRAG's global-search batches and map prompts for ``query``.

    ``selection`` is a finished dynamic community selection (``rating_rounds``
    runs it with a model); without one, dynamic selection falls back to every report at the level
    and says so."""
    start = now()
    params = SPECS[0].typed(params)
    out = Retrieval(mode=MODE, query=query, params=params.as_dict())
    level = params.community_level
    stages = Stages()
    out.stages = stages
    t = now()
    reports = level_reports(index, level)
    detail = msg("{n} reports at level ≤ {level} (community_reports.parquet order)", n=len(reports), level=level)
    if params.dynamic_community_selection:
        if selection is not None:
            stages.ratings = list(selection.ratings)
            by_id = {c.id: c for c in reports}
            reports = [by_id[cid] for cid in selection.kept if cid in by_id]
            detail = msg(
                "dynamic selection kept {kept} of {rated} rated reports",
                kept=len(reports),
                rated=len(selection.ratings),
            )
        else:
            out.warnings.append(
                msg(
                    "dynamic community selection needs a language model to rate the reports; none ran, so the "
                    "batches below hold every report at level ≤ {level}, as with dynamic selection off",
                    level=level,
                )
            )
            detail = joined(detail, msg("dynamic selection needs a model (not run)"))
    out.trace.append(TraceStep("reports", detail, len(index.communities), len(reports), _ms(t)))
    if not reports:
        out.warnings.append(
            msg("the index has no community report at level ≤ {level}: there is nothing to map", level=level)
        )
    t = now()
    ctx = _batches(index, reports, level, params)
    out.warnings += ctx.notes
    _explain(out, ctx)
    limit = params.max_context_tokens
    for b in ctx.batches:
        messages = map_messages(b.text, query, params.map_max_length)
        stages.batches.append(Batch(b.index, b.community_ids, b.text, b.tokens, limit, messages))
    out.trace.append(
        TraceStep(
            "batches",
            msg("{n} batch(es) of ≤ {limit} tokens", n=len(ctx.batches), limit=limit),
            len(reports),
            len(ctx.batches),
            _ms(t),
        )
    )
    out.context = staged_context(stages)  # what `query --context-only` prints: each batch under its header
    # a report bigger than the budget goes alone, over it (said in a warning): no limit is claimed there
    out.budgets = [
        Budget(msg("batch {n}", n=b.index + 1), b.tokens, limit if b.tokens <= limit else None) for b in ctx.batches
    ]
    stages.note = msg(
        "{n} map batch(es) and their exact prompts are built; the map and reduce stages need a language model",
        n=len(ctx.batches),
    )
    out.timings_ms["context"] = _ms(start)
    return out


def _batches(index: Index, reports: list, level: int, params: Params) -> GlobalContext:
    return build_batches(
        index,
        reports,
        level,
        max_context_tokens=params.max_context_tokens,
        use_community_summary=params.use_community_summary,
        shuffle_data=params.shuffle_data,
        random_state=params.random_state,
        include_community_rank=params.include_community_rank,
        include_community_weight=params.include_community_weight,
        normalize_community_weight=params.normalize_community_weight,
        min_community_rank=params.min_community_rank,
        has_entities=bool(level_view(index, level).entities),
    )


def prepare(index: Index, params: Mapping[str, Any]) -> None:
    """Build (and keep) the batches a first question with ``params`` would build: they do not depend
    on the question, so opening the index pays for them instead of the first query."""
    params = SPECS[0].typed(params)
    level = params.community_level
    _batches(index, level_reports(index, level), level, params)


def _explain(out: Retrieval, ctx: GlobalContext) -> None:
    for order, row in enumerate(ctx.reports):
        out.communities.append(_candidate(row, order))


def _candidate(row: ReportRow, order: int) -> Candidate:
    c = row.community
    if row.dropped:
        why = ""
    elif row.weight is None:
        why = msg(
            "report at level {level}, rating {rating}; batch {batch}",
            level=c.level,
            rating=row.rank,
            batch=row.batch + 1,
        )
    else:
        why = msg(
            "report at level {level}, rating {rating}, occurrence weight {weight}; batch {batch}",
            level=c.level,
            rating=row.rank,
            weight=f"{float(row.weight):.3g}",
            batch=row.batch + 1,
        )
    return Candidate(
        id=c.id,
        label=c.title,
        data={"level": c.level, "rating": row.rank, "title": c.title, "short_id": c.id, "batch": row.batch},
        order=order,
        why=why,
        rank=row.rank,
        in_context=not row.dropped,
        dropped=row.dropped,
        tokens=row.tokens,
    )


SPECS = [
    ModeSpec(
        name=MODE,
        family="ms",
        func=run,
        params=PARAMS,
        needs=Needs(reports="required"),
        citation_style="graphrag",
        summary=msg(
            "Microsoft GraphRAG global search: community reports in shuffled batches, one map call per "
            "batch for scored points, the best points reduced into the answer."
        ),
        # dynamic selection rates reports with the model before any batch exists; then map, reduce
        stages=ModelStages(
            rounds=ModelRounds(partial(rating_rounds.run, build=run), applies=rating_rounds.applies),
            map_reduce=HOOKS,
        ),
        reference="graphrag.global:global",
    )
]
