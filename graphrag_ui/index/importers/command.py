"""``python -m graphrag_ui import {nano|lightrag|msgraphrag|auto} SRC_DIR --out INDEX_DIR [--embedder NAME]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graphrag_ui.errors import UserError
from graphrag_ui.gc_pause import paused_gc
from graphrag_ui.i18n import msg
from graphrag_ui.index.importers import IMPORTERS, detect, importer
from graphrag_ui.index.model import Index
from graphrag_ui.index.row_checks import check_rows
from graphrag_ui.progress import ProgressFn, TextProgress
from graphrag_ui.terminal import said


def import_source(
    kind: str,
    src: str | Path,
    out: str | Path,
    embedder: str | None = None,
    progress: ProgressFn | None = None,
    chroma: bool = False,
) -> tuple[str, Index]:
    """Import ``src`` into a new index at ``out``; returns the detected kind and the index.

    The source is read and validated completely before anything is written, and the store writes
    atomically, so a bad source leaves ``out`` untouched. Chroma collections are written only with
    ``chroma=True`` or a configured chroma server: retrieval reads the ``.npy`` mirror, and building
    chroma's graph was most of an import's time.
    """
    from graphrag_ui.index import store

    src_path, out_path = Path(src), Path(out)
    store.check_servers()
    if kind == "auto":
        kind = detect(src_path)
    elif not src_path.is_dir():
        raise UserError(msg("not a directory"), where=str(src_path), fix=msg("give the working/output directory"))
    if out_path.resolve() == src_path.resolve():
        raise UserError(msg("--out must differ from the source directory"), where=str(out_path))
    with paused_gc():  # 10⁵–10⁶ rows and lookups, none of them garbage: 10k LightRAG 7.2-7.9 -> 4.9-5.2 s
        index = importer(kind).import_dir(src_path, embedder=embedder, progress=progress)
        _check_rows(index)
        store.save(index, out_path, progress=progress, chroma=chroma)
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


def import_warnings(index) -> list[str]:
    """What the importer noticed but could work around (missing vector files, empty report stores, ...).

    Each is the importer's message as written (translatable); read back from a manifest, plain English."""
    found = index.manifest.settings.get("import_warnings") or []
    return [w if isinstance(w, str) else str(w) for w in found] if isinstance(found, list) else []


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=["auto", *IMPORTERS], help="layout of the source directory")
    parser.add_argument("src", help="nano-graphrag / LightRAG working dir, or GraphRAG output dir")
    parser.add_argument("--out", required=True, help="folder of the new canonical index")
    parser.add_argument(
        "--embedder",
        default=None,
        help="embedder that made the source's vectors (e.g. hash, litellm:text-embedding-3-small); "
        "without it the index says 'unknown' and a query asks for it",
    )
    parser.add_argument(
        "--chroma",
        action="store_true",
        help="also write the vectors into chroma collections under INDEX_DIR/chroma for other tools "
        "(always done when CHROMA_HOST names a chroma server; retrieval itself never reads chroma)",
    )


def run(args: argparse.Namespace) -> int:
    kind, index = import_source(args.kind, args.src, args.out, args.embedder, TextProgress(), args.chroma)
    if args.kind == "auto":
        print(f"detected: {kind}")
    counts = ", ".join(f"{v} {k}" for k, v in index.counts().items())
    print(f"imported {index.manifest.source} index into {args.out}: {counts}")
    for warning in import_warnings(index):
        print(f"warning: {said(warning)}", file=sys.stderr)
    if index.manifest.embedder == "unknown":
        print(
            "note: the embedder of the source vectors is unknown; pass --embedder, or re-embed with "
            f"`python -m graphrag_ui reembed {args.out} --embedder use-m3`"
        )
    return 0
