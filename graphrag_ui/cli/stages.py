"""The CLI's side of a staged mode: map-reduce (``ms.global``, ``nano.global``) and DRIFT's question tree.

A staged retrieval has no single context string: ``--context-only`` prints every map batch context
(each under one header line), then the reduce context when a model ran the map stage. ``--json`` and
``--batch`` carry the whole ``stages`` record. Map progress goes to stderr so stdout stays the data.
"""

from __future__ import annotations

import sys
from typing import Any

from graphrag_ui.base.terminal import safe_text, said
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import Stages, batch_label, staged_context
from graphrag_ui.retrieval.core.tree import QuestionTree

__all__ = [
    "batch_label",
    "print_first_prompt",
    "print_map_prompts",
    "run_stages",
    "staged_context",
    "stages_summary",
    "tree_summary",
]


def run_stages(result: Retrieval, settings: Any, *, final_answer: bool, use_cache: bool = True, on_token=None):
    """Run the map (and, with ``final_answer``, the reduce) calls; progress on stderr.

    Returns ``(retrieval with its stages filled in, answer or None)``; without a model nothing is
    called and the stages say so.
    """
    from graphrag_ui.base.progress import TextProgress
    from graphrag_ui.model_calls import map_reduce
    from graphrag_ui.model_client.settings import LLMSettings

    bar = TextProgress()
    return map_reduce.run_map_reduce(
        result,
        settings if settings is not None else LLMSettings(model=""),
        stream=on_token is not None,
        on_token=on_token,
        on_progress=lambda done, total, _call: bar("map calls", done, total),
        use_cache=use_cache,
        final_answer=final_answer,
    )


def _reader_label(label: str) -> str:
    """A map call's label ("batch 0", keyed from 0) as the batch lines above it count: "batch 1"."""
    head, _, number = label.partition(" ")
    return f"batch {int(number) + 1}" if head == "batch" and number.isdigit() else label


def stages_summary(stages: Stages) -> str:
    """The run in lines: batches against their budget, each model call, points kept and dropped, the note."""
    lines = [f"stages: {stages.status}"]
    lines += [f"  {batch_label(stages, i)}" for i in range(len(stages.batches))]
    for call in stages.calls:
        cost = "" if call.cost_usd is None else f", ${call.cost_usd:.5f}"
        state = "cached" if call.cached else ("ok" if call.ok else f"FAILED: {call.error}")
        lines.append(
            f"  {call.stage:<6} {_reader_label(call.label):<14} {call.ms:8.1f} ms  "
            f"{call.prompt_tokens} + {call.answer_tokens} tokens{cost}  {state}"
        )
    if stages.points:
        kept = [p for p in stages.points if p.in_context]
        dropped = _dropped_reasons([p.dropped or "not kept" for p in stages.points if not p.in_context])
        lines.append(f"  points: {len(kept)} kept, {len(stages.points) - len(kept)} dropped ({dropped or 'none'})")
    for rating in stages.ratings:
        value = "no rating" if rating.rating is None else f"rating {rating.rating:g}"
        lines.append(f"  rate   community {rating.community_id} (level {rating.level}): {value} — {rating.why}")
    if stages.note:
        lines.append(f"  note: {stages.note}")
    return "\n".join(lines)


REASON_KINDS_SHOWN = 4  # a summary line names at most this many kinds of reason (a map answer may hold 4,000 points)


def _dropped_reasons(reasons: list[str]) -> str:
    """``N × reason`` per kind of reason, bounded: reasons made from one template count as one kind (its
    first instance is shown, with "…" when the others differ), and only the first few kinds are named."""
    kinds: dict[str, list[str]] = {}
    for why in reasons:
        kinds.setdefault(getattr(why, "template", why), []).append(why)
    parts = [f"{len(same)} × {same[0]}{'' if len(set(same)) == 1 else ' …'}" for same in kinds.values()]
    if len(parts) > REASON_KINDS_SHOWN:
        rest = sum(len(same) for same in list(kinds.values())[REASON_KINDS_SHOWN:])
        parts = [*parts[:REASON_KINDS_SHOWN], f"{rest} for {len(parts) - REASON_KINDS_SHOWN} other reason(s)"]
    return "; ".join(parts)


def print_map_prompts(stages: Stages) -> None:
    """What would be sent without a model: each batch's exact map prompt."""
    for i, batch in enumerate(stages.batches):
        print(f"\n--- map prompt that would be sent, {batch_label(stages, i)} ---")
        for message in batch.messages:
            print(safe_text(f"[{message['role']}]\n{message['content']}\n"))
    print(f"note: {said(stages.note)}", file=sys.stderr)


def tree_summary(tree: QuestionTree) -> str:
    """ms.drift's run in lines: each question (depth, round, score, answered or not), the model calls, the note."""
    lines = [f"questions: {tree.status}, {len(tree.nodes)} question(s), {len(tree.rounds)} round(s)"]
    for node in tree.nodes:
        ran = "not run" if node.round is None else ("primer" if node.round == 0 else f"round {node.round}")
        score = "" if node.score is None else f", score {node.score:g}"
        state = "answered" if node.answer is not None else "unanswered"
        lines.append(f"  #{node.id} depth {node.depth} · {ran}{score} · {state}: {node.query}")
    cached = sum(1 for c in tree.calls if c.cached)
    tokens = sum(c.prompt_tokens + c.answer_tokens for c in tree.calls)
    lines.append(f"  model calls: {len(tree.calls)} ({cached} from the cache), {tokens} tokens")
    if tree.note:
        lines.append(f"  note: {said(tree.note)}")
    return "\n".join(lines)


def print_first_prompt(result: Retrieval) -> int:
    """A mode that asks the model while it retrieves (ms.drift), with no model: its first prompt."""
    from graphrag_ui.model_calls import answer as answering

    if result.messages:
        print("\n--- first prompt this mode would send ---")
        for message in result.messages:
            print(safe_text(f"[{message['role']}]\n{message['content']}\n"))
    print(answering.describe_unconfigured())
    return 0
