"""The parameters of the nano modes (shared ones, and nano.global's), named and bounded as nano-graphrag's ``QueryParam`` has them."""

from __future__ import annotations

from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.spec.reference_params import NANO
from graphrag_ui.retrieval.spec.schema import REDUCE_PROMPT, ParamSpec, params_class

LEVEL = NANO.param(
    "level", msg("Use communities at this level or coarser (level <= this; 0 is the root partition)."), 0, 10, 1
)


def top_k(help_text: str) -> ParamSpec:
    """nano's ``top_k``; ``help_text`` says what it counts ("How many entities the vector search returns …")."""
    return NANO.param("top_k", help_text, 1, 200, 1)


def threshold(help_text: str) -> ParamSpec:
    """nano's ``query_better_than_threshold``; ``help_text`` names the item ("Cosine similarity an entity …")."""
    return ParamSpec("query_better_than_threshold", "float", 0.2, help_text, -1.0, 1.0, 0.01)


# nano.global's: its map-reduce hooks read them too, and sit below the mode's module
GLOBAL_MODE = "nano.global"
GLOBAL_PARAMS = (
    LEVEL,
    NANO.param(
        "global_max_consider_community",
        msg("How many communities (the highest occurrence first) are considered at all."),
        1,
        100000,
        1,
        as_type="int",
    ),
    NANO.param(
        "global_min_community_rating", msg("Leave out communities whose report rating is below this."), 0.0, 10.0, 0.5
    ),
    NANO.param(
        "global_max_token_for_community_report",
        msg("Token budget of one map batch (report text only), and of the analyst points in the reduce context."),
        1,
        128000,
        256,
    ),
    NANO.param("response_type", REDUCE_PROMPT),
)

GLOBAL_TYPED = params_class(GLOBAL_MODE, GLOBAL_PARAMS)
