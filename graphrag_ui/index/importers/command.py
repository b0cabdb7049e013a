"""``python -m graphrag_ui import {nano|lightrag|msgraphrag|auto} SRC_DIR --out INDEX_DIR [--embedder NAME]``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.gc_pause import paused_gc
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.progress import ProgressFn
from graphrag_ui.index.importers import detect, importer
from graphrag_ui.index.model import Index
from graphrag_ui.index.row_checks import check_rows


def import_source(
    kind: str,
    src: str | Path,
    out: str | Path,
    embedder: str | None = None,
    progress: ProgressFn | None = None,
    chroma: bool = False,
    guard: Any = None,
    replace: bool = True,
) -> tuple[str, Index]:
    """Import ``src`` into a new index at ``out``; returns the detected kind and the index.

    The source is read and validated completely before anything is written, and the store writes
    atomically, so a bad source leaves ``out`` untouched. Chroma collections are written only with
    ``chroma=True`` or a configured chroma server: retrieval reads the ``.npy`` mirror, and building
    chroma's graph was most of an import's time.

    ``guard`` (the operator's ``access.Access``): the source was typed in a browser, so a folder must lie
    under an allowed root (refused before anything looks at it) and a database URL is read strictly;
    ``replace=False``: never over an index that is at ``out`` by the time the import is saved.
    """
    from graphrag_ui.embedding.embed import check_name
    from graphrag_ui.index import store

    if embedder is not None:  # None: not said (the manifest says "unknown"); "" or a typo: refused
        embedder = check_name(embedder)
    from graphrag_ui.index.importers import lightrag_pg

    store.check_servers()
    if lightrag_pg.is_url(src):  # a LightRAG Server workspace in PostgreSQL
        if kind not in ("auto", "lightrag"):
            raise UserError(msg("a postgresql:// source is a LightRAG workspace: use the kind lightrag or auto"))
        with paused_gc():
            index = lightrag_pg.import_url(str(src), embedder=embedder, progress=progress, guard=guard)
            _check_rows(index)
            check_dimension(index, lightrag_pg.shown(str(src)))
            store.save(index, Path(out), progress=progress, chroma=chroma, replace=replace)
        return "lightrag", index
    src_path, out_path = (guard.source(src) if guard is not None else Path(src)), Path(out)
    if kind == "auto":
        kind = detect(src_path)
    elif not src_path.is_dir():
        raise UserError(msg("not a directory"), where=str(src_path), fix=msg("give the working/output directory"))
    if out_path.resolve() == src_path.resolve():
        raise UserError(msg("--out must differ from the source directory"), where=str(out_path))
    with paused_gc():  # 10⁵–10⁶ rows and lookups, none of them garbage: 10k LightRAG 7.2-7.9 -> 4.9-5.2 s
        index = importer(kind).import_dir(src_path, embedder=embedder, progress=progress)
        _check_rows(index)
        check_dimension(index, src_path)
        store.save(index, out_path, progress=progress, chroma=chroma, replace=replace)
    return kind, index


def _check_rows(index: Index) -> None:
    """Bad single rows of the source (``row_checks``) are repaired as said and kept as import warnings."""
    rows = {name: getattr(index, name) for name in ("documents", "chunks", "entities", "relations", "communities")}
    problems = check_rows(rows, index.vectors)
    if problems:
        for name, kept in rows.items():
            setattr(index, name, kept)
        index.refresh()
        found = index.manifest.settings.get("import_warnings")
        index.manifest.settings["import_warnings"] = [*(found if isinstance(found, list) else []), *problems]


def check_dimension(index: Index, src: Path | str) -> None:
    """A named embedder of known width must match the stored vectors (a litellm model is checked at
    its first query, when its width is known)."""
    from graphrag_ui.embedding.embed import KNOWN_DIMS

    want = KNOWN_DIMS.get(index.manifest.embedder)
    have = next((t.matrix.shape[1] for t in index.vectors.values() if len(t)), 0)
    if want and have and want != have:
        raise UserError(
            msg(
                "the stored vectors are {have}-dimensional but embedder {embedder} makes {want}-dimensional ones",
                have=have,
                embedder=repr(index.manifest.embedder),
                want=want,
            ),
            where=str(src),
            fix=msg("pass the embedder that built the source, or omit --embedder and re-embed after import"),
        )


def import_warnings(index) -> list[str]:
    """What the importer noticed but could work around (missing vector files, empty report stores, ...).

    Each is the importer's message as written (translatable); read back from a manifest, plain English."""
    found = index.manifest.settings.get("import_warnings") or []
    return [w if isinstance(w, str) else str(w) for w in found] if isinstance(found, list) else []
