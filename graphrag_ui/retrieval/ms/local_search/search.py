"""``ms.local``: Microsoft GraphRAG local search (``LocalSearchMixedContext.build_context``), seed 004.

Steps (trace order): entity search (LanceDB k-NN over ``entity_description``, 2 × top_k, no threshold)
→ community context (reports by #matched entities and rating, ``community_prop`` of the budget) →
local context (entity table, then in-/out-network relationships rebuilt per entity prefix,
``1 − community_prop − text_unit_prop``) → text units (entity order, −#relationships,
``text_unit_prop``) → assemble (``"\\n\\n"``-joined). Parameters carry GraphRAG's names and the
defaults its query factory and config use (not ``build_context``'s signature defaults).

Deliberate differences (docs/differences/ms.md): the ``links`` attribute starts fresh for every
query (GraphRAG mutates shared objects, so a reused engine prints stale values); when no report fits
its budget the Reports section is left out instead of GraphRAG's literal ``[]`` line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.base.timing import elapsed_ms as _ms
from graphrag_ui.base.timing import now
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.recall import recall_params
from graphrag_ui.retrieval.core.result import SECTIONS, Budget, Retrieval, TraceStep
from graphrag_ui.retrieval.ms.indexer_adapters import index_view, level_view
from graphrag_ui.retrieval.ms.local_search.entities import entity_candidates, search_entities
from graphrag_ui.retrieval.ms.local_search.mixed_context import build_local
from graphrag_ui.retrieval.ms.local_search.reports import build_reports
from graphrag_ui.retrieval.ms.local_search.rows import section_candidates
from graphrag_ui.retrieval.ms.local_search.sources import build_sources
from graphrag_ui.retrieval.ms.prompts import LOCAL
from graphrag_ui.retrieval.spec.needs import Needs
from graphrag_ui.retrieval.spec.reference_params import GRAPHRAG_LOCAL
from graphrag_ui.retrieval.spec.schema import ANSWER_PROMPT, ModeSpec, Params

MODE = "ms.local"


def budgets(max_context_tokens: int, community_prop: float, text_unit_prop: float) -> tuple[int, int, int]:
    """(reports, local, text units) token limits, with GraphRAG's exact float arithmetic."""
    if community_prop + text_unit_prop > 1:
        from graphrag_ui.base.errors import UserError

        raise UserError(
            msg(
                "community_prop + text_unit_prop = {text_unit_prop} exceeds 1",
                text_unit_prop=f"{community_prop + text_unit_prop:g}",
            ),
            fix=msg("lower one of them (GraphRAG raises ValueError here)"),
        )
    community = max(int(max_context_tokens * community_prop), 0)
    local = max(int(max_context_tokens * (1 - community_prop - text_unit_prop)), 0)
    units = max(int(max_context_tokens * text_unit_prop), 0)
    return community, local, units


