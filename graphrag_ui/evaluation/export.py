"""An ``EvalRun`` as flat records: one per question × mode × step, for CSV, JSON, the page's table.

Columns: ``id``, ``mode``, ``version``, the swept parameter's own name (its value; empty for a mode that
ran at its defaults), then the metrics, then ``found`` / ``missed`` in words (``entity:Anselm Varrick
(beyond top_k) → top_k=10 (+1,200 tokens)``: the nearest swept value that brings it in). The JSON form adds each row's items (where found, why missed), the per-config
summaries with their intervals and the Pareto mark, the errors and the skipped lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

from graphrag_ui.base import csv_cells
from graphrag_ui.evaluation.gold import QuestionSet
from graphrag_ui.evaluation.metrics import RowMetrics
from graphrag_ui.evaluation.runner import EvalRun
from graphrag_ui.evaluation.stats import Fix, Summary, all_fixes

METRIC_COLUMNS = (
    "evidence_recall",
    "entity_recall",
    "all_evidence",
    "first_evidence_position",
    "answer_in_context",
    "answer_token_recall",
    "context_tokens",
    "unused_token_share",
)


def _round(value: Any) -> Any:
    return round(value, 6) if isinstance(value, float) else value


def _fix_text(fix: Fix | None) -> str:
    if fix is None:
        return ""
    return f" → {fix.to.param}={fix.to.value} ({fix.token_cost:+,} tokens)"


def record(row: RowMetrics, params: list[str], fixes: dict | None = None) -> dict[str, Any]:
    """One flat row; ``params``: the swept parameters' names across the run (one column each); ``fixes``
    (``stats.all_fixes``): a missed item names the nearest swept value that brings it in and its token cost."""
    c = row.config
    out: dict[str, Any] = {"id": row.question_id, "mode": row.mode, "version": c.version if c else ""}
    for name in params:
        out[name] = c.value if c is not None and c.param == name else ""
    out.update({name: _round(getattr(row, name)) for name in METRIC_COLUMNS})
    out["found"] = "; ".join(f"{r.item.kind}:{r.item.value}" for r in row.items if r.found)
    fixes = fixes or {}
    out["missed"] = "; ".join(
        f"{r.item.kind}:{r.item.value} ({r.missed.reason_text if r.missed else ''})"
        + _fix_text(fixes.get((row.question_id, row.config, r.item)))
        for r in row.items
        if not r.found
    )
    out["ms"] = round(row.ms, 3)
    return out


def swept_names(run: EvalRun) -> list[str]:
    return list(dict.fromkeys(c.param for c in run.configs if c.param)) or ([run.plan.param] if run.plan.param else [])


def _judged(judgements: list | None) -> dict[tuple[str, Any], Any]:
    return {(j.question_id, j.config): j for j in judgements or []}


def judge_columns(judgement: Any) -> dict[str, Any]:
    """A judged row's columns: each score (empty unless read) and its status (ok / unreadable / error / skipped)."""
    out: dict[str, Any] = {}
    for kind in ("correctness", "faithfulness"):
        verdict = getattr(judgement, kind) if judgement is not None else None
        out[kind] = "" if verdict is None or verdict.score is None else verdict.score
        out[f"{kind}_status"] = verdict.status if verdict is not None else ""
    return out


def _flat_rows(run: EvalRun, judgements: list | None) -> Iterator[tuple[Any, dict[str, Any], Any, dict]]:
    """Each row with its flat record, its judgement (None when not judged) and the run's fixes: what the CSV
    and the JSON both start from."""
    names, judged, fixes = swept_names(run), _judged(judgements), all_fixes(run)
    for row in run.rows:
        yield row, record(row, names, fixes), judged.get((row.question_id, row.config)), fixes


def records(run: EvalRun, judgements: list | None = None) -> list[dict[str, Any]]:
    out = []
    for _row, flat, judgement, _fixes in _flat_rows(run, judgements):
        if judgements is not None:
            flat.update(judge_columns(judgement))
        out.append(flat)
    return out


def csv_text(run: EvalRun, judgements: list | None = None) -> str:
    rows = records(run, judgements)
    fields = list(rows[0]) if rows else ["id", "mode", "version", *swept_names(run), *METRIC_COLUMNS]
    # question ids, gold items and reasons come from an uploaded set: no cell a spreadsheet runs as a formula
    return csv_cells.rows_text(fields, ([row.get(f, "") for f in fields] for row in rows))


def _fix_json(fix: Fix | None) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {"param": fix.to.param, "value": fix.to.value, "tokens": fix.tokens_to, "token_cost": fix.token_cost}


def _summary(s: Summary) -> dict[str, Any]:
    return {
        "mode": s.config.mode,
        "version": s.config.version,
        "param": s.config.param,
        "value": s.config.value,
        "questions": s.questions,
        "pareto": s.pareto,
        "ms": round(s.ms, 3),
        **{name: {k: _round(v) for k, v in asdict(i).items()} for name, i in s.metrics.items()},
    }


def json_text(
    run: EvalRun, summaries: list[Summary], questions: QuestionSet | None = None, judgements: list | None = None
) -> str:
    rows = []
    for row, flat, j, fixes in _flat_rows(run, judgements):
        if judgements is not None:
            flat["judge"] = asdict(j) if j is not None else None
        flat["items"] = [
            {
                "kind": r.item.kind,
                "value": r.item.value,
                "found": r.found,
                "where": [asdict(p) for p in r.where],
                "missed": asdict(r.missed) if r.missed else None,
                "fix": _fix_json(fixes.get((row.question_id, row.config, r.item))),
            }
            for r in row.items
        ]
        rows.append(flat)
    data = {
        "questions": run.set_name,
        "seconds": round(run.seconds, 3),
        "cancelled": run.cancelled,
        "notes": [str(n) for n in run.plan.notes],
        "rows": rows,
        "summary": [_summary(s) for s in summaries],
        "errors": [{"id": q, "config": c, "error": e} for q, c, e in run.errors],
        "skipped_lines": [{"line": p.line, "what": str(p.what)} for p in (questions.skipped if questions else [])],
    }
    return json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n"
