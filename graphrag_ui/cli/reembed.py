"""``python -m graphrag_ui reembed INDEX_DIR --embedder use-m3``: new vectors for an existing index
(``graphrag_ui.index.reembed`` does the work and says why and which rows)."""

from __future__ import annotations

import argparse
from pathlib import Path

from graphrag_ui.embedding.embed import DEFAULT_EMBEDDER
from graphrag_ui.index import embed_texts
from graphrag_ui.index.reembed import reembed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("index_dir", type=Path, help="folder of an index (built or imported)")
    parser.add_argument(
        "--embedder",
        default=DEFAULT_EMBEDDER,
        help=f"embedder id: use-m3, chroma-minilm, litellm:<model> or hash (default {DEFAULT_EMBEDDER})",
    )
    parser.add_argument(
        "--style",
        choices=["auto", *embed_texts.STYLES],
        default="auto",
        help="which reference's texts to embed (auto: follow the index's source)",
    )


def run(args: argparse.Namespace) -> int:
    from graphrag_ui.base.progress import TextProgress

    style = None if args.style == "auto" else args.style
    index = reembed(args.index_dir, args.embedder, TextProgress(), style)
    counts = {k: len(v) for k, v in index.vectors.items()}
    print(f"re-embedded {args.index_dir} with {index.manifest.embedder} (dim {index.manifest.dimension}): {counts}")
    return 0
