"""``python -m graphrag_ui query --index DIR --mode MODE [...] "QUESTION"`` and its ``--batch`` form."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from graphrag_ui.errors import UserError
from graphrag_ui.query import run_query
from graphrag_ui.retrieval.registry import MODE_MODULES
from graphrag_ui.retrieval.result import KINDS, Retrieval


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def _params(pairs: list[str]) -> dict[str, str]:
    params = {}
    for pair in pairs:
        if "=" not in pair:
            raise UserError(f"--param expects name=value, got {pair!r}")
        name, value = pair.split("=", 1)
        params[name.strip()] = value.strip()
    return params


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("question", nargs="?", help="the question (omit with --batch)")
    parser.add_argument("--index", required=True, help="index directory (e.g. data/sample/en/index)")
    parser.add_argument("--mode", choices=list(MODE_MODULES), default="nano.local")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a mode parameter")
    parser.add_argument("--recall", choices=["vector", "ilike", "hybrid"], help="entity recall strategy")
    parser.add_argument("--hl", help="high-level keywords, comma-separated (LightRAG modes)")
    parser.add_argument("--ll", help="low-level keywords, comma-separated (LightRAG modes)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--context-only", action="store_true", help="print exactly the context string")
    out.add_argument("--json", action="store_true", help="print the Retrieval as JSON")
    parser.add_argument("--batch", help="JSONL file of cases: mode, query, params, hl_keywords, ll_keywords, recall")
    parser.add_argument("--out", help="JSONL results file for --batch (default: stdout)")
    parser.add_argument("--no-cache", action="store_true", help="do not use the answer cache")


def _load(path: str):
    from graphrag_ui.index import store

    return store.load(path)


def _case_result(index, case: dict[str, Any]) -> dict[str, Any]:
    params = dict(case.get("params") or {})
    if case.get("recall"):
        params["recall"] = case["recall"]
    start = time.perf_counter()
    result = run_query(
        index,
        case.get("mode", "nano.local"),
        case["query"],
        params,
        hl=case.get("hl_keywords"),
        ll=case.get("ll_keywords"),
    )
    total = (time.perf_counter() - start) * 1000
    return {
        **case,
        "context": result.context,
        "selected": {kind: result.selected_ids(kind) for kind in KINDS},
        "keywords": {"hl": result.keywords.hl, "ll": result.keywords.ll, "source": result.keywords.source},
        "warnings": result.warnings,
        "timings_ms": {**result.timings_ms, "total": round(total, 3)},
    }


def run_batch(index, cases_path: str, out_path: str | None) -> int:
    path = Path(cases_path)
    if not path.is_file():
        raise UserError("no such file", where=cases_path)
    sink = open(out_path, "w", encoding="utf-8") if out_path else sys.stdout
    failures = 0
    try:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
                if not isinstance(case, dict) or "query" not in case:
                    raise UserError("each line needs a JSON object with at least 'query'")
                row = _case_result(index, case)
            except (UserError, json.JSONDecodeError) as exc:
                failures += 1
                row = {"line": number, "error": f"{cases_path}:{number}: {exc}"}
            sink.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        if out_path:
            sink.close()
    if failures:
        print(f"{failures} case(s) failed; see the 'error' fields", file=sys.stderr)
    return 1 if failures else 0


def _summary(result: Retrieval) -> str:
    lines = [f"mode {result.mode} · {result.query!r}"]
    if result.keywords.source:
        lines.append(f"keywords ({result.keywords.source}): hl={result.keywords.hl} ll={result.keywords.ll}")
    for kind in KINDS:
        items = result.candidates(kind)
        kept = sum(1 for c in items if c.in_context)
        lines.append(f"{kind:<12} {kept} in context, {len(items) - kept} dropped")
    for budget in result.budgets:
        limit = "∞" if budget.limit is None else budget.limit
        lines.append(f"budget {budget.section:<14} {budget.used}/{limit} tokens")
    lines.append("timings " + ", ".join(f"{k} {v:.1f} ms" for k, v in result.timings_ms.items()))
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    index = _load(args.index)
    if args.batch:
        return run_batch(index, args.batch, args.out)
    if not args.question:
        raise UserError("give a question, or --batch CASES.jsonl")
    params = _params(args.param)
    if args.recall:
        params["recall"] = args.recall
    settings = None
    if not (args.context_only or args.json):
        from graphrag_ui.llm.settings import LLMSettings

        settings = LLMSettings.from_env_and_secrets()
    result = run_query(
        index, args.mode, args.question, params, hl=_split(args.hl), ll=_split(args.ll), llm_settings=settings
    )
    if args.context_only:
        sys.stdout.write(result.context)
        return 0
    if args.json:
        print(result.to_json())
        return 0
    print(_summary(result))
    return _answer(result, settings, use_cache=not args.no_cache)


def _answer(result: Retrieval, settings, use_cache: bool) -> int:
    from graphrag_ui.llm import answer as answering

    if settings is None or not settings.configured:
        print("\n--- prompt that would be sent ---")
        for message in result.messages:
            print(f"[{message['role']}]\n{message['content']}\n")
        print(answering.describe_unconfigured())
        return 0
    print("\n--- answer ---")
    reply = answering.answer(
        result, settings, stream=True, on_token=lambda t: (sys.stdout.write(t), sys.stdout.flush()), use_cache=use_cache
    )
    print()
    if reply.error:
        print(f"error: {reply.error}", file=sys.stderr)
        return 2
    cost = "unknown" if reply.cost_usd is None else f"${reply.cost_usd:.5f}"
    hit = " (cached)" if reply.cached else ""
    print(f"--- {reply.model}{hit}: {reply.prompt_tokens} prompt + {reply.answer_tokens} answer tokens, cost {cost}")
    return 0
