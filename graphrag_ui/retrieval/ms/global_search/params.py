"""``ms.global``'s parameters, declared once: the mode's sliders (GraphRAG's ``global_search`` config
fields, from ``reference_params``) and the typed object its search, dynamic selection and reduce hook
read. Its own module because those sit below ``search``, which imports them."""

from __future__ import annotations

from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.spec.reference_params import GRAPHRAG_GLOBAL
from graphrag_ui.retrieval.spec.schema import REDUCE_PROMPT, params_class

MODE = "ms.global"
PARAMS = (
    GRAPHRAG_GLOBAL.param(
        "community_level", msg("Reports at this community level or above (CLI --community-level)."), 0, 10, 1
    ),
    GRAPHRAG_GLOBAL.param(
        "dynamic_community_selection",
        msg("Let the model rate reports top-down and keep only relevant ones (CLI --dynamic-community-selection)."),
    ),
    GRAPHRAG_GLOBAL.param("max_context_tokens", msg("Token budget of each map batch (cl100k_base)."), 0, 200000, 100),
    GRAPHRAG_GLOBAL.param(
        "data_max_tokens", msg("Token budget of the reduce context (the analysts' points)."), 0, 200000, 100
    ),
    GRAPHRAG_GLOBAL.param("map_max_length", msg("Word limit the map prompt asks for."), 1, 20000, 50),
    GRAPHRAG_GLOBAL.param("reduce_max_length", msg("Word limit the reduce prompt asks for."), 1, 20000, 50),
    GRAPHRAG_GLOBAL.param("min_community_rank", msg("Skip reports rated below this."), 0, 10, 0.5, as_type="float"),
    GRAPHRAG_GLOBAL.param("include_community_rank", msg("Add the report rating as the rank column (sorts batches).")),
    GRAPHRAG_GLOBAL.param("include_community_weight", msg("Add the occurrence weight column (sorts batches).")),
    GRAPHRAG_GLOBAL.param("normalize_community_weight", msg("Divide occurrence weights by the largest one.")),
    GRAPHRAG_GLOBAL.param("use_community_summary", msg("Use report summaries instead of their full content.")),
    GRAPHRAG_GLOBAL.param("shuffle_data", msg("Shuffle reports before batching (Python random, seeded).")),
    GRAPHRAG_GLOBAL.param("random_state", msg("Seed of the shuffle."), 0, 2**31 - 1, 1),
    GRAPHRAG_GLOBAL.param(
        "dynamic_search_threshold", msg("Dynamic selection: keep reports rated at least this (0-5)."), 0, 5, 1
    ),
    GRAPHRAG_GLOBAL.param("dynamic_search_keep_parent", msg("Dynamic selection: keep a parent whose child is kept.")),
    GRAPHRAG_GLOBAL.param(
        "dynamic_search_num_repeats", msg("Dynamic selection: ratings per report (majority vote)."), 1, 10, 1
    ),
    GRAPHRAG_GLOBAL.param(
        "dynamic_search_use_summary", msg("Dynamic selection: rate report summaries, not full content.")
    ),
    GRAPHRAG_GLOBAL.param(
        "dynamic_search_max_level", msg("Dynamic selection: deepest level rated when nothing is kept."), 0, 10, 1
    ),
    GRAPHRAG_GLOBAL.param("response_type", REDUCE_PROMPT),
)

TYPED = params_class(MODE, PARAMS)
