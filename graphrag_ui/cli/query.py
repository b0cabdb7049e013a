"""``python -m graphrag_ui query --index DIR --mode MODE [...] "QUESTION"`` and its ``--batch`` form.

One question prints a summary and the prompt (or the model's answer when one is configured);
``--context-only`` prints exactly the context string (no added newline, UTF-8), ``--json`` the whole
``Retrieval``. ``--batch CASES.jsonl`` runs many cases in one process (``query_batch``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.progress import TextProgress
from graphrag_ui.base.redact import redact
from graphrag_ui.base.terminal import safe_text, said
from graphrag_ui.cli.batch import check_mode, run_batch, split_words
from graphrag_ui.cli.stages import (
    print_first_prompt,
    print_map_prompts,
    run_stages,
    staged_context,
    stages_summary,
    tree_summary,
)
from graphrag_ui.retrieval.core.candidates import in_context
from graphrag_ui.retrieval.core.result import KINDS, Retrieval
from graphrag_ui.retrieval.core.stages import FAILED
from graphrag_ui.retrieval.core.vector_engine import overlaps
from graphrag_ui.retrieval.registry import DEFAULT_MODE, MODE_MODULES, get_mode
from graphrag_ui.services.query import run_query


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
    parser.add_argument(
        "--answer",
        action="store_true",
        help="with --json or --batch: also ask the model, and add 'answer', 'citations' (one entry per citation "
        "marker, resolved to context items or marked not in the context) and 'support'",
    )
    parser.add_argument("--batch", help="JSONL file of cases: mode, query, params, hl_keywords, ll_keywords, recall")
    parser.add_argument("--out", help="JSONL results file for --batch (default: stdout)")
    parser.add_argument("--no-cache", action="store_true", help="do not use the answer cache")


def _emit(text: str, stream: IO[str] | None = None) -> None:
    """Write ``text`` as UTF-8 bytes, unchanged (no newline, no locale encoding); a lone surrogate (a model
    or a file may send ``"\\ud800"`` in JSON) has no UTF-8 form and is written as its JSON escape ``\\ud800``."""
    stream = stream or sys.stdout
    stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text-only stream (e.g. pytest's capture): write the text itself
        stream.write(text)
    else:
        buffer.write(text.encode("utf-8", errors="backslashreplace"))
        buffer.flush()


def _load(path: str, vectors: str = "local"):
    from graphrag_ui.index import store

    if not Path(path).is_dir():
        raise UserError(msg("no such index folder"), where=path, fix=msg("give the folder `build` or `import` wrote"))
    return store.load(path, vectors=vectors)


def _settings():
    from graphrag_ui.model_client.settings import LLMSettings

    return LLMSettings.from_env_and_secrets()


def _summary(result: Retrieval) -> str:
    lines = [f"mode {result.mode} · {result.query!r}"]
    if result.keywords.source:
        lines.append(f"keywords ({result.keywords.source}): hl={result.keywords.hl} ll={result.keywords.ll}")
    for kind in KINDS:
        items = result.candidates(kind)
        kept = len(in_context(items))
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
    lines += [f"warning: {redact(w)}" for w in result.warnings]
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
    if args.answer and not args.json:
        raise UserError(
            msg("--answer adds the answer to JSON output"), fix=msg("use it with --json (one question) or --batch")
        )
    if not args.question:
        raise UserError(msg("give a question, or --batch CASES.jsonl"))
    check_mode(args.mode)


def run(args: argparse.Namespace) -> int:
    _check_args(args)
    index = _load(args.index, args.vectors)
    settings = _settings()
    if args.answer:
        _need_model(settings)
    if args.batch:
        return run_batch(
            index, args.batch, args.out, args.mode, settings, answer=args.answer, use_cache=not args.no_cache
        )
    params = _params(args.param)
    if args.recall:
        params["recall"] = args.recall
    result = run_query(
        index,
        args.mode,
        args.question,
        params,
        hl=split_words(args.hl),
        ll=split_words(args.ll),
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
            print(f"warning: {said(warning)}", file=sys.stderr)
        return 0
    if args.json and args.answer:
        return _json_answer(result, settings, use_cache=not args.no_cache)
    if args.json:
        _emit(result.to_json() + "\n")
        return 0
    print(safe_text(_summary(result)))
    stages = get_mode(result.mode).stages
    if stages is not None and stages.waits_for_request(result):  # its rounds need a model: the first prompt, no answer
        return print_first_prompt(result)
    if options.get("only_need_prompt"):
        return _answer(result, settings, use_cache=False, prompt_only=True)  # as LightRAG's only_need_prompt
    return _answer(result, settings, use_cache=not args.no_cache, stream=options.get("stream", True))


def _run_staged(args: argparse.Namespace, result: Retrieval, settings) -> int:
    """A map-reduce mode: map calls (progress on stderr), then the reduce context or the answer."""
    from graphrag_ui.model_calls import answer as answering

    use_cache = not args.no_cache
    if args.json and args.answer:
        result, reply = run_stages(result, settings, final_answer=True, use_cache=use_cache)
        return _emit_answered(result, reply)
    if args.context_only or args.json:
        result, _ = run_stages(result, settings, final_answer=False, use_cache=use_cache)
        assert result.stages is not None
        _emit(staged_context(result.stages) if args.context_only else result.to_json() + "\n")
        for line in [*result.warnings, result.stages.note]:
            if line:
                kind = "warning" if line in result.warnings else "note"
                print(f"{kind}: {said(line)}", file=sys.stderr)
        return 2 if result.stages.status == FAILED else 0
    print(safe_text(_summary(result)))
    if settings is None or not settings.configured:
        result, _ = run_stages(result, settings, final_answer=False)
        assert result.stages is not None
        print_map_prompts(result.stages)
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
    if reply is not None and reply.error_kind in answering.INCOMPLETE_KINDS:
        print(f"warning: incomplete answer: {said(reply.error or '', one_line=True)}", file=sys.stderr)
        return 3
    if reply is None or reply.error:
        print(f"error: {said(result.stages.note)}", file=sys.stderr)
        return 2
    code = _reply_line(reply)
    _trace_line(reply)
    return code


def _run_tree(args: argparse.Namespace, result: Retrieval, settings) -> int:
    """ms.drift with a model: the question tree ran; then its reduce prompt is answered like any mode's."""
    assert result.tree is not None
    failed = result.tree.status == FAILED
    if args.json and args.answer and not failed:
        return _json_answer(result, settings, use_cache=not args.no_cache)
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


