"""``python -m graphrag_ui sweep --index DIR --mode MODE --param top_k=5:80:5 [...] "QUESTION"``.

The ``--param`` whose value is a range (``START:STOP:STEP`` or ``a,b,c``) is swept; the others are fixed.
Prints one row per step (items per kind in the context, tokens, what entered and left against the step
before), then every item with the value at which it enters and leaves; ``--csv`` / ``--json`` write
the same to a file (``-`` for stdout). Context only: no answer, no map calls.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

from graphrag_ui.base import csv_cells
from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.terminal import safe_text
from graphrag_ui.cli.batch import check_mode, split_words
from graphrag_ui.cli.query import _emit, _load, _params
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.retrieval.registry import MODE_MODULES, get_mode
from graphrag_ui.services.sweep import Sweep, parse_values, run_sweep


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("question", help="the question")
    parser.add_argument("--index", required=True, help="index directory (e.g. data/sample/en/index)")
    parser.add_argument("--mode", required=True, help=", ".join(MODE_MODULES))
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a mode parameter; exactly one holds a range to sweep: NAME=START:STOP:STEP or NAME=a,b,c",
    )
    parser.add_argument("--recall", choices=["vector", "ilike", "hybrid"], help="entity recall strategy")
    parser.add_argument("--hl", help="high-level keywords, comma-separated (LightRAG modes)")
    parser.add_argument("--ll", help="low-level keywords, comma-separated (LightRAG modes)")
    parser.add_argument("--csv", metavar="FILE", help="write one row per step as CSV (- for stdout)")
    parser.add_argument("--json", metavar="FILE", help="write the whole sweep as JSON (- for stdout)")


def _split_range(pairs: dict[str, str]) -> tuple[str, str, dict[str, str]]:
    ranged = [name for name, value in pairs.items() if ":" in value or "," in value]
    if len(ranged) != 1:
        raise UserError(
            "give exactly one --param with a range to sweep"
            if not ranged
            else f"more than one range: {', '.join(ranged)}",
            fix="e.g. --param top_k=5:80:5 (START:STOP:STEP) or --param top_k=5,10,20",
        )
    name = ranged[0]
    fixed = {k: v for k, v in pairs.items() if k != name}
    return name, pairs[name], fixed


def step_rows(sweep: Sweep) -> list[dict]:
    """One row per step: value, items per kind, tokens, and the labels that entered / left since the step before."""
    rows = []
    for i, step in enumerate(sweep.steps):
        entered = [it for it in sweep.items if it.present[i] and (i == 0 or not it.present[i - 1])]
        left = [it for it in sweep.items if i > 0 and it.present[i - 1] and not it.present[i]]
        row = {sweep.param: step.value, **{k: step.counts[k] for k in KINDS}, "tokens": step.tokens}
        row.update({f"tokens {s}": n for s, n in step.sections.items()})
        row["entered"] = "; ".join(f"{it.kind}:{it.label}" for it in entered) if i else ""
        row["left"] = "; ".join(f"{it.kind}:{it.label}" for it in left)
        rows.append(row)
    return rows


def _csv_text(sweep: Sweep) -> str:
    rows = step_rows(sweep)
    fields = list(dict.fromkeys(k for row in rows for k in row))
    # item labels are index text: no cell a spreadsheet runs as a formula
    return csv_cells.rows_text(fields, ([row.get(f, "") for f in fields] for row in rows))


def check_target(flag: str, target: str | None) -> None:
    """An output file the sweep can write, checked before the sweep runs rather than after it."""
    if not target or target == "-":
        return
    path = Path(target)
    fix = msg("name a file in an existing folder you can write, e.g. {flag} sweep.csv", flag=flag)
    if path.is_dir():
        raise UserError(msg("{flag} names a folder, not a file", flag=flag), where=target, fix=fix)
    parent = path.parent
    if not parent.is_dir():
        raise UserError(msg("{flag}: the folder {parent} does not exist", flag=flag, parent=str(parent)), target, fix)
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(msg("{flag}: the file cannot be written here (permission denied)", flag=flag), target, fix)


def _write(target: str, text: str) -> None:
    if target == "-":
        _emit(text)
        return
    try:
        with open(target, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    except OSError as exc:
        raise UserError(
            msg("cannot write the file ({error})", error=exc.strerror or type(exc).__name__), where=target
        ) from None


def _print_table(sweep: Sweep) -> None:
    print(f"{sweep.mode} · {sweep.param} over {len(sweep.values)} value(s) · {safe_text(sweep.query, one_line=True)}")
    header = f"{sweep.param:>12} " + " ".join(f"{k:>11}" for k in KINDS) + f" {'tokens':>8}  entered / left"
    print(header)
    for i, step in enumerate(sweep.steps):
        entered = sum(1 for it in sweep.items if it.present[i] and i and not it.present[i - 1])
        left = sum(1 for it in sweep.items if i and it.present[i - 1] and not it.present[i])
        counts = " ".join(f"{step.counts[k]:>11}" for k in KINDS)
        print(f"{step.value!s:>12} {counts} {step.tokens:>8}  +{entered} / -{left}")
    print()
    print(f"items ({len(sweep.items)}): kind, label, enters at, leaves at")
    for it in sweep.items:
        enters = sweep.values[it.enters] if it.enters is not None else "-"
        leaves = sweep.values[it.leaves] if it.leaves is not None else "-"
        print(f"  {it.kind:<11} {safe_text(it.label, one_line=True)[:60]:<60} {enters!s:>8} {leaves!s:>8}")


def run(args: argparse.Namespace) -> int:
    check_mode(args.mode)
    name, raw, fixed = _split_range(_params(args.param))
    spec = get_mode(args.mode)
    param = next((p for p in spec.params if p.name == name), None)
    if param is None or param.type not in {"int", "float"}:
        numeric = [p.name for p in spec.params if p.type in {"int", "float"}]
        raise UserError(f"{args.mode} has no numeric parameter {name}", fix=f"sweep one of: {', '.join(numeric)}")
    values = parse_values(param.type, raw, param)  # bounded and finite before anything runs
    check_target("--csv", args.csv)
    check_target("--json", args.json)
    if args.recall:
        fixed["recall"] = args.recall
    index = _load(args.index)

    def progress(done: int, total: int) -> None:
        print(f"sweep {name}: {done}/{total}", file=sys.stderr, flush=True)

    sweep = run_sweep(
        index,
        args.mode,
        args.question,
        fixed,
        name,
        values,
        hl=split_words(args.hl),
        ll=split_words(args.ll),
        progress=progress,
    )
    if args.csv:
        _write(args.csv, _csv_text(sweep))
    if args.json:
        _write(args.json, json.dumps(asdict(sweep), ensure_ascii=False, indent=2, default=str) + "\n")
    if "-" not in (args.csv, args.json):
        _print_table(sweep)
    return 0
