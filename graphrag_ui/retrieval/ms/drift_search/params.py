"""``ms.drift``'s parameters, declared once (GraphRAG's ``drift_search`` config fields, from
``reference_params``), and the typed object the model-free builder and the rounds read. Its own module
because those sit below ``search``, which imports them (and declares the mode with its model rounds)."""

from __future__ import annotations

from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.spec.reference_params import GRAPHRAG_DRIFT
from graphrag_ui.retrieval.spec.schema import REDUCE_PROMPT, ModeSpec, ParamSpec

MODE = "ms.drift"

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
    GRAPHRAG_DRIFT.param("response_type", REDUCE_PROMPT),
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


def _not_run(*_args: Any) -> None:
    raise NotImplementedError("TYPING only types parameters; search.SPECS runs the mode")


# the mode's schema, declared once: ``search.SPECS`` adds its entry, facts and stages; ``TYPING`` types the
# parameters of the release they settle on for the modules below ``search``
SCHEMA = ModeSpec(
    name=MODE,
    family="ms",
    func=_not_run,
    params=(),
    summary="",
    versions=VERSIONS,
    version_params={v: PARAMS for v in VERSIONS},
    index_version=index_version,
)
TYPING = SCHEMA.for_version(VERSIONS[0])
