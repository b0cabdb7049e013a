"""``python -m graphrag_ui build DOCS_DIR --out INDEX_DIR [--llm MODEL | --llm replay:CACHE.json | --extractor offline]``.

With ``--llm MODEL`` every answer is kept in a cache file (default ``INDEX_DIR.llm_cache.json``
beside the index), so an interrupted build resumes where it stopped and a finished one can be
rebuilt with no model at all: ``--llm replay:INDEX_DIR.llm_cache.json``.
"""

from __future__ import annotations

import argparse
import sys

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.progress import TextProgress
from graphrag_ui.base.terminal import said
from graphrag_ui.index.builder.pipeline import build, default_cache_path

REPLAY = "replay:"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("docs_dir", help="folder of .txt/.md documents (UTF-8)")
    parser.add_argument("--out", required=True, help="folder of the new index")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--llm", help="litellm model name (e.g. gpt-4o-mini, ollama/qwen2.5), or replay:CACHE.json")
    source.add_argument("--extractor", choices=["llm", "offline"], help="offline: no LLM (heuristics and jieba)")
    parser.add_argument("--api-base", help="API base URL of the model server (e.g. http://127.0.0.1:11434)")
    parser.add_argument("--cache", help="LLM cache file (default: INDEX_DIR.llm_cache.json beside the index)")
    parser.add_argument("--chunk-size", type=int, default=1200, help="tokens per chunk (o200k_base)")
    parser.add_argument("--chunk-overlap", type=int, default=100, help="tokens shared by consecutive chunks")
    parser.add_argument("--embedder", default="use-m3", help="use-m3 (default), chroma-minilm, litellm:<model>, hash")
    parser.add_argument("--gleaning", type=int, default=1, help="extra extraction passes per chunk (LLM only)")
    parser.add_argument("--max-cluster-size", type=int, default=10, help="Leiden splits larger communities")
    parser.add_argument("--seed", type=lambda s: int(s, 0), default=0xDEADBEEF, help="Leiden seed")
    parser.add_argument("--llm-workers", type=int, default=4, help="parallel LLM calls (real models only)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--allow-empty", action="store_true", help="save the index even when no entity was found")


def run(args: argparse.Namespace) -> int:
    kwargs: dict = {
        "chunk_size": args.chunk_size,
        "chunk_overlap": args.chunk_overlap,
        "embedder": args.embedder,
        "gleaning": args.gleaning,
        "max_cluster_size": args.max_cluster_size,
        "seed": args.seed,
        "on_warning": lambda msg: print(f"warning: {said(msg, one_line=True)}", file=sys.stderr),
        "progress": None if args.quiet else TextProgress(),
        "allow_empty": args.allow_empty,
    }
    if args.extractor == "offline":
        kwargs["extractor"] = "offline"
    elif args.llm and args.llm.startswith(REPLAY):
        path = args.llm[len(REPLAY) :] or args.cache
        if not path:
            raise UserError(
                msg("--llm replay: needs a cache file"), fix=msg("e.g. --llm replay:INDEX_DIR.llm_cache.json")
            )
        kwargs.update(extractor="llm", replay=True, cache_path=path)
    elif args.llm:
        from graphrag_ui.index.builder.llm_adapter import llm_for_model

        cache = args.cache or str(default_cache_path(args.out))
        kwargs.update(
            extractor="llm",
            llm=llm_for_model(args.llm, args.api_base),
            llm_id=args.llm,
            cache_path=cache,
            llm_workers=args.llm_workers,
        )
    else:
        raise UserError(
            msg("choose how entities are extracted"),
            fix=msg("pass --llm MODEL, --llm replay:CACHE.json or --extractor offline"),
        )
    index = build(args.docs_dir, args.out, **kwargs)
    counts = ", ".join(f"{v} {k}" for k, v in index.counts().items() if not k.startswith("vectors."))
    print(f"built {args.out}: {counts} (embedder {index.manifest.embedder}, language {index.manifest.language or '?'})")
    if kwargs.get("cache_path") and not kwargs.get("replay"):
        print(
            f"LLM answers cached in {kwargs['cache_path']} (rebuild offline with --llm replay:{kwargs['cache_path']})"
        )
    return 0