def _need_model(settings) -> None:
    from graphrag_ui.model_calls import answer as answering

    if settings is None or not settings.configured:
        raise UserError(answering.unconfigured_error(), fix=msg("or leave out --answer to get the retrieval alone"))


def _json_answer(result: Retrieval, settings, use_cache: bool) -> int:
    from graphrag_ui.model_calls import answer as answering

    return _emit_answered(result, answering.answer(result, settings, stream=False, use_cache=use_cache))


def _emit_answered(result: Retrieval, reply) -> int:
    """The Retrieval as JSON with ``answer``, ``citations`` and ``support``; exit 2 (3 for a cut answer) on failure."""
    import json

    from graphrag_ui.citations.record import answer_fields

    fields = answer_fields(reply) if reply is not None else {"answer": None, "citations": [], "support": None}
    data = {**result.to_dict(), **fields}
    _emit(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
    if reply is None or (reply.error and reply.error_kind not in answering_incomplete()):
        error = reply.error if reply is not None else (result.stages.note if result.stages else "")
        print(f"error: {said(error or '', one_line=True)}", file=sys.stderr)
        return 2
    if reply.error:
        print(f"warning: incomplete answer: {said(reply.error, one_line=True)}", file=sys.stderr)
        return 3
    return 0


def answering_incomplete() -> tuple[str, ...]:
    from graphrag_ui.model_calls.answer import INCOMPLETE_KINDS

    return INCOMPLETE_KINDS


def _print_token(token: str) -> None:
    """A piece of the model's answer, shown as it streams in, with control characters escaped."""
    sys.stdout.write(safe_text(token))
    sys.stdout.flush()


def _reply_line(reply) -> int:
    if not reply.cached and not reply.prompt_tokens and not reply.answer_tokens:
        print("--- no model call: the reference gives this answer itself when nothing relevant was found")
        return 0
    cost = "unknown" if reply.cost_usd is None else f"${reply.cost_usd:.5f}"
    hit = " (cached)" if reply.cached else ""
    print(f"--- {reply.model}{hit}: {reply.prompt_tokens} prompt + {reply.answer_tokens} answer tokens, cost {cost}")
    return 0


def _answer(result: Retrieval, settings, use_cache: bool, stream: bool = True, prompt_only: bool = False) -> int:
    from graphrag_ui.model_calls import answer as answering

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
    if reply.error_kind in answering.INCOMPLETE_KINDS:
        print(f"warning: incomplete answer: {said(reply.error or '', one_line=True)}", file=sys.stderr)
        return 3
    if reply.error:
        print(f"error: {said(reply.error, one_line=True)}", file=sys.stderr)
        return 2
    code = _reply_line(reply)
    _trace_line(reply)
    return code


def _trace_line(reply) -> None:
    from graphrag_ui.citations import summary_line

    if getattr(reply, "trace", None) is not None:
        print(f"--- {safe_text(summary_line(reply.trace))}")
