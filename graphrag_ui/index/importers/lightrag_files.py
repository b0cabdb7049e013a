"""LightRAG's nano-vectordb files (the GraphML and key-value readers are shared with nano-graphrag).

The reader validates as it goes and raises ``IndexFormatError`` naming the file and the problem,
so the importer can promise "nothing written unless everything parsed".
"""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg
from graphrag_ui.index.importers.workdir_files import normalise_rows, read_json


def read_vdb(path: Path, id_field: str = "__id__") -> tuple[list[dict], np.ndarray, int]:
    """Rows (without the matrix) and the float32 matrix of a nano-vectordb file, in row order, re-normalised."""
    data = read_json(path)
    if not isinstance(data, dict) or "data" not in data or "embedding_dim" not in data:
        raise IndexFormatError(msg("not a nano-vectordb file (needs embedding_dim, data, matrix)"), where=str(path))
    rows, dim = data["data"], data["embedding_dim"]
    if not isinstance(rows, list) or not isinstance(dim, int) or dim <= 0:
        raise IndexFormatError(msg("data must be a list and embedding_dim a positive integer"), where=str(path))
    try:
        raw = base64.b64decode(data.get("matrix") or "", validate=True)
    except (ValueError, TypeError):
        raise IndexFormatError(msg("matrix is not valid base64"), where=str(path)) from None
    if raw and (len(raw) % 4 or (len(raw) // 4) % dim):
        raise IndexFormatError(
            msg(
                "matrix of {raw} bytes is not a whole number of vectors of dimension {dim} "
                "(wrong embedding_dim or a truncated file)",
                raw=len(raw),
                dim=dim,
            ),
            where=str(path),
        )
    matrix = np.frombuffer(raw, dtype=np.float32).reshape(-1, dim) if raw else np.zeros((0, dim), np.float32)
    if matrix.shape[0] != len(rows):
        raise IndexFormatError(
            msg(
                "matrix has {shape} vectors of dimension {dim} but data has {rows} rows "
                "(wrong dimension or a truncated file)",
                shape=matrix.shape[0],
                dim=dim,
                rows=len(rows),
            ),
            where=str(path),
        )
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or id_field not in row:
            raise IndexFormatError(msg("row {i} has no {id_field}", i=i, id_field=id_field), where=str(path))
    return rows, normalise_rows(matrix), dim  # as nano-vectordb holds it after loading
