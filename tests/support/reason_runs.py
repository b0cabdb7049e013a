"""Retrievals that between them carry every kind of recall and drop reason, for the zh reason check.

Every registered mode (each version) runs on both samples with its defaults and with settings that
make it drop things: small top_k (beyond top_k), high thresholds (below threshold), tight budgets
(over budget), low levels, single-community, ILIKE/hybrid recall (duplicates and merged scores), an
empty question, and an index with two entities sharing one vector (ties). Map-reduce modes get points scored by a
scripted analyst (score 0, kept, over the reduce budget) and ms.global a scripted dynamic selection.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from graphrag_ui.index import store
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import Point
from graphrag_ui.retrieval.registry import get_mode, mode_names
from graphrag_ui.services.query import run_query
from graphrag_ui.ui.shell.state import SAMPLES, suggested_questions

_LIGHTRAG = [
    {"top_k": 3, "chunk_top_k": 2, "cosine_better_than_threshold": 0.4},
    {"max_entity_tokens": 150, "max_relation_tokens": 150, "max_total_tokens": 6000, "related_chunk_number": 1},
    {"kg_chunk_pick_method": "WEIGHT", "recall": "hybrid", "top_k": 5},
    {"recall": "ilike", "chunk_top_k": 1},
]
VARIANTS: dict[str, list[dict]] = {
    "nano.local": [
        {"top_k": 3, "query_better_than_threshold": 0.45},
        {"local_max_token_for_text_unit": 300, "local_max_token_for_local_context": 400},
        {"local_max_token_for_community_report": 200, "level": 0, "recall": "hybrid"},
        {"local_community_single_one": True, "recall": "ilike"},
    ],
    "nano.global": [
        {"level": 0, "global_max_consider_community": 2},
        {"global_min_community_rating": 7.5, "global_max_token_for_community_report": 300},
    ],
    "nano.naive": [{"top_k": 3, "naive_max_token_for_text_unit": 400}, {"query_better_than_threshold": 0.45}],
    "lightrag.naive": [{"chunk_top_k": 2, "max_total_tokens": 5000}, {"cosine_better_than_threshold": 0.45}],
    "ms.local": [
        {"top_k_mapped_entities": 3, "top_k_relationships": 1, "max_context_tokens": 1500},
        {"community_level": 0, "min_community_rank": 8.5, "recall": "hybrid"},
        {"max_context_tokens": 700, "recall": "ilike", "use_community_summary": True},
    ],
    "ms.global": [
        {"community_level": 0, "min_community_rank": 8.5, "include_community_weight": False},
        {"max_context_tokens": 500},
    ],
    "ms.basic": [{"k": 3, "max_context_tokens": 300}],
}


def variants(mode: str) -> list[dict]:
    if mode in VARIANTS:
        return [{}, *VARIANTS[mode]]
    return [{}, *_LIGHTRAG] if mode.startswith("lightrag.") and mode != "lightrag.bypass" else [{}]


@cache
def sample(key: str) -> Index:
    return store.load(Path(SAMPLES[key]) / "index")


def tied(index: Index) -> Index:
    """A copy of ``index`` whose second entity vector equals its first: the two always tie."""
    out = copy.copy(index)
    out.vectors = dict(index.vectors)
    table = copy.copy(index.vectors["entities"])
    table.matrix = table.matrix.copy()
    table.matrix[1] = table.matrix[0]
    out.vectors["entities"] = table
    return out


def score_points(result: Retrieval, mode: str, tight: bool) -> None:
    """Scripted map answers: per batch a relevant, a middling and an irrelevant (score 0) point."""
    from graphrag_ui.model_calls.map_reduce import hooks_of

    stages = result.stages
    if stages is None:
        return
    for b in stages.batches:
        for text, score in (("relevant " * 40, 90), ("middling " * 40, 40), ("nothing", 0)):
            stages.points.append(Point(b.index, text, score, list(b.community_ids)))
    params = dict(result.params)
    if tight:
        params["data_max_tokens" if mode == "ms.global" else "global_max_token_for_community_report"] = 100
    stages.reduce_context, stages.reduce_messages = hooks_of(mode).reduce(stages.points, result.query, params)


def dynamic_selection(index: Index, query: str) -> Retrieval:
    """ms.global with a scripted dynamic selection: the first report kept, the rest pruned."""
    from types import SimpleNamespace

    from graphrag_ui.model_calls.model_rounds import retrieve_with_model
    from graphrag_ui.retrieval.core.deps import Deps
    from graphrag_ui.retrieval.core.stages import ModelCall
    from graphrag_ui.retrieval.ms.global_search import search

    kept: list[str] = []  # the first community rated

    def call_many(requests, settings, **_):
        kept[:] = kept or [requests[0].label.split()[1]]
        rated = [(r, 5 if r.label.split()[1] == kept[0] else 0) for r in requests]
        return [ModelCall(stage=r.stage, label=r.label, raw=f'{{"rating": {n}}}', ok=True) for r, n in rated]

    params = search.SPECS[0].resolve({"dynamic_community_selection": True})
    deps = Deps(embed=lambda texts: None)
    configured = SimpleNamespace(configured=True)
    return retrieve_with_model(search.SPECS[0], index, query, params, deps, configured, call_many=call_many)


def runs(key: str) -> Iterator[tuple[str, Retrieval]]:
    """(what ran, its retrieval) for every mode, version and variant on sample ``key``."""
    index = sample(key)
    query = suggested_questions(key)[0]
    for mode in mode_names():
        spec = get_mode(mode)
        names = {p.name for p in spec.params}
        for version in spec.versions or [None]:
            for variant in variants(mode):
                params = {k: v for k, v in variant.items() if k in names} | ({"version": version} if version else {})
                result = run_query(index, mode, query, params)
                score_points(result, mode, tight=any(name != "version" for name in params))
                yield f"{mode} {params}", result
    for mode in ("nano.local", "ms.local", "lightrag.local"):
        yield f"{mode} with tied vectors", run_query(tied(index), mode, query, {})
    yield "ms.local on an empty question", run_query(index, "ms.local", "", {})
    yield "ms.global dynamic selection", dynamic_selection(index, query)
