"""Turn a ``Retrieval``'s candidate lists into tables: what went in, and what was dropped and why.

The grids show the reasons (``why``, ``dropped``) in the UI language; ``candidate_rows`` itself, and so
the CSV download, keeps them in English as the retrieval wrote them: a CSV is a record to diff, grep
and compare with the CLI's JSON, whichever language the page was in.
"""

from __future__ import annotations

import pandas as pd

from graphrag_ui.i18n import translate
from graphrag_ui.retrieval.core.result import KINDS, Candidate, Retrieval

# columns of the row data worth showing per kind, when present
_DATA_COLUMNS = {
    "entities": ["type", "description"],
    "relations": ["source", "target", "description", "keywords", "weight"],
    "communities": ["level", "title", "rating"],
    "chunks": ["doc_id", "text"],
}
_PREVIEW = 300


def _cell(value: object) -> object:
    """Table cells are plain text or numbers; long texts are shortened for the grid."""
    if isinstance(value, (int, float)) or value is None:
        return value
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= _PREVIEW else text[:_PREVIEW] + "…"


def candidate_rows(kind: str, items: list[Candidate], lang: str = "en") -> pd.DataFrame:
    """One row per candidate; its reasons in ``lang`` (translated here: a data frame keeps text, not messages)."""
    columns = ["order", "id", "label", "score", "rank", "tokens", "why"]
    extra = _DATA_COLUMNS.get(kind, [])
    rows = []
    for c in items:
        row = {
            "order": c.order,
            "id": c.id,
            "label": c.label,
            "score": None if c.score is None else round(float(c.score), 4),
            "rank": c.rank,
            "tokens": c.tokens,
            "why": translate(c.why, lang),
        }
        for name in extra:
            if name in c.data:
                row[name] = _cell(c.data[name])
        if not c.in_context:
            row["dropped"] = translate(c.dropped, lang)
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=columns)
    return frame


def split_tables(result: Retrieval, kind: str, lang: str = "en") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(in-context rows in context order, dropped rows with their reason), reasons in ``lang``."""
    items = result.candidates(kind)
    kept = candidate_rows(kind, [c for c in items if c.in_context], lang)
    dropped = candidate_rows(kind, [c for c in items if not c.in_context], lang)
    return kept, dropped


def counts(result: Retrieval) -> dict[str, tuple[int, int]]:
    """kind -> (in context, dropped)."""
    out = {}
    for kind in KINDS:
        items = result.candidates(kind)
        kept = sum(1 for c in items if c.in_context)
        out[kind] = (kept, len(items) - kept)
    return out


def budget_frame(result: Retrieval) -> pd.DataFrame:
    """Per section: tokens used and the headroom left under its limit (for a stacked bar)."""
    rows = []
    for b in result.budgets:
        limit = b.limit if b.limit is not None else b.used
        rows.append({"section": b.section, "used": b.used, "headroom": max(limit - b.used, 0), "limit": b.limit})
    return pd.DataFrame(rows, columns=["section", "used", "headroom", "limit"])


def trace_frame(result: Retrieval) -> pd.DataFrame:
    rows = [
        {"step": s.name, "detail": s.detail, "in": s.n_in, "out": s.n_out, "ms": round(s.ms, 2)} for s in result.trace
    ]
    return pd.DataFrame(rows, columns=["step", "detail", "in", "out", "ms"])