def run(
    index: Index,
    query: str,
    params: Mapping[str, Any] | Params,
    deps: Deps,
    *,
    links_state: dict[str, int] | None = None,
    claims: bool = True,
) -> Retrieval:
    """Build GraphRAG's local-search context for ``query`` and explain every candidate.

    ``links_state`` is for tests only: a dict kept across calls reproduces a reused GraphRAG engine
    (stale ``links``); by default every query starts fresh. ``claims=False`` is DRIFT's local step:
    its engine has no covariates, so the local section ends without the (empty) claims part."""
    start = now()
    params = SPECS[0].typed(params)
    out = Retrieval(mode=MODE, query=query, params=params.as_dict())
    cp, tp = params.community_prop, params.text_unit_prop
    if cp + tp > 1:  # GraphRAG raises ValueError; a slider at its max should still show a result
        out.warnings.append(
            msg(
                "community_prop {cp} + text_unit_prop {tp} exceeds 1 (GraphRAG refuses this): community_prop "
                "lowered to {low} so the text units keep their share",
                cp=f"{cp:g}",
                tp=f"{tp:g}",
                low=f"{max(1 - tp, 0):g}",
            )
        )
        cp = max(1 - tp, 0.0)
    limits = budgets(params.max_context_tokens, cp, tp)
    lv = level_view(index, params.community_level)
    t = now()
    selected, found = search_entities(index, lv, query, params, deps, out)
    out.trace.append(
        TraceStep(
            "entity search",
            msg(
                "LanceDB k-NN, k = 2 × {k}, entities loaded at community_level {level}",
                k=params.top_k_mapped_entities,
                level=lv.level,
            ),
            len(found),
            len(selected),
            _ms(t),
        )
    )
    if not index.entities:
        out.warnings.append(msg("the index has no entities"))
    elif not selected:
        out.warnings.append(msg("no entity was mapped to the query: the context has no entity-based sections"))
    t = now()
    reports = build_reports(
        index,
        selected,
        lv,
        limits[0],
        include_rank=params.include_community_rank,
        use_summary=params.use_community_summary,
        min_rank=params.min_community_rank,
    )
    out.warnings += reports.notes

    def community(key: str) -> tuple[str, dict] | None:
        c = index.community_by_id.get(key)
        return None if c is None else (c.title, {"level": c.level, "rating": c.rating, "title": c.title})

    # a sweep's summary step (``reuse.summaries``): kept rows as ``reuse.SummaryRow``, no context text or messages;
    # never DRIFT's local step (``claims=False``), whose context its own run reads
    summary = claims and reuse.summary_only()

    def kept(kind: str) -> dict | None:
        return reuse.once(("ms.local summary rows", id(index), kind), dict) if summary else None

    out.communities = section_candidates(reports, community, summary=kept("communities"))
    out.trace.append(
        TraceStep(
            "community context",
            msg("Reports {used}/{limit} tokens", used=reports.used, limit=limits[0]),
            reports.total(),
            sum(r.in_context for r in reports.rows),
            _ms(t),
        )
    )
    t = now()
    local = build_local(
        index,
        selected,
        limits[1],
        top_k=params.top_k_relationships,
        include_entity_rank=params.include_entity_rank,
        include_weight=params.include_relationship_weight,
        links=links_state,
        claims=claims,
    )
    out.entities = entity_candidates(index, lv, found, local.entities, kept("entities"))
    rel_by_id = index.relation_by_id
    links = local.links if links_state is None else dict(local.links)  # a kept dict changes with later runs

    def relation(key: str) -> tuple[str, dict]:
        r = rel_by_id[key]
        data = {
            "source": r.source,
            "target": r.target,
            "description": r.description,
            "weight": r.weight,
            "links": links.get(key),
        }
        return f"{r.source} — {r.target}", data

    out.relations = section_candidates(local.relations, relation, index_view(index).rel_rank, kept("relations"))
    out.warnings += local.relations.notes
    out.trace.append(
        TraceStep(
            "local context",
            msg(
                "Entities + Relationships {entities}+{relations}/{limit} tokens; relationships of "
                "{accepted}/{selected} entities",
                entities=local.entities.used,
                relations=local.relations.used,
                limit=limits[1],
                accepted=local.accepted,
                selected=len(selected),
            ),
            local.relations.total(),
            sum(r.in_context for r in local.relations.rows),
            _ms(t),
        )
    )
    t = now()
    sources = build_sources(index, selected, limits[2])

    def chunk(key: str) -> tuple[str, dict]:
        c = index.chunk_by_id[key]
        return c.text[:80], {"text": c.text, "doc_id": c.doc_id}

    out.chunks = section_candidates(sources, chunk, summary=kept("chunks"))
    out.trace.append(
        TraceStep(
            "text units",
            msg("Sources {used}/{limit} tokens", used=sources.used, limit=limits[2]),
            sources.total(),
            sum(r.in_context for r in sources.rows),
            _ms(t),
        )
    )
    t = now()
    parts = [p for p in (reports.text, local.text, sources.text) if p.strip() != ""]
    out.context = "\n\n".join(parts) if not summary else ""
    out.budgets = [
        _section_budget(out, SECTIONS["reports"], reports.used, limits[0]),
        _section_budget(out, SECTIONS["local"], local.used, limits[1]),
        _section_budget(out, SECTIONS["text units"], sources.used, limits[2]),
    ]
    out.messages = _messages(out.context, query, params) if not summary else []
    out.trace.append(
        TraceStep("assemble", msg("{n} sections joined by blank lines", n=len(parts)), len(parts), 1, _ms(t))
    )
    out.timings_ms["context"] = _ms(start)
    return out


