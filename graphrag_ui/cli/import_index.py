"""``python -m graphrag_ui import …``: import a source, then print what was found, what is missing and
which modes can run (the import report; ``graphrag_ui.services.readiness`` decides the table)."""

from __future__ import annotations

import argparse
import sys

from graphrag_ui.base.progress import TextProgress
from graphrag_ui.base.terminal import safe_text, said
from graphrag_ui.index.import_report import report
from graphrag_ui.index.importers import IMPORTERS, command
from graphrag_ui.services.readiness import READY, readiness


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


def report_lines(index) -> list[str]:
    """The import report as plain lines: found, missing, then one line per mode."""
    facts = report(index)
    lines = ["found:", *(f"  {safe_text(line)}" for line in facts.found)]
    if facts.missing:
        lines += ["missing:", *(f"  {safe_text(line)}" for line in facts.missing)]
    lines.append("modes:")
    rows = readiness(index)
    width = max(len(r.mode) for r in rows)
    for row in rows:
        why = "; ".join(safe_text(r) for r in row.reasons)
        lines.append(f"  {row.mode:<{width}}  {row.status}" + (f": {why}" if why and row.status != READY else ""))
        if why and row.status == READY:
            lines[-1] += f" ({why})"
    return lines


def run(args: argparse.Namespace) -> int:
    kind, index = command.import_source(args.kind, args.src, args.out, args.embedder, TextProgress(), args.chroma)
    if args.kind == "auto":
        print(f"detected: {kind}")
    counts = ", ".join(f"{v} {k}" for k, v in index.counts().items())
    print(f"imported {index.manifest.source} index into {args.out}: {counts}")
    for warning in command.import_warnings(index):
        print(f"warning: {said(warning)}", file=sys.stderr)
    print("\n".join(report_lines(index)))
    if index.manifest.embedder == "unknown":
        print(
            "note: the embedder of the source vectors is unknown; pass --embedder, or re-embed with "
            f"`python -m graphrag_ui reembed {args.out} --embedder use-m3`"
        )
    return 0
