"""The parameters the nano modes share, named and bounded as nano-graphrag's ``QueryParam`` has them."""

from __future__ import annotations

from graphrag_ui.i18n import msg
from graphrag_ui.retrieval.core.reference_params import NANO
from graphrag_ui.retrieval.core.schema import ParamSpec

LEVEL = NANO.param(
    "level", msg("Use communities at this level or coarser (level <= this; 0 is the root partition)."), 0, 10, 1
)


def top_k(help_text: str) -> ParamSpec:
    """nano's ``top_k``; ``help_text`` says what it counts ("How many entities the vector search returns …")."""
    return NANO.param("top_k", help_text, 1, 200, 1)


def threshold(help_text: str) -> ParamSpec:
    """nano's ``query_better_than_threshold``; ``help_text`` names the item ("Cosine similarity an entity …")."""
    return ParamSpec("query_better_than_threshold", "float", 0.2, help_text, -1.0, 1.0, 0.01)