def _section_budget(out: Retrieval, section: str, used: int, limit: int) -> Budget:
    """GraphRAG writes a section's header even when its budget cannot hold it; say so rather than
    showing a limit that was never enforced."""
    if used <= limit:
        return Budget(section, used, limit)
    out.warnings.append(
        msg(
            "the {section} budget ({limit} tokens) is smaller than its header ({used} tokens): GraphRAG prints "
            "the header with no rows",
            section=section,
            limit=limit,
            used=used,
        )
    )
    return Budget(section, used, None)


def _messages(context: str, query: str, params: Params) -> list[dict[str, str]]:
    return LOCAL.messages(context, query, response_type=params.response_type)


PARAMS = (
    GRAPHRAG_LOCAL.param(
        "top_k_mapped_entities",
        msg("Entities to map the query to; LanceDB returns 2× this many (no threshold)."),
        1,
        200,
        1,
    ),
    GRAPHRAG_LOCAL.param(
        "top_k_relationships",
        msg("Out-network relationships kept per selected entity (in-network ones are never capped)."),
        0,
        200,
        1,
    ),
    GRAPHRAG_LOCAL.param(
        "max_context_tokens",
        msg("Total context budget (cl100k_base tokens), split by the two props below."),
        0,
        200000,
        100,
    ),
    GRAPHRAG_LOCAL.param(
        "text_unit_prop", msg("Share of max_context_tokens for the Sources (text unit) table."), 0.0, 1.0, 0.05
    ),
    GRAPHRAG_LOCAL.param(
        "community_prop",
        msg("Share of max_context_tokens for community reports; the local tables get the rest."),
        0.0,
        1.0,
        0.05,
    ),
    GRAPHRAG_LOCAL.param(
        "community_level",
        msg("Entities and reports at this community level or above (CLI --community-level)."),
        0,
        10,
        1,
    ),
    GRAPHRAG_LOCAL.param(
        "include_entity_rank", msg("Add the 'number of relationships' (degree) column to the Entities table.")
    ),
    GRAPHRAG_LOCAL.param("include_relationship_weight", msg("Add the weight column to the Relationships table.")),
    GRAPHRAG_LOCAL.param(
        "include_community_rank", msg("Add the report rating as a rank column (GraphRAG then re-sorts by it).")
    ),
    GRAPHRAG_LOCAL.param("use_community_summary", msg("Use the report summary instead of its full content.")),
    GRAPHRAG_LOCAL.param("min_community_rank", msg("Skip reports rated below this."), 0, 10, 0.5, as_type="float"),
    GRAPHRAG_LOCAL.param("response_type", ANSWER_PROMPT),
    *recall_params(msg("Entity recall: LanceDB vector search (GraphRAG), ILIKE on names, or hybrid (seed 003).")),
)

SPECS = [
    ModeSpec(
        name=MODE,
        family="ms",
        func=run,
        params=PARAMS,
        needs=Needs(("entities",), reports="optional", by_name=True, members=True),
        citation_style="graphrag",
        answer_prompt=LOCAL,
        summary=msg(
            "Microsoft GraphRAG local search: entity vector search → community reports, entities and "
            "relationships, source text units, each within its share of the token budget."
        ),
        reference="graphrag.local:local",
    )
]
