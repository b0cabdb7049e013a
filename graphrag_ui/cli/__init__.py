"""``python -m graphrag_ui build|import|reembed|query|sweep|eval``.

Each subcommand is one module of this package (``add_arguments`` and ``run``) over the code it drives;
this file only dispatches and turns user errors into one clear line on stderr (exit 2).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.terminal import said

COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("graphrag_ui.cli.build", "build an index from a folder of .txt/.md documents"),
    "import": ("graphrag_ui.cli.import_index", "import a nano-graphrag / LightRAG / GraphRAG directory"),
    "reembed": ("graphrag_ui.cli.reembed", "re-embed an index's vectors with another embedder"),
    "query": ("graphrag_ui.cli.query", "run a retrieval mode (and the LLM answer) for a question"),
    "sweep": ("graphrag_ui.cli.sweep", "run a mode across a range of one parameter: what enters and leaves"),
    "eval": ("graphrag_ui.cli.evaluate", "score modes and a parameter range against a question set's gold evidence"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m graphrag_ui",
        description="The GraphRAG Retrieval Explorer on the command line: build, import, re-embed, query, sweep, eval.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {}
    wanted = (argv if argv is not None else sys.argv[1:])[:1]
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        if wanted and wanted[0] != name:
            continue  # import only the module of the command being run
        module = importlib.import_module(module_name)
        module.add_arguments(p)
        modules[name] = module
    args = parser.parse_args(argv)
    try:
        return int(modules[args.command].run(args) or 0)
    except UserError as exc:
        print(f"error: {said(str(exc), one_line=True)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
