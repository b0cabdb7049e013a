"""New vectors for an existing index (the ``reembed`` command: ``graphrag_ui.cli.reembed``).

Why: an imported index may carry vectors of a model we cannot run offline (or say "unknown"),
and a query must be embedded by the same model as the index. Re-embedding replaces the vectors
of all four kinds with the chosen embedder and rewrites the index atomically (``store.save``),
updating the manifest's ``embedder``, ``dimension`` and ``vector_sources``.

Which rows: every row of every kind gets a vector. A kind that already has vectors keeps its row
order (nano-vectordb's tie order depends on it), rows it lacked are added after them in table order,
and vector ids that name no row are dropped (they have no text to embed: an import that kept them
cannot be helped by importing again). The text of each row comes from ``embed_texts`` in the style
of the index's source (``--style`` overrides it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from graphrag_ui.embedding.embed import get_embedder
from graphrag_ui.embedding.embed_checks import check_rows
from graphrag_ui.index import embed_texts, store
from graphrag_ui.index.coverage import row_ids
from graphrag_ui.index.model import VECTOR_KINDS, Index, VectorTable

Progress = Callable[[str, int, int], None]  # (stage, done, total)


def _rows_to_embed(index: Index, kind: str) -> list[str]:
    """The kind's vector ids that name a row, in their order, then every row without a vector."""
    rows = row_ids(index, kind)
    known = set(rows)
    table = index.vectors.get(kind)
    kept = list(dict.fromkeys(i for i in (table.ids if table is not None else []) if i in known))
    have = set(kept)
    return kept + [i for i in rows if i not in have]


def reembed_index(
    index: Index, embedder_name: str, progress: Progress | None = None, style: str | None = None
) -> Index:
    """Replace ``index.vectors`` (in memory) with vectors from ``embedder_name``; returns ``index``."""
    embedder = get_embedder(embedder_name)
    style = style or embed_texts.style_for(index.manifest.source)
    new: dict[str, VectorTable] = {}
    empty: list[str] = []
    for kind in VECTOR_KINDS:
        ids, texts = embed_texts.texts_for(index, kind, _rows_to_embed(index, kind), style)
        if not texts:
            empty.append(kind)
            continue
        stage = embed_texts.embed_stage(kind)
        if progress:
            progress(stage, 0, len(texts))
        report = (lambda d, t, s=stage: progress(s, d, t)) if progress else None
        # checked before anything is kept: a bad reply leaves the index on disk as it was
        dim = next((t.matrix.shape[1] for t in new.values()), None)
        matrix = check_rows(embedder.embed(texts, report), texts, embedder=embedder.id, dim=dim, ids=ids)
        new[kind] = VectorTable(ids, matrix)  # the embedder reported the last batch (done == total)
    dim = next((t.matrix.shape[1] for t in new.values()), int(embedder.dim or 0))
    for kind in empty:
        new[kind] = VectorTable([], np.zeros((0, dim), dtype=np.float32))
    index.close()  # what was worked out from the old vectors goes with them
    index.vectors = new
    index.manifest.embedder = embedder.id
    index.manifest.dimension = int(dim)
    index.manifest.vector_sources = {kind: f"re-embedded with {embedder.id} ({style} texts)" for kind in new}
    return index


def reembed(
    index_dir: str | Path, embedder_name: str, progress: Progress | None = None, style: str | None = None
) -> Index:
    """Load the index at ``index_dir``, re-embed it and save it back atomically; returns the new index."""
    store.check_servers()
    index = store.load(index_dir, finite_vectors=False)  # every vector is replaced: NaN ones are what it repairs
    reembed_index(index, embedder_name, progress, style)
    store.save(index, index_dir, progress)
    return store.load(index_dir)
