"""``python -m graphrag_ui query --index DIR --mode MODE [...] "QUESTION"`` and its ``--batch`` form.

One question prints a summary and the prompt (or the model's answer when one is configured);
``--context-only`` prints exactly the context string (no added newline, UTF-8), ``--json`` the whole
``Retrieval``. ``--batch CASES.jsonl`` runs many cases in one process, one JSON line in, one out; a
bad line becomes an ``error`` row and the other lines still run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from graphrag_ui.errors import UserError
from graphrag_ui.i18n import msg
from graphrag_ui.progress import TextProgress
from graphrag_ui.query import run_query
from graphrag_ui.query_stages import (
    print_first_prompt,
    print_map_prompts,
    run_stages,
    staged_context,
    stages_summary,
    tree_summary,
)
from graphrag_ui.retrieval.core.result import KINDS, Retrieval
from graphrag_ui.retrieval.core.stages import FAILED
from graphrag_ui.retrieval.core.vector_engine import overlaps
from graphrag_ui.retrieval.registry import MODE_MODULES, get_mode, mode_names
from graphrag_ui.terminal import safe_text

DEFAULT_MODE = "nano.local"
CASE_FIELDS = ("mode", "query", "params", "hl_keywords", "ll_keywords", "recall")


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def _params(pairs: list[str]) -> dict[str, str]:
    params = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UserError(msg("--param expects name=value, got {pair}", pair=repr(pair)))
        params[name.strip()] = value.strip()
    return params


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("question", nargs="?", help="the question (omit with --batch)")
    parser.add_argument("--index", required=True, help="index directory (e.g. data/sample/en/index)")
    parser.add_argument("--mode", default=DEFAULT_MODE, help=f"{', '.join(MODE_MODULES)} (default {DEFAULT_MODE})")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a mode parameter")
    parser.add_argument("--recall", choices=["vector", "ilike", "hybrid"], help="entity recall strategy")
    parser.add_argument("--hl", help="high-level keywords, comma-separated (LightRAG modes)")
    parser.add_argument("--ll", help="low-level keywords, comma-separated (LightRAG modes)")
    parser.add_argument("--embedder", help="query embedder (only for an index whose manifest says 'unknown')")
    parser.add_argument(
        "--vectors",
        choices=["local", "server"],
        default="local",
        help="local: exact numpy search of the index's own vectors (default); server: the chroma server the "
        "index was saved to searches (HNSW), no vectors are loaded here",
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument(
        "--context-only",
        action="store_true",
        help="print exactly the context string (map-reduce modes: each map batch context under a header line, "
        "then the reduce context when a model ran the map calls)",
    )
    out.add_argument("--json", action="store_true", help="print the Retrieval as JSON (with its stages)")
    parser.add_argument("--batch", help="JSONL file of cases: mode, query, params, hl_keywords, ll_keywords, recall")
    parser.add_argument("--out", help="JSONL results file for --batch (default: stdout)")
    parser.add_argument("--no-cache", action="store_true", help="do not use the answer cache")


def _emit(text: str, stream: IO[str] | None = None) -> None:
    """Write ``text`` as UTF-8 bytes, unchanged (no newline, no locale encoding)."""
    stream = stream or sys.stdout
    stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text-only stream (e.g. pytest's capture): write the text itself
        stream.write(text)
    else:
        buffer.write(text.encode("utf-8"))
        buffer.flush()


def _load(path: str, vectors: str = "local"):
    from graphrag_ui.index import store

    if not Path(path).is_dir():
        raise UserError(msg("no such index folder"), where=path, fix=msg("give the folder `build` or `import` wrote"))
    return store.load(path, vectors=vectors)


def _check_mode(name: str) -> None:
    if name not in mode_names():
        get_mode(name)  # raises a clear error for an unknown or unavailable mode
        raise UserError(
            msg("mode {name} is not available", name=repr(name)),
            fix=msg("modes: {modes}", modes=", ".join(mode_names())),
        )


def _settings():
    from graphrag_ui.llm_client.settings import LLMSettings

    return LLMSettings.from_env_and_secrets()


def _keywords_field(case: dict[str, Any], name: str) -> list[str] | None:
    value = case.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        return _split(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise UserError(
        msg("'{name}' must be a list of strings or a comma-separated string, got {value}", name=name, value=repr(value))
    )


def _validate_case(case: Any, default_mode: str) -> dict[str, Any]:
    if not isinstance(case, dict):
        raise UserError(msg("each line must be a JSON object, got {kind}", kind=type(case).__name__))
    if not isinstance(case.get("query"), str):
        raise UserError(msg("each case needs a 'query' string"))
    mode = case.get("mode", default_mode)
    if not isinstance(mode, str):
        raise UserError(msg("'mode' must be a string, got {value}", value=repr(mode)))
    _check_mode(mode)
    params = case.get("params") or {}
    if not isinstance(params, dict):
        raise UserError(msg("'params' must be an object of reference field names, got {value}", value=repr(params)))
    return {"mode": mode, "params": dict(params)}


def case_result(index, case: Any, default_mode: str = DEFAULT_MODE, settings: Any = None) -> dict[str, Any]:
    """Run one batch case and return its output row (raises UserError for a bad case)."""
    checked = _validate_case(case, default_mode)
    params = checked["params"]
    if case.get("recall"):
        params["recall"] = case["recall"]
    start = time.perf_counter()
    result = run_query(
        index,
        checked["mode"],
        case["query"],
        params,
        hl=_keywords_field(case, "hl_keywords"),
        ll=_keywords_field(case, "ll_keywords"),
        llm_settings=settings,
        model_stages=True,
    )
    if result.stages is not None:  # map-reduce: the map calls make the points and the reduce context
        result, _ = run_stages(result, settings, final_answer=False)
    total = (time.perf_counter() - start) * 1000
    row = {
        "input": case,
        "mode": result.mode,
        "context": result.context,
        "selected": {kind: result.selected_ids(kind) for kind in KINDS},
        "keywords": {"hl": result.keywords.hl, "ll": result.keywords.ll, "source": result.keywords.source},
        "warnings": result.warnings,
        "timings_ms": {**result.timings_ms, "total": round(total, 3)},
    }
    if result.vector_search:
        row["vector_search"] = result.vector_search
    if result.stages is not None:
        row["stages"] = asdict(result.stages)
    if result.tree is not None:
        row["tree"] = asdict(result.tree)
    return row


def run_batch(index, cases_path: str, out_path: str | None, default_mode: str = DEFAULT_MODE, settings=None) -> int:
    """Run every line of ``cases_path``; returns 1 when any line failed (its row says why)."""
    path = Path(cases_path)
    if not path.is_file():
        raise UserError(msg("no such batch file"), where=cases_path, fix=msg("give a JSONL file, one case per line"))
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(msg("cannot read the batch file: {error}", error=str(exc)), where=cases_path) from None
    try:
        sink = open(out_path, "w", encoding="utf-8") if out_path else sys.stdout
    except OSError as exc:
        raise UserError(msg("cannot write the results: {error}", error=exc.strerror), where=out_path) from None
    failures = done = 0
    try:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = {"line": number, **case_result(index, json.loads(line), default_mode, settings)}
                done += 1
            except json.JSONDecodeError as exc:
                failures += 1
                row = {"line": number, "input": line, "error": f"{cases_path}:{number}: not JSON ({exc})"}
            except UserError as exc:
                failures += 1
                row = {"line": number, "input": _parsed(line), "error": f"{cases_path}:{number}: {exc}"}
            except Exception as exc:  # noqa: BLE001 - a bug in one mode must not stop the other cases
                failures += 1
                print(f"{cases_path}:{number}: internal error", file=sys.stderr)
                traceback.print_exc(file=sys.stderr)
                error = f"{cases_path}:{number}: internal error {type(exc).__name__}: {exc} (please report it)"
                row = {"line": number, "input": _parsed(line), "error": error}
            sink.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            sink.flush()
    finally:
        if out_path:
            sink.close()
    where = f"; results in {out_path}" if out_path else ""
    print(f"{done} case(s) ran, {failures} failed{where}", file=sys.stderr)
    if failures:
        print("see the 'error' field of the failed lines", file=sys.stderr)
    return 1 if failures else 0


def _parsed(line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return line


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
    if result.vector_search:
        lines.append(f"vectors searched by {result.vector_search['engine']}")
        lines += [
            f"  {kind}: server top-{k} ∩ exact top-{k}: {both}/{n}"
            for kind, k, both, n in overlaps(result.vector_search)
        ]
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)


def _check_args(args: argparse.Namespace) -> None:
    if args.batch:
        if args.question:
            raise UserError(msg("give either a question or --batch CASES.jsonl, not both"))
        if args.context_only or args.json:
            raise UserError(msg("--context-only and --json are for one question; --batch always writes JSON lines"))
        if args.param or args.recall or args.hl or args.ll or args.embedder:
            raise UserError(msg("with --batch, give params, recall and keywords per case in the JSONL file"))
        return
    if args.out:
        raise UserError(msg("--out is for --batch (one question prints to the terminal)"))
    if not args.question:
        raise UserError(msg("give a question, or --batch CASES.jsonl"))
    _check_mode(args.mode)


def run(args: argparse.Namespace) -> int:
    _check_args(args)
    index = _load(args.index, args.vectors)
    settings = _settings()
    if args.batch:
        return run_batch(index, args.batch, args.out, args.mode, settings)
    params = _params(args.param)
    if args.recall:
        params["recall"] = args.recall
    result = run_query(
        index,
        args.mode,
        args.question,
        params,
        hl=_split(args.hl),
        ll=_split(args.ll),
        llm_settings=settings,
        embedder=args.embedder,
        model_stages=True,
        use_cache=not args.no_cache,
        on_progress=TextProgress(),
    )
    if result.stages is not None:
        return _run_staged(args, result, settings)
    if result.tree is not None:
        return _run_tree(args, result, settings)
    options = result.answer_options
    if args.context_only or (options.get("only_need_context") and not options.get("only_need_prompt")):
        _emit(result.context)
        for warning in result.warnings:  # stdout stays exactly the context
            print(f"warning: {safe_text(warning)}", file=sys.stderr)
        return 0
    if args.json:
        _emit(result.to_json() + "\n")
        return 0
    print(safe_text(_summary(result)))
    if get_mode(result.mode).extra.get("drift_loop"):  # no model: DRIFT's first prompt, no answer
        return print_first_prompt(result)
    if options.get("only_need_prompt"):
        return _answer(result, settings, use_cache=False, prompt_only=True)  # as LightRAG's only_need_prompt
    return _answer(result, settings, use_cache=not args.no_cache, stream=options.get("stream", True))


def _run_staged(args: argparse.Namespace, result: Retrieval, settings) -> int:
    """A map-reduce mode: map calls (progress on stderr), then the reduce context or the answer."""
    use_cache = not args.no_cache
    if args.context_only or args.json:
        result, _ = run_stages(result, settings, final_answer=False, use_cache=use_cache)
        assert result.stages is not None
        _emit(staged_context(result.stages) if args.context_only else result.to_json() + "\n")
        for line in [*result.warnings, result.stages.note]:
            if line:
                kind = "warning" if line in result.warnings else "note"
                print(f"{kind}: {safe_text(line)}", file=sys.stderr)
        return 2 if result.stages.status == FAILED else 0
    print(safe_text(_summary(result)))
    if settings is None or not settings.configured:
        result, _ = run_stages(result, settings, final_answer=False)
        assert result.stages is not None
        print_map_prompts(result.stages)
        from graphrag_ui.llm import answer as answering

        print(answering.describe_unconfigured())
        return 0
    print("\n--- answer ---")
    result, reply = run_stages(
        result,
        settings,
        final_answer=True,
        use_cache=use_cache,
        on_token=_print_token,
    )
    assert result.stages is not None
    print()
    print(safe_text(stages_summary(result.stages)))
    if reply is None or reply.error:
        print(f"error: {safe_text(result.stages.note)}", file=sys.stderr)
        return 2
    return _reply_line(reply)


def _run_tree(args: argparse.Namespace, result: Retrieval, settings) -> int:
    """ms.drift with a model: the question tree ran; then its reduce prompt is answered like any mode's."""
    assert result.tree is not None
    failed = result.tree.status == FAILED
    if args.context_only or args.json:
        _emit(result.context if args.context_only else result.to_json() + "\n")
        for line in [*result.warnings, result.tree.note]:
            if line:
                kind = "warning" if line in result.warnings else "note"
                print(f"{kind}: {safe_text(line)}", file=sys.stderr)
        return 2 if failed else 0
    print(safe_text(_summary(result)))
    print(safe_text(tree_summary(result.tree)))
    if failed:
        print(f"error: {safe_text(result.tree.note)}", file=sys.stderr)
        return 2
    return _answer(result, settings, use_cache=not args.no_cache)


