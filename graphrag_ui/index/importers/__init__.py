"""Importers of reference-system directories into the canonical ``Index``.

Each module exposes ``KIND`` (the CLI name), ``detect(path) -> bool`` and
``import_dir(src, embedder=None, progress=None) -> Index``; ``import_dir`` validates everything
before returning, raising ``IndexFormatError`` that names the file and the problem.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg

IMPORTERS: dict[str, str] = {
    "nano": "graphrag_ui.index.importers.nano_graphrag",
    "lightrag": "graphrag_ui.index.importers.lightrag",
    "msgraphrag": "graphrag_ui.index.importers.ms_graphrag",
}


def importer(kind: str) -> ModuleType:
    if kind not in IMPORTERS:
        raise IndexFormatError(
            msg("unknown source kind {kind}", kind=repr(kind)),
            fix=msg("use one of: auto, {importers}", importers=", ".join(IMPORTERS)),
        )
    return importlib.import_module(IMPORTERS[kind])


def detect(src: str | Path) -> str:
    """Name of the layout found in ``src``; a clear error when none (or the folder is missing)."""
    path = Path(src)
    if not path.is_dir():
        raise IndexFormatError(msg("not a directory"), where=str(path), fix=msg("give the working/output directory"))
    if not any(path.iterdir()):
        raise IndexFormatError(msg("the directory is empty"), where=str(path))
    for kind in IMPORTERS:
        try:
            module = importer(kind)
        except ModuleNotFoundError:
            continue
        if module.detect(path):
            return kind
    raise IndexFormatError(
        msg("no nano-graphrag, LightRAG or GraphRAG index found here"),
        where=str(path),
        fix=msg(
            "nano/LightRAG: the folder with graph_chunk_entity_relation.graphml; "
            "GraphRAG: the output folder with entities.parquet"
        ),
    )
