"""An optional judge pass: the model checks each answer sentence against the rows that support it.

The offline trace (``graphrag_ui.citations``) says which rows a sentence cites, or which rows share its
words; only a model can say whether they *support* it. One call per sentence (at most ``MAX_SENTENCES``)
asks for ``{"verdict": "supported" | "partly" | "unsupported", "reason": …}`` about the sentence and its
rows (cited ones, else the estimated ones; each row cut to ``ROW_CHARS``). ``plan`` prices the calls
before any is made; ``run`` makes them through the answer cache (``map_reduce.call_many``), and a reply
that is not such an object is recorded as failed and never cached. The prompt is our own wording.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.citations import Trace
from graphrag_ui.citations.items import context_items
from graphrag_ui.citations.model import Item
from graphrag_ui.model_client import usage
from graphrag_ui.retrieval.core.result import Retrieval

MAX_SENTENCES = 40  # sentences judged per answer at most
MAX_ROWS = 5  # rows shown to the judge per sentence
ROW_CHARS = 1_500  # characters of one row in the judge prompt
ANSWER_TOKENS = 60  # a verdict's expected length, for the price shown first
REASON_CHARS = 300
VERDICTS = ("supported", "partly", "unsupported")
JUDGE_LLM_KWARGS = {"response_format": {"type": "json_object"}}

JUDGE_PROMPT = """## Task
You check one sentence of an answer against the context rows it was built from. Decide whether the
rows support the sentence: "supported" (everything it states is in the rows), "partly" (some of it is),
or "unsupported" (the rows do not say it). Judge only from the rows, not from what you know.

## Reply
A single JSON object and nothing else: {"verdict": "supported" | "partly" | "unsupported", "reason": "<one short sentence>"}
"""


@dataclass
class Verdict:
    sentence: int  # index into ``Trace.sentences``
    text: str
    basis: str  # "cited" or "estimated": which rows the judge saw
    verdict: str = ""  # one of VERDICTS; "" when the call failed
    reason: str = ""
    ok: bool = True
    error: str = ""
    cached: bool = False
    cost_usd: float | None = None


@dataclass
class Plan:
    """The calls a judge pass would make, priced before any is made."""

    requests: list[Any]  # map_reduce.CallRequest
    verdicts: list[Verdict]
    prompt_tokens: int
    cost_usd: float | None  # None: the model has no price in litellm's map
    skipped: int  # sentences over MAX_SENTENCES, or with no rows at all


def read_verdict(raw: str) -> list[dict[str, Any]]:
    """The reply as one verdict; ValueError (one line) when it is not the object the prompt asks for."""
    try:
        data = json.loads(raw.strip().removeprefix("```json").removeprefix("```").removesuffix("```"))
    except (json.JSONDecodeError, RecursionError):
        raise ValueError(msg("not JSON")) from None
    if not isinstance(data, dict) or data.get("verdict") not in VERDICTS:
        raise ValueError(msg("no verdict of {verdicts}", verdicts=", ".join(VERDICTS)))
    reason = data.get("reason", "")
    return [{"verdict": data["verdict"], "reason": str(reason)[:REASON_CHARS]}]


def _rows(items: list[Item], texts: dict[Item, str]) -> str:
    return "\n".join(
        f"[{i.kind} {i.item_id}] {' '.join(texts.get(i, '').split())[:ROW_CHARS]}" for i in items[:MAX_ROWS]
    )


def plan(trace: Trace, retrieval: Retrieval, settings: Any) -> Plan:
    """One request per sentence that has rows (cited, else estimated), and the price of them all."""
    from graphrag_ui.model_calls.map_reduce import CallRequest

    ctx = context_items(retrieval)
    texts = {item: ctx.text(item) for item in ctx.all_items()}
    requests, verdicts = [], []
    skipped = 0
    for n, sentence in enumerate(trace.sentences):
        items = sentence.cited or [Item(e.kind, e.item_id) for e in sentence.estimates]
        if not items or len(requests) >= MAX_SENTENCES:
            skipped += 1
            continue
        user = f"## Sentence\n{sentence.text}\n\n## Rows\n{_rows(items, texts)}\n"
        messages = [{"role": "system", "content": JUDGE_PROMPT}, {"role": "user", "content": user}]
        requests.append(CallRequest("judge", f"sentence {n + 1}", messages, read_verdict, JUDGE_LLM_KWARGS))
        verdicts.append(Verdict(n, sentence.text, "cited" if sentence.cited else "estimated"))
    prompt = sum(usage.estimate_prompt_tokens(r.messages) for r in requests)
    model = getattr(settings, "model", "") or ""
    cost = usage.cost_usd(model, prompt, ANSWER_TOKENS * len(requests)) if requests else 0.0
    return Plan(requests, verdicts, prompt, cost, skipped)


def run(planned: Plan, settings: Any, *, use_cache: bool = True, cache: Any = None) -> list[Verdict]:
    """Make the planned calls (cached; a failed or unreadable one is said, never cached)."""
    from graphrag_ui.model_calls.map_reduce import call_many

    calls = call_many(planned.requests, settings, use_cache=use_cache, cache=cache)
    out = []
    for verdict, call in zip(planned.verdicts, calls, strict=True):
        verdict.ok, verdict.error, verdict.cached, verdict.cost_usd = call.ok, call.error, call.cached, call.cost_usd
        if call.ok and call.parsed:
            verdict.verdict, verdict.reason = call.parsed[0]["verdict"], call.parsed[0]["reason"]
        out.append(verdict)
    return out
