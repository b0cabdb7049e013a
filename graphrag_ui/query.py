"""Run one retrieval the way the CLI, the batch runner and the app all do.

This is the glue above the pure modes: it picks the query embedder from the index manifest (and
refuses a mismatch), resolves LightRAG keywords (user → LLM → offline), times the query embedding
apart from the context build, and returns the mode's ``Retrieval``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from graphrag_ui.embed import check_compatible, get_embedder
from graphrag_ui.errors import UserError
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.deps import Deps
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.retrieval.result import Keywords, Retrieval


def query_embedder_id(index: Index, override: str | None = None) -> str:
    """The embedder a query must use: the index's own, unless the caller insists on another."""
    wanted = override or index.manifest.embedder
    check_compatible(index.manifest.embedder, wanted)
    return wanted


def resolve_keywords(
    index: Index, query: str, hl: list[str] | None, ll: list[str] | None, llm_settings: Any = None
) -> Keywords:
    """User keywords win; otherwise the LLM (when configured) or the offline extractor."""
    if hl or ll:
        return Keywords(list(hl or []), list(ll or []), "user")
    from graphrag_ui.llm import keywords as kw

    return kw.extract_keywords(query, index=index, settings=llm_settings)


def run_query(
    index: Index,
    mode: str,
    query: str,
    params: dict[str, Any] | None = None,
    *,
    hl: list[str] | None = None,
    ll: list[str] | None = None,
    keywords: Keywords | None = None,
    llm_settings: Any = None,
    embedder: str | None = None,
) -> Retrieval:
    """Resolve parameters and keywords, run ``mode`` and record where the time went."""
    spec = get_mode(mode)
    resolved = spec.resolve(params)
    if not isinstance(query, str):
        raise UserError("the question must be text")
    embed_model = get_embedder(query_embedder_id(index, embedder))
    embed_ms = 0.0

    def timed_embed(texts: list[str]) -> np.ndarray:
        nonlocal embed_ms
        start = time.perf_counter()
        try:
            return embed_model.embed(texts)
        finally:
            embed_ms += (time.perf_counter() - start) * 1000

    kw_ms = 0.0
    if spec.uses_keywords and keywords is None:
        start = time.perf_counter()
        keywords = resolve_keywords(index, query, hl, ll, llm_settings)
        kw_ms = (time.perf_counter() - start) * 1000
    deps = Deps(embed=timed_embed, keywords=keywords or Keywords())
    start = time.perf_counter()
    result = spec.func(index, query, resolved, deps)
    total_ms = (time.perf_counter() - start) * 1000
    result.timings_ms.update(
        {"keywords": round(kw_ms, 3), "embed": round(embed_ms, 3), "context": round(total_ms - embed_ms, 3)}
    )
    if keywords is not None and keywords.source == "offline" and spec.uses_keywords:
        note = "no LLM configured: keywords come from the offline extractor (edit them, or configure a model)"
        if note not in result.warnings:
            result.warnings.append(note)
    return result
