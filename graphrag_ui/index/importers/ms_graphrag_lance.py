"""GraphRAG's LanceDB tables: which table holds which vectors, how to read them, how LanceDB scores them.

A ``.lance`` folder is not Arrow IPC (data files, deletion files, manifests), so it is read through
the ``lancedb`` package, already a runtime dependency and the lightest reader that gets deletions
right (3.x deletes a dummy row it used to create the index). Only ``id`` and ``vector`` are read.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg
from graphrag_ui.index.importers import lance_manifest
from graphrag_ui.index.model import VectorTable

# vector kind -> (2.x table, 3.x table)
LANCE_TABLES = {
    "entities": ("default-entity-description", "entity_description"),
    "chunks": ("default-text_unit-text", "text_unit_text"),
    "communities": ("default-community-full_content", "community_full_content"),
}
# How LanceDB scores each layout (see docs/differences/ms.md): 2.x tables are searched through their
# IVF_FLAT index, 3.x rows are added after the index was built and are flat-scanned.
LANCE_KERNEL = {"graphrag-1": "flat", "graphrag-2": "ivf_flat", "graphrag-3": "flat"}
# Tables without a vector index written by an older Lance (GraphRAG 2.0–2.3: lancedb 0.17, pylance
# 0.20) are flat-scanned and their distance ties come out in TopK heap order (retrieval/ms/lance_topk.py).
# Measured (scripts/goldens/lance_ties.py): pylance 0.20, 0.24, 0.30, 0.32 order ties by the heap;
# 0.33, 0.35, 0.39, 1.0, 4.0, 10.0 by row (all with the same 16-lane ``flat`` distances).
TOPK_TIES_BEFORE = (0, 33)


def lance_dir_of(folder: Path, layout: str, kind: str) -> Path:
    two, three = LANCE_TABLES[kind]
    return folder / "lancedb" / f"{three if layout == 'graphrag-3' else two}.lance"  # 1.x used 2.x's names


def lance_kernel(layout: str, lance_dir: Path | None) -> tuple[str, str]:
    """(kernel, writer) for the entity table: how its LanceDB computes and orders distances, decided by
    the Lance version the table's own manifest names (not by the folder layout alone)."""
    if lance_dir is None:
        return LANCE_KERNEL[layout], "unknown"
    try:
        writer = lance_manifest.writer_version(lance_dir)
    except (OSError, ValueError, struct.error, IndexError) as exc:
        raise IndexFormatError(
            msg("cannot read the Lance manifest: {error}", error=str(exc)),
            where=str(lance_dir / "_versions"),
            fix=msg("the table is damaged: re-run `graphrag index`, or move lancedb/ away to import without vectors"),
        ) from None
    if writer is None:
        return LANCE_KERNEL[layout], "unknown"
    library, version = writer
    indexed = (lance_dir / "_indices").is_dir()
    if library == "lance" and not indexed and lance_manifest.version_tuple(version) < TOPK_TIES_BEFORE:
        return "flat_topk", f"{library} {version}"
    return LANCE_KERNEL[layout], f"{library} {version}"


def read_vectors(folder: Path, layout: str) -> tuple[dict[str, VectorTable], dict[str, str]]:
    """LanceDB tables of the layout -> (kind -> VectorTable, kind -> where it came from)."""
    db_dir = folder / "lancedb"
    if not db_dir.is_dir():
        return {}, {}
    import lancedb

    db = None
    tables: dict[str, VectorTable] = {}
    sources: dict[str, str] = {}
    for kind in LANCE_TABLES:
        lance_dir = lance_dir_of(folder, layout, kind)
        name = lance_dir.stem
        if not lance_dir.is_dir():
            continue
        try:
            db = db or lancedb.connect(str(db_dir))
            arrow = db.open_table(name).to_arrow().select(["id", "vector"])
        except Exception as exc:
            raise IndexFormatError(
                msg("cannot read LanceDB table: {error}", error=str(exc).splitlines()[0][:160]), where=str(lance_dir)
            ) from None
        ids = [str(i) for i in arrow.column("id").to_pylist()]
        matrix = _matrix(arrow.column("vector").combine_chunks(), lance_dir)
        tables[kind] = VectorTable(ids=ids, matrix=matrix)
        sources[kind] = f"lancedb:{name}"
    dims = {kind: t.matrix.shape[1] for kind, t in tables.items() if len(t)}
    if len(set(dims.values())) > 1:
        raise IndexFormatError(
            msg("LanceDB tables disagree on the vector dimension: {dims}", dims=str(dims)), where=str(db_dir)
        )
    return tables, sources


def _matrix(col, where: Path) -> np.ndarray:
    """A vector column as an (n, dim) float32 matrix, column-wise (no Python lists)."""
    import pyarrow as pa

    if col.null_count:
        raise IndexFormatError(msg("{null_count} row(s) have no vector", null_count=col.null_count), where=str(where))
    if pa.types.is_fixed_size_list(col.type):
        dim = col.type.list_size
    elif pa.types.is_list(col.type) or pa.types.is_large_list(col.type):  # early 2.x: list<double>
        lengths = np.diff(col.offsets.to_numpy())
        if len(set(lengths.tolist())) > 1:
            raise IndexFormatError(
                msg("vectors of different dimensions {lengths}", lengths=str(sorted(set(lengths.tolist())))),
                where=str(where),
            )
        dim = int(lengths[0]) if len(lengths) else 0
    else:
        raise IndexFormatError(
            msg("the vector column has type {col}, not a list of floats", col=str(col.type)), where=str(where)
        )
    flat = col.flatten().to_numpy(zero_copy_only=False)
    return np.asarray(flat, dtype=np.float32).reshape(len(col), dim)