def _print_token(token: str) -> None:
    """A piece of the model's answer, shown as it streams in, with control characters escaped."""
    sys.stdout.write(safe_text(token))
    sys.stdout.flush()


def _reply_line(reply) -> int:
    cost = "unknown" if reply.cost_usd is None else f"${reply.cost_usd:.5f}"
    hit = " (cached)" if reply.cached else ""
    print(f"--- {reply.model}{hit}: {reply.prompt_tokens} prompt + {reply.answer_tokens} answer tokens, cost {cost}")
    return 0


def _answer(result: Retrieval, settings, use_cache: bool, stream: bool = True, prompt_only: bool = False) -> int:
    from graphrag_ui.llm import answer as answering

    if prompt_only or settings is None or not settings.configured:
        print("\n--- prompt that would be sent ---")
        for message in answering.messages_for(result):
            print(safe_text(f"[{message['role']}]\n{message['content']}\n"))
        if not prompt_only:
            print(answering.describe_unconfigured())
        return 0
    print("\n--- answer ---")
    reply = answering.answer(
        result, settings, stream=stream, on_token=_print_token if stream else None, use_cache=use_cache
    )
    if not stream:
        _print_token(reply.text)
    print()
    if reply.error_kind == "stream_cut":
        print(f"warning: incomplete answer: {safe_text(reply.error or '', one_line=True)}", file=sys.stderr)
        return 3
    if reply.error:
        print(f"error: {safe_text(reply.error, one_line=True)}", file=sys.stderr)
        return 2
    return _reply_line(reply)
