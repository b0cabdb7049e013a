"""LightRAG modes ``lightrag.local|global|hybrid|mix|naive|bypass``, following lightrag-hku 1.4.7
or 1.5.7 exactly (``version`` parameter; default: the release that wrote an imported index, else 1.4.7).

Parameters carry the release's names (``QueryParam`` fields and the ``LightRAG`` instance settings
``kg_chunk_pick_method``, ``related_chunk_number``, ``cosine_better_than_threshold``) and defaults.
QueryParam fields with no effect on the context here get no slider (history_turns and model_func
in 1.4.7; include_references and disable_user_prompt_prefix in 1.5.7; enable_rerank is off); they are
still accepted and named (``reference_params``, ``param_intake``).
Keywords arrive in ``deps.keywords``; where seed 001 states a rule LightRAG lacks (both keyword lists
empty and a query under 50 characters → naive), the seed wins (docs/differences/lightrag.md).
"""

from __future__ import annotations

from functools import partial

from graphrag_ui.base.i18n import joined, msg
from graphrag_ui.retrieval.core.recall import recall_params
from graphrag_ui.retrieval.lightrag.prompts import ANSWER
from graphrag_ui.retrieval.lightrag.retrieve import VERSION_147, VERSION_157, retrieve
from graphrag_ui.retrieval.spec.needs import Needs
from graphrag_ui.retrieval.spec.reference_params import LIGHTRAG_147
from graphrag_ui.retrieval.spec.schema import ModeSpec, ParamSpec

TOP_K = LIGHTRAG_147.param(
    "top_k",
    msg(
        "entities (local path) and relations (global path) taken from each vector search; naive: chunks when chunk_top_k is 0"
    ),
    1,
    1000,
    1,
)
CHUNK_TOP_K = LIGHTRAG_147.param(
    "chunk_top_k",
    msg(
        "chunks from the chunk vector search (mix, naive) and the cap on the final chunk list; 0 = no cap (search uses top_k)"
    ),
    0,
    1000,
    1,
)
MAX_ENTITY = LIGHTRAG_147.param(
    "max_entity_tokens",
    msg("token budget of the entity section (o200k_base, each entity's JSON counted)"),
    0,
    200_000,
    100,
)
MAX_RELATION = LIGHTRAG_147.param("max_relation_tokens", msg("token budget of the relation section"), 0, 200_000, 100)
MAX_TOTAL = LIGHTRAG_147.param(
    "max_total_tokens",
    msg("whole-prompt budget; chunks get what is left after system prompt, KG context, query and a 100-token buffer"),
    0,
    1_000_000,
    500,
)
PICK = ParamSpec(
    "kg_chunk_pick_method",
    "choice",
    "VECTOR",
    msg("how chunks of entities/relations are picked: VECTOR (query similarity) or WEIGHT (linear-gradient polling)"),
    choices=("VECTOR", "WEIGHT"),
)
RELATED = ParamSpec(
    "related_chunk_number",
    "int",
    5,
    msg("chunks per entity/relation: WEIGHT quota of the first one; VECTOR keeps int(n·items/2)"),
    1,
    100,
    1,
)
THRESHOLD = ParamSpec(
    "cosine_better_than_threshold",
    "float",
    0.2,
    msg("vector hits scoring below this cosine are dropped (all three vector stores)"),
    -1.0,
    1.0,
    0.01,
)
MAX_ENTITY_157 = LIGHTRAG_147.param(
    "max_entity_tokens",
    msg("token budget of the entity section (o200k_base, the JSON lines with their newlines)"),
    0,
    200_000,
    100,
)
MAX_RELATION_157 = LIGHTRAG_147.param(
    "max_relation_tokens", msg("token budget of the relation section (JSON lines)"), 0, 200_000, 100
)
MAX_TOTAL_157 = LIGHTRAG_147.param(
    "max_total_tokens",
    msg("whole-prompt budget; chunks get what is left after system prompt, KG context, query and a 200-token buffer"),
    0,
    1_000_000,
    500,
)
RESPONSE_TYPE = LIGHTRAG_147.param(
    "response_type", msg("answer format named in the system prompt (its tokens count against max_total_tokens)")
)
USER_PROMPT = LIGHTRAG_147.param(
    "user_prompt", msg("extra instruction for the answer (its tokens count against max_total_tokens)")
)


