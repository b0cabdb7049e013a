"""``ms.drift``: GraphRAG's DRIFT search (``DRIFTSearch.search``): its parameters and its mode.

Without a model the mode is ``model_free.primer_stage``: the expansion prompt, the ranking of the
reports by the question, the primer folds. With a model, ``rounds`` runs ``loop.run_loop`` (the query
service drives it: ``ModeSpec.stages``): the expansion, the primer answers, ``n_depth`` rounds of local
searches, the reduce prompt.
"""

from __future__ import annotations

from typing import Any

from graphrag_ui.i18n import msg
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.model_stages import ModelRounds, ModelStages
from graphrag_ui.retrieval.core.reference_params import GRAPHRAG_DRIFT
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.schema import REDUCE_PROMPT, ModeSpec, ParamSpec, response_type
from graphrag_ui.retrieval.ms.drift_search import rounds
from graphrag_ui.retrieval.ms.drift_search.model_free import MODE, primer_prompts, primer_stage

__all__ = ["MODE", "SPECS", "primer_prompts", "primer_stage", "run"]


def run(index: Index, query: str, params: dict[str, Any], deps: Deps) -> Retrieval:
    """The registry's entry: the primer stage without a model (ranking by the question)."""
    return primer_stage(index, query, params, deps)


PARAMS = (
    GRAPHRAG_DRIFT.param(
        "drift_k_followups",
        msg("Reports the primer keeps from its ranking (and, in GraphRAG, follow-ups run per round)."),
        1,
        200,
        1,
    ),
    GRAPHRAG_DRIFT.param(
        "primer_folds", msg("Primer calls: the kept reports are split into this many folds (0 acts as 1)."), 0, 50, 1
    ),
    GRAPHRAG_DRIFT.param(
        "community_level", msg("Reports at this community level or above (CLI --community-level)."), 0, 10, 1
    ),
    GRAPHRAG_DRIFT.param(
        "n_depth", msg("Rounds of local searches on follow-up questions after the primer (needs a model)."), 0, 10, 1
    ),
    GRAPHRAG_DRIFT.param(
        "local_search_max_data_tokens",
        msg("Token budget of each local-search context (ms.local's max_context_tokens)."),
        0,
        200000,
        100,
    ),
    GRAPHRAG_DRIFT.param(
        "local_search_text_unit_prop",
        msg("Share of each local-search context for text units (ms.local's text_unit_prop)."),
        0.0,
        1.0,
        0.05,
    ),
    GRAPHRAG_DRIFT.param(
        "local_search_community_prop",
        msg("Share of each local-search context for community reports (ms.local's community_prop)."),
        0.0,
        1.0,
        0.05,
    ),
    GRAPHRAG_DRIFT.param(
        "local_search_top_k_mapped_entities",
        msg("Entities each local search maps its question to (ms.local's top_k_mapped_entities)."),
        1,
        200,
        1,
    ),
    GRAPHRAG_DRIFT.param(
        "local_search_top_k_relationships",
        msg("Out-network relationships per entity in each local search (ms.local's top_k_relationships)."),
        0,
        200,
        1,
    ),
    response_type(REDUCE_PROMPT),
    ParamSpec(
        "seed",
        "int",
        0,
        msg("Picks the HyDE template report (GraphRAG picks it with secrets.choice, differently every run)."),
        0,
        2**31 - 1,
        1,
    ),
)

VERSIONS = ("3.3.0", "2.7.0")  # 2.7.0: the primer read by json.loads, "up to five" follow-ups per local answer


def index_version(index: Any) -> str:
    """The release that wrote an imported GraphRAG index (2.x layout → 2.7.0); 3.3.0 otherwise."""
    return "2.7.0" if getattr(index.manifest, "source", "") == "graphrag-2" else "3.3.0"


SPECS = [
    ModeSpec(
        name=MODE,
        family="ms",
        func=run,
        params=(),
        summary=msg(
            "Microsoft GraphRAG DRIFT search: a hypothetical answer ranks the community reports, primer calls "
            "ask follow-up questions, rounds of local searches answer them, a reduce combines the answers."
        ),
        reference="graphrag.drift:drift",
        # the expansion, the primer and the rounds ask the model while it retrieves: only when the caller asks
        stages=ModelStages(
            rounds=ModelRounds(rounds.run, on_request=True, ran=rounds.ran),
            wide_answer=True,  # the answer panel draws the question tree
        ),
        versions=VERSIONS,
        version_params={v: PARAMS for v in VERSIONS},
        index_version=index_version,
    ).for_version(VERSIONS[0])
]
