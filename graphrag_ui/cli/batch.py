"""``query --batch CASES.jsonl``: many cases in one process, one JSON line in, one out; a bad line becomes
an ``error`` row naming its line and why, and the other lines still run."""

from __future__ import annotations

import json
import sys
import traceback
from dataclasses import asdict
from pathlib import Path
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.redact import redact
from graphrag_ui.base.timing import elapsed_ms, now
from graphrag_ui.cli.stages import run_stages
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.retrieval.registry import DEFAULT_MODE, get_mode, mode_names
from graphrag_ui.services.query import run_query

CASE_FIELDS = ("mode", "query", "params", "hl_keywords", "ll_keywords", "recall")


def split_words(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def check_mode(name: str) -> None:
    if name not in mode_names():
        get_mode(name)  # raises a clear error for an unknown or unavailable mode
        raise UserError(
            msg("mode {name} is not available", name=repr(name)),
            fix=msg("modes: {modes}", modes=", ".join(mode_names())),
        )


def _keywords_field(case: dict[str, Any], name: str) -> list[str] | None:
    value = case.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        return split_words(value)
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
    check_mode(mode)
    params = case.get("params") or {}
    if not isinstance(params, dict):
        raise UserError(msg("'params' must be an object of reference field names, got {value}", value=repr(params)))
    return {"mode": mode, "params": dict(params)}


def case_result(
    index,
    case: Any,
    default_mode: str = DEFAULT_MODE,
    settings: Any = None,
    answer: bool = False,
    use_cache: bool = True,
) -> dict[str, Any]:
    """Run one batch case and return its output row (raises UserError for a bad case); ``answer``: with
    the model's answer, its citations and support (``graphrag_ui.citations.record``)."""
    checked = _validate_case(case, default_mode)
    params = checked["params"]
    if case.get("recall"):
        params["recall"] = case["recall"]
    start = now()
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
    reply = None
    if result.stages is not None:  # map-reduce: the map calls make the points and the reduce context
        result, reply = run_stages(result, settings, final_answer=answer, use_cache=use_cache)
    elif answer:
        from graphrag_ui.model_calls.answer import answer as ask

        reply = ask(result, settings, stream=False, use_cache=use_cache)
    total = elapsed_ms(start)
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
    if answer:
        from graphrag_ui.citations.record import answer_fields

        fields = answer_fields(reply) if reply is not None else {"answer": None, "citations": [], "support": None}
        row.update(fields)
    return row


def run_batch(
    index,
    cases_path: str,
    out_path: str | None,
    default_mode: str = DEFAULT_MODE,
    settings=None,
    *,
    answer: bool = False,
    use_cache: bool = True,
) -> int:
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
                case = json.loads(line)
                row = {"line": number, **case_result(index, case, default_mode, settings, answer, use_cache)}
                done += 1
            except json.JSONDecodeError as exc:
                failures += 1
                row = {"line": number, "input": line, "error": f"{cases_path}:{number}: not JSON ({exc})"}
            except RecursionError:
                failures += 1
                row = {"line": number, "input": line, "error": f"{cases_path}:{number}: JSON nested too deeply to read"}
            except UserError as exc:
                failures += 1
                row = {"line": number, "input": _parsed(line), "error": f"{cases_path}:{number}: {exc}"}
            except Exception as exc:  # noqa: BLE001 - a bug in one mode must not stop the other cases
                failures += 1
                print(f"{cases_path}:{number}: internal error", file=sys.stderr)
                print(redact(traceback.format_exc()), end="", file=sys.stderr)
                error = (
                    f"{cases_path}:{number}: internal error {type(exc).__name__}: {redact(str(exc))} (please report it)"
                )
                row = {"line": number, "input": _parsed(line), "error": error}
            sink.write(_row_json(row) + "\n")
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
    except (json.JSONDecodeError, RecursionError):
        return line


def _row_json(row: dict[str, Any]) -> str:
    """One output line: UTF-8 JSON, or ASCII-escaped when a value holds a lone surrogate (a ``"\\ud800"``
    in the input line) that UTF-8 cannot encode, so the row is still written."""
    text = json.dumps(row, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(row, ensure_ascii=True, default=str)
    return text
