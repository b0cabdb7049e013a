"""Embed an index's four kinds of rows (entities, relations, chunks, community reports).

The texts come from the store's shared :mod:`graphrag_ui.index.embed_texts` (LightRAG's forms for a
built index), so re-embedding an index later gives exactly the vectors a fresh build would.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from graphrag_ui.embedding.embed import Embedder
from graphrag_ui.embedding.embed_checks import check_rows
from graphrag_ui.index.embed_texts import embed_stage, texts_to_embed
from graphrag_ui.index.model import Index, VectorTable

Progress = Callable[[str, int, int], None]


def embed_index(index: Index, embedder: Embedder, progress: Progress | None = None) -> dict[str, VectorTable]:
    """One VectorTable per kind, rows in table order; every reply checked (``embed_checks``) before it is kept."""
    out: dict[str, VectorTable] = {}
    for kind, (ids, texts) in texts_to_embed(index).items():
        stage = embed_stage(kind)
        if progress:
            progress(stage, 0, len(texts))
        if texts:
            report = (lambda d, t, s=stage: progress(s, d, t)) if progress else None
            dim = next((t.matrix.shape[1] for t in out.values() if t.matrix.shape[1]), None)
            matrix = check_rows(embedder.embed(texts, report), texts, embedder=embedder.id, dim=dim, ids=ids)
        else:
            matrix = np.zeros((0, embedder.dim), dtype=np.float32)
        out[kind] = VectorTable(list(ids), matrix)
    return out
