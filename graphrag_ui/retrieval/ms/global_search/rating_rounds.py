"""``ms.global``'s dynamic community selection with a model: the rating rounds, then the batches.

GraphRAG's ``DynamicCommunitySelection.select`` rates the reports of one level at a time and descends
into the children of those rated high enough; the selection logic itself is pure
(``dynamic_selection``). Here the rounds run: each round's rating prompts go to ``ask`` (the query
service's driver: answer cache, concurrency, one ``ModelCall`` of stage ``rate`` per call), the replies
are recorded, and the kept reports become the batches (``search.run``). A rating call that fails, or an
answer GraphRAG itself would fail on, stops the selection and says so: batches built from a half-rated
tree would look complete but are not. Each rating answer is read before it is cached (``read_rating``
is the call's parser), so an unreadable one is never kept and the next run asks the model again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import FAILED, ModelCall
from graphrag_ui.retrieval.ms.global_search import dynamic_selection
from graphrag_ui.retrieval.ms.global_search.params import TYPED
from graphrag_ui.retrieval.spec.model_stages import Ask, CallRequest, reason

# GraphRAG asks for a JSON object on every rating call (3.x: response_format_json_object=True)
RATE_LLM_KWARGS = {"response_format": {"type": "json_object"}}

Build = Callable[..., Retrieval]  # search.run(index, query, params, deps, selection=...)


def applies(params: dict[str, Any]) -> bool:
    """The rounds run only when the query asks for dynamic selection."""
    return TYPED.of(params).dynamic_community_selection


def _requests(pending: list[tuple[str, list[dict[str, str]]]], repeats: int) -> list[CallRequest]:
    return [
        CallRequest(
            "rate",
            f"community {cid}" + (f" (vote {n + 1})" if repeats > 1 else ""),
            messages,
            dynamic_selection.read_rating,  # checked before it is cached: a garbage rating is asked again
            RATE_LLM_KWARGS,
        )
        for cid, messages in pending
        for n in range(repeats)
    ]


def run(index: Index, query: str, params: dict[str, Any], deps: Deps, ask: Ask, *, build: Build) -> Retrieval:
    """Rate level by level through ``ask``, then ``build`` the batches from the kept reports.

    Rating repeats (``dynamic_search_num_repeats``) are separate calls; identical messages hit the
    answer cache, so a repeat only differs when the cache is off — as GraphRAG's repeats differ only
    through the model's sampling."""
    typed = TYPED.of(params)
    repeats = typed.dynamic_search_num_repeats
    calls: list[ModelCall] = []
    try:
        sel = dynamic_selection.start(index, typed.community_level, params)
        while not sel.done:
            pending = dynamic_selection.pending(sel, query, typed.dynamic_search_use_summary)
            got = ask("rating", _requests(pending, repeats))
            calls += got
            bad = next((c for c in got if not c.ok), None)
            if bad is not None:
                why = msg("rating call {label} failed: {error}", label=bad.label, error=bad.error)
                return _failed(build(index, query, params, deps), calls, why)
            answers = {cid: [c.raw for c in got[i * repeats : (i + 1) * repeats]] for i, (cid, _) in enumerate(pending)}
            dynamic_selection.record(sel, answers)
    except dynamic_selection.SelectionError as exc:
        return _failed(build(index, query, params, deps), calls, reason(exc))
    out = build(index, query, params, deps, selection=sel)
    assert out.stages is not None
    out.stages.calls = calls + out.stages.calls
    kept = sum(r.kept for r in sel.ratings)
    out.stages.note = msg(
        "dynamic selection: {calls} rating call(s), {kept} report(s) kept; {note}",
        calls=len(calls),
        kept=kept,
        note=out.stages.note,
    )
    return out


def _failed(out: Retrieval, calls: list[ModelCall], why: str) -> Retrieval:
    """The static retrieval, emptied of batches, with the calls made so far and why the selection stopped."""
    assert out.stages is not None
    out.stages.calls = calls
    out.stages.status = FAILED
    out.stages.note = msg(
        "dynamic community selection stopped: {why}. No batches from a half-rated tree are sent.", why=why
    )
    out.stages.batches, out.context, out.budgets = [], "", []
    out.warnings = [w for w in out.warnings if "needs a language model" not in w] + [out.stages.note]
    return out
