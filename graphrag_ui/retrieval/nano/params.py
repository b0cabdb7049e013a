"""The parameters the nano modes share, named and bounded as nano-graphrag's ``QueryParam`` has them."""

from __future__ import annotations

from graphrag_ui.retrieval.core.schema import ParamSpec

LEVEL = ParamSpec(
    "level",
    "int",
    2,
    "Use communities at this level or coarser (level <= this; 0 is the root partition).",
    0,
    10,
    1,
)


def top_k(items: str) -> ParamSpec:
    return ParamSpec(
        "top_k", "int", 20, f"How many {items} the vector search returns (nano QueryParam.top_k).", 1, 200, 1
    )


def threshold(item: str) -> ParamSpec:
    return ParamSpec(
        "query_better_than_threshold",
        "float",
        0.2,
        f"Cosine similarity {item} must reach; the search stops at the first one below.",
        -1.0,
        1.0,
        0.01,
    )


def response_type(prompt: str) -> ParamSpec:
    return ParamSpec("response_type", "str", "Multiple Paragraphs", f"Answer shape requested in the {prompt}.")