def _kg(max_entity: ParamSpec, max_relation: ParamSpec, max_total: ParamSpec) -> tuple[ParamSpec, ...]:
    return (
        TOP_K,
        CHUNK_TOP_K,
        max_entity,
        max_relation,
        max_total,
        PICK,
        RELATED,
        THRESHOLD,
        RESPONSE_TYPE,
        USER_PROMPT,
    )


_KG = {
    VERSION_147: _kg(MAX_ENTITY, MAX_RELATION, MAX_TOTAL),
    VERSION_157: _kg(MAX_ENTITY_157, MAX_RELATION_157, MAX_TOTAL_157),
}
_NAIVE = {
    VERSION_147: (TOP_K, CHUNK_TOP_K, MAX_TOTAL, THRESHOLD, RESPONSE_TYPE, USER_PROMPT),
    VERSION_157: (TOP_K, CHUNK_TOP_K, MAX_TOTAL_157, THRESHOLD, RESPONSE_TYPE, USER_PROMPT),
}
_RECALL = recall_params(
    msg("Entity recall: vector (LightRAG's own, on the local path), ilike (name match) or hybrid (seed 003).")
)
VERSIONS = (VERSION_147, VERSION_157)
RERANK_OFF = msg("rerank is off (enable_rerank=False: no rerank model runs offline)")  # joined to the summary

SUMMARIES = {
    "local": msg("entities found by the low-level keywords, all their relations (by edge degree), their chunks"),
    "global": msg("relations found by the high-level keywords, their endpoint entities, their chunks"),
    "hybrid": msg("local and global results merged round-robin, then chunks of both"),
    "mix": msg("hybrid plus chunks found by vector search on the question, merged round-robin"),
    "naive": msg("chunks found by vector search on the question, within the token budget"),
    "bypass": msg("no retrieval: the bare question goes to the model (LightRAG's bypass mode)"),
}

# what each mode reads from an index (``query_readiness``): its vector kinds, and the chunk text
# LightRAG 1.4/1.5 read from the chunk vector rows
NEEDS = {
    "local": Needs(("entities",), by_name=True),
    "global": Needs(("relations",)),
    "hybrid": Needs(("entities", "relations"), any_vectors=True, by_name=True),
    "mix": Needs(("entities", "relations", "chunks"), any_vectors=True, chunk_text="optional", by_name=True),
    "naive": Needs(("chunks",), chunk_text="required"),
    "bypass": Needs(),
}


def index_version(index) -> str:
    """The LightRAG release that wrote an index: recorded at import, else told by its layout; 1.4.7
    for built and sample indexes."""
    settings = index.manifest.settings
    recorded = settings.get("lightrag_version")
    if recorded in VERSIONS:
        return recorded
    return VERSION_157 if settings.get("lightrag_layout") == "1.5" else VERSION_147


def _params(mode: str, version: str) -> tuple[ParamSpec, ...]:
    if mode == "bypass":
        return ()
    if mode == "naive":
        return _NAIVE[version]
    return _KG[version] + (() if mode == "global" else _RECALL)


def _spec(mode: str) -> ModeSpec:
    base = ModeSpec(
        f"lightrag.{mode}",
        "lightrag",
        partial(_run, mode=mode),
        (),
        SUMMARIES[mode] if mode == "bypass" else joined(SUMMARIES[mode], RERANK_OFF),
        uses_keywords=mode not in ("naive", "bypass"),
        versions=VERSIONS,
        version_params={v: _params(mode, v) for v in VERSIONS},
        index_version=index_version,
        reference=f"lightrag:{mode}",
        needs=NEEDS[mode],
        answer_prompt=ANSWER.get(mode),
        context_free=mode == "bypass",
        citation_style="none" if mode == "bypass" else "lightrag",
    )
    return base.for_version(VERSION_147)


def _run(index, query, params, deps, *, mode: str):
    """A resolved dict (a direct call) or the typed parameters of the release they name."""
    return retrieve(index, query, mode, _BY_NAME[f"lightrag.{mode}"].typed(params), deps)


SPECS: list[ModeSpec] = [_spec(m) for m in ("local", "global", "hybrid", "mix", "naive", "bypass")]
_BY_NAME = {spec.name: spec for spec in SPECS}
