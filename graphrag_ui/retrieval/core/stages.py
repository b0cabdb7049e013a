"""The stages of a map-reduce retrieval (``ms.global``, ``nano.global``) as plain data.

A map-reduce mode's context builder is pure: it returns the batches it would send to the model, each
with its exact map prompt. The model calls (rating, map, reduce) happen in ``graphrag_ui.model_calls.map_reduce``
and are recorded back here — every call, every parsed point, why each point was kept or dropped — so
the UI, the CLI and the JSON export show the whole run without the retrieval importing the model
client. Without a model the batches and prompts are complete and ``status`` says the model stages
did not run; nothing is invented.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

# status values
NEEDS_MODEL = "needs_model"  # batches and map prompts are built; no model ran
DONE = "done"  # map and reduce ran; the reduce context and messages are final
FAILED = "failed"  # a model stage failed; ``note`` says which and why


@dataclass
class Batch:
    """One map batch: the reports it holds, in order, and the exact text and prompt sent for it."""

    index: int  # 0-based batch number, in the order the reference builds them
    community_ids: list[str]  # the reports in this batch, in context order
    context: str  # the exact batch context (what the reference puts into its map prompt)
    tokens: int  # tokens of ``context`` by the reference's own counting
    limit: int  # the per-batch token budget
    messages: list[dict[str, str]] = field(default_factory=list)  # the exact map prompt


@dataclass
class Rating:
    """Dynamic community selection: one community's relevance rating and what followed from it."""

    community_id: str
    level: int
    rating: float | None  # None: the model's answer had no usable rating
    kept: bool
    why: str  # e.g. "rated 3 ≥ threshold 1: kept, its 4 children rated next"


@dataclass
class ModelCall:
    """One model call of a stage, as it happened (or came from the answer cache)."""

    stage: str  # "rate" | "map" | "reduce"
    label: str  # what it was for, e.g. "batch 2" or "community 14"
    prompt_tokens: int = 0
    answer_tokens: int = 0
    ms: float = 0.0
    cost_usd: float | None = None
    cached: bool = False
    ok: bool = True
    error: str = ""  # one line when not ok (what the model returned, truncated)
    raw: str = ""  # the model's answer text (truncated for display by the UI, kept whole here)
    parsed: list[dict[str, Any]] = field(default_factory=list)  # points or ratings read from ``raw``


@dataclass
class Point:
    """A key point from a map answer, and whether it reached the reduce context."""

    batch: int
    description: str
    score: float
    community_ids: list[str]  # the reports of the batch it came from
    in_context: bool = False
    why: str = ""  # why kept, e.g. "score 80, #2 of 14 kept points"
    dropped: str = ""  # why dropped: "score 0", "over the reduce budget (12,000 tokens)", ...
    tokens: int = 0


@dataclass
class Stages:
    status: str = NEEDS_MODEL
    note: str = ""  # plain words for the user: what ran, what needs a model, what failed
    batches: list[Batch] = field(default_factory=list)
    ratings: list[Rating] = field(default_factory=list)
    calls: list[ModelCall] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    reduce_context: str = ""  # the exact reduce context, when the map stage ran
    reduce_messages: list[dict[str, str]] = field(default_factory=list)  # the exact reduce prompt

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Stages:
        data = dict(data)
        data["batches"] = [Batch(**b) for b in data.get("batches", [])]
        data["ratings"] = [Rating(**r) for r in data.get("ratings", [])]
        data["calls"] = [ModelCall(**c) for c in data.get("calls", [])]
        data["points"] = [Point(**p) for p in data.get("points", [])]
        return cls(**data)


class MalformedAnswer(ValueError):
    """A map answer the reference does not fail on but replaces with fallback points.

    GraphRAG, for one, reads an answer that is not JSON as a single point with score 0 and carries on;
    ``parse_map`` raises this (with that fallback) so the runner records the call as malformed (never
    cached, said in the note) and still hands the fallback points to ``reduce``, as the reference does.
    A plain ``ValueError`` means the reference fails the whole query on that answer.
    """

    def __init__(self, message: str, fallback: list[tuple[str, float]]) -> None:
        super().__init__(message)
        self.fallback = fallback


# --- the text of a staged retrieval (its Retrieval.context and the CLI's --context-only) -----------


def batch_label(stages: Stages, i: int) -> str:
    """ "map batch 2 of 5 · 3 report(s): 4, 9, 12 · 1,204/12,000 tokens": counted from 1 as a reader counts
    (and as the budgets name them); ``Batch.index`` and the model-call labels count from 0."""
    batch = stages.batches[i]
    reports = ", ".join(batch.community_ids)
    return (
        f"map batch {batch.index + 1} of {len(stages.batches)} · {len(batch.community_ids)} report(s): {reports} · "
        f"{batch.tokens:,}/{batch.limit:,} tokens"
    )


def batch_header(stages: Stages, i: int) -> str:
    return f"=== {batch_label(stages, i)} ===\n"


def staged_context(stages: Stages) -> str:
    """Every batch context under its header, then the reduce context when the map stage ran."""
    parts = []  # each batch's pieces joined once (a batch context is 10⁴–10⁵ characters: no copy per piece)
    for i, batch in enumerate(stages.batches):
        parts += [batch_header(stages, i), batch.context.rstrip("\n"), "\n"]
    if stages.reduce_context:
        kept = sum(1 for p in stages.points if p.in_context)
        parts.append(f"=== reduce context · {kept} of {len(stages.points)} point(s) ===\n{stages.reduce_context}")
    return "".join(parts)


class MapReduceHooks(Protocol):
    """What a map-reduce mode gives the runner in ``graphrag_ui.model_calls.map_reduce`` (all pure).

    A mode declares an object with these methods as ``ModelStages.map_reduce`` on its ``ModeSpec.stages``
    (``graphrag_ui.retrieval.spec.model_stages``). The runner
    calls the model for each batch's ``messages``, hands the answers to ``parse_map`` and the
    collected points to ``reduce``; it owns concurrency, caching, timing and error records.

    Optional attributes the runner reads when present: ``map_llm_kwargs`` (dict: extra model arguments
    the reference sends with each map call, e.g. ``{"response_format": {"type": "json_object"}}``; part of
    the cache key) and ``fail_response`` (str: the reference's answer when no point reaches the reduce
    context, given without a model call).
    """

    def parse_map(self, answer: str) -> list[tuple[str, float]]:
        """(description, score) pairs exactly as the reference reads a map answer; malformed
        answers are handled as the reference handles them (raise ``ValueError`` with one line when
        the reference would treat the answer as failed, ``MalformedAnswer`` when it substitutes
        fallback points)."""
        ...

    def reduce(self, points: list[Point], query: str, params: dict[str, Any]) -> tuple[str, list[dict[str, str]]]:
        """Sort, filter and budget ``points`` as the reference does (setting ``in_context``, ``why``,
        ``dropped`` and ``tokens`` on each), and return the reduce context and reduce messages."""
        ...
