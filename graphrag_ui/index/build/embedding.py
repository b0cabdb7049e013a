"""Embed an index's four kinds of rows (entities, relations, chunks, community reports).

The texts follow LightRAG's layout, which names what a vector stands for: entity ``name\\ndescription``,
relation ``keywords\\tsource\\ntarget\\ndescription`` (endpoints sorted), chunk text, report text.
When the store provides a shared "texts to embed" helper (``graphrag_ui.index.embed_texts``), its
texts are used instead so that re-embedding an index gives the same vectors as building it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

from graphrag_ui.embed import Embedder
from graphrag_ui.index.model import Index, VectorTable

Progress = Callable[[str, int, int], None]


def _local_texts(index: Index) -> dict[str, tuple[list[str], list[str]]]:
    def relation_text(r) -> str:
        a, b = sorted((r.source, r.target))
        return f"{r.keywords}\t{a}\n{b}\n{r.description}"

    return {
        "entities": ([e.id for e in index.entities], [f"{e.name}\n{e.description}" for e in index.entities]),
        "relations": ([r.id for r in index.relations], [relation_text(r) for r in index.relations]),
        "chunks": ([c.id for c in index.chunks], [c.text for c in index.chunks]),
        "communities": ([c.id for c in index.communities], [c.report for c in index.communities]),
    }


def texts_to_embed(index: Index) -> dict[str, tuple[list[str], list[str]]]:
    """kind -> (row ids, texts); the store's shared helper wins when it exists."""
    try:
        shared = importlib.import_module("graphrag_ui.index.embed_texts")
    except ModuleNotFoundError as exc:
        if exc.name != "graphrag_ui.index.embed_texts":
            raise
        return _local_texts(index)
    return shared.texts_to_embed(index)


def embed_index(index: Index, embedder: Embedder, progress: Progress | None = None) -> dict[str, VectorTable]:
    """One VectorTable per kind, rows in table order."""
    out: dict[str, VectorTable] = {}
    for kind, (ids, texts) in texts_to_embed(index).items():
        stage = f"embed {kind}"
        if progress:
            progress(stage, 0, len(texts))
        if texts:
            report = (lambda d, t, s=stage: progress(s, d, t)) if progress else None
            matrix = np.asarray(embedder.embed(texts, report), dtype=np.float32)
        else:
            matrix = np.zeros((0, embedder.dim), dtype=np.float32)
        out[kind] = VectorTable(list(ids), matrix)
    return out
