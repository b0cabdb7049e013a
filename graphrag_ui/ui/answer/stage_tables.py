"""The stages of a map-reduce retrieval as tables: batches, model calls, points, ratings.

Pure functions over ``Retrieval.stages`` (no Streamlit), so the views and their tests share them.
Report titles come from the retrieval's community rows; every text is a plain cell, never markup.
Reasons (why kept, why dropped, the map call's outcome) come in the UI language.
"""

from __future__ import annotations

import pandas as pd

from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import Stages
from graphrag_ui.ui.shell.language import pt, t, translate

_PREVIEW = 300


def _short(text: str) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= _PREVIEW else flat[:_PREVIEW] + "…"


def report_titles(result: Retrieval) -> dict[str, str]:
    """community id -> its report title, as the mode listed it."""
    return {c.id: c.label for c in result.communities}


def _reports(ids: list[str], titles: dict[str, str]) -> str:
    return "; ".join(f"{i} {titles[i]}" if titles.get(i) and titles[i] != i else i for i in ids)


def batches_frame(result: Retrieval) -> pd.DataFrame:
    """One row per map batch: its reports in order, tokens against the batch budget, the map call's fate."""
    stages = result.stages or Stages()
    titles = report_titles(result)
    calls = {c.label: c for c in stages.calls if c.stage == "map"}
    points: dict[int, list] = {}
    for p in stages.points:
        points.setdefault(p.batch, []).append(p)
    rows = []
    for b in stages.batches:
        call = calls.get(f"batch {b.index}")
        got = points.get(b.index, [])
        rows.append(
            {
                "batch": b.index,
                "reports": len(b.community_ids),
                "tokens": b.tokens,
                "limit": b.limit,
                "fill": (b.tokens / b.limit) if b.limit else None,
                "points": None if call is None else len(got),
                "kept": None if call is None else sum(1 for p in got if p.in_context),
                "map": ""
                if call is None
                else (pt("map call outcome", "cached") if call.cached else t("ok"))
                if call.ok
                else translate(call.error),
                "report ids": _reports(b.community_ids, titles),
            }
        )
    columns = ["batch", "reports", "tokens", "limit", "fill", "points", "kept", "map", "report ids"]
    return pd.DataFrame(rows, columns=columns)


def total_cost(stages: Stages) -> float | None:
    """USD of the calls that had a price (cached calls count what they cost when made); None: none priced."""
    prices = [c.cost_usd for c in stages.calls if c.cost_usd is not None]
    return sum(prices) if prices else None


def calls_frame(stages: Stages) -> pd.DataFrame:
    """Every model call in the order made: stage, what for, time, tokens, cost, cache, outcome."""
    rows = [
        {
            "stage": c.stage,
            "label": c.label,
            "ms": round(c.ms, 1),
            "prompt tokens": c.prompt_tokens,
            "answer tokens": c.answer_tokens,
            "cost usd": c.cost_usd,
            "cached": c.cached,
            "ok": c.ok,
            "error": c.error,
            "parsed": len(c.parsed),
        }
        for c in stages.calls
    ]
    columns = ["stage", "label", "ms", "prompt tokens", "answer tokens", "cost usd", "cached", "ok", "error", "parsed"]
    return pd.DataFrame(rows, columns=columns)


def points_frames(result: Retrieval) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(points in the reduce context, best first; dropped points, each leading with why it was dropped)."""
    stages = result.stages or Stages()
    titles = report_titles(result)
    kept, dropped = [], []
    for p in stages.points:
        row = {
            "score": p.score,
            "batch": p.batch,
            "description": _short(p.description),
            "tokens": p.tokens,
            "reports": _reports(p.community_ids, titles),
        }
        if p.in_context:
            kept.append({**row, "why": translate(p.why)})
        else:
            why = translate(p.dropped) if p.dropped else t("not in the reduce context")
            dropped.append({"why dropped": why, **row})
    kept_cols = ["score", "batch", "description", "why", "tokens", "reports"]
    dropped_cols = ["why dropped", "score", "batch", "description", "tokens", "reports"]
    kept_frame = pd.DataFrame(kept, columns=kept_cols)
    if not kept_frame.empty:
        kept_frame = kept_frame.sort_values("score", ascending=False, kind="stable")
    return kept_frame, pd.DataFrame(dropped, columns=dropped_cols)


def ratings_frame(result: Retrieval) -> pd.DataFrame:
    """Dynamic community selection: each rated community, its rating, and whether it was kept and why."""
    stages = result.stages or Stages()
    titles = report_titles(result)
    rows = [
        {
            "community": r.community_id,
            "title": titles.get(r.community_id, ""),
            "level": r.level,
            "rating": r.rating,
            "kept": r.kept,
            "reason": translate(r.why),
        }
        for r in stages.ratings
    ]
    return pd.DataFrame(rows, columns=["community", "title", "level", "rating", "kept", "reason"])
