"""The answer and its trace as JSON fields, for ``query --json --answer`` and ``query --batch … --answer``."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from graphrag_ui.citations.model import Trace
from graphrag_ui.citations.trace import summary_line


def answer_fields(reply: Any) -> dict[str, Any]:
    """``answer`` (text, model, tokens, cost, error), ``citations`` (one entry per marker) and ``support``."""
    from graphrag_ui.citations import citations_json

    trace: Trace | None = getattr(reply, "trace", None)
    answer = {
        key: getattr(reply, key)
        for key in (
            "text",
            "model",
            "cached",
            "prompt_tokens",
            "answer_tokens",
            "cost_usd",
            "error",
            "error_kind",
            "tokens_estimated",
        )
    }
    if trace is None:
        return {"answer": answer, "citations": [], "support": None}
    support = {
        "style": trace.style,
        "summary": summary_line(trace),
        "items": trace.items,
        "cited": [asdict(i) for i in trace.cited],
        "parts_cited": [asdict(i) for p in trace.parts for i in p.cited],
        "estimated": [asdict(i) for i in trace.estimated],
        "not_in_context": trace.not_in_context,
        "unused_share": trace.unused_share,
        "split": [{**asdict(s), "total": s.total} for s in trace.split],
        "sentences": [
            {
                "text": s.text,
                "start": s.start,
                "end": s.end,
                "cited": [asdict(i) for i in s.cited],
                "invented": s.invented,
                "estimate": [asdict(e) for e in s.estimates],
            }
            for s in trace.sentences
        ],
        "parts": [
            {"scope": p.scope, "cited": [asdict(i) for i in p.cited], "sentences": len(p.sentences)}
            for p in trace.parts
        ],
    }
    return {"answer": answer, "citations": citations_json(trace), "support": support}
