"""Dynamic community selection for ``ms.global``: the rating rounds, with the model, before batching.

The selection logic is pure (``graphrag_ui.retrieval.ms.global_search.dynamic_selection``); this module only makes its
rating calls — one round per level, concurrently, each through the answer cache and recorded as a
``ModelCall`` of stage ``rate`` — and then builds the Retrieval from the kept reports. A rating call
that fails, or an answer GraphRAG itself would fail on, stops the selection and says so: batches
built from a half-rated tree would look complete but are not. Each rating answer is read before it
is cached, so an unreadable one is never kept and the next run asks the model again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphrag_ui.i18n import msg
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import FAILED, ModelCall
from graphrag_ui.retrieval.ms.global_search import dynamic_selection, search

# GraphRAG asks for a JSON object on every rating call (3.x: response_format_json_object=True)
RATE_LLM_KWARGS = {"response_format": {"type": "json_object"}}


def _default_call_many() -> Callable[..., list[ModelCall]]:
    from graphrag_ui.llm.map_reduce import call_many

    return call_many


def _requests(pending: list[tuple[str, list[dict[str, str]]]], repeats: int) -> list[Any]:
    from graphrag_ui.llm.map_reduce import CallRequest

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


def retrieve_with_selection(
    index: Index,
    query: str,
    params: dict[str, Any],
    deps: Deps,
    settings: Any,
    *,
    call_many: Callable[..., list[ModelCall]] | None = None,
    **call_kwargs: Any,
) -> Retrieval:
    """``ms.global`` with dynamic community selection run for real; without it, the plain retrieval.

    Rating repeats (``dynamic_search_num_repeats``) are separate calls; identical messages hit the
    answer cache, so a repeat only differs when the cache is off — as GraphRAG's repeats differ only
    through the model's sampling."""
    if not params.get("dynamic_community_selection") or not getattr(settings, "configured", False):
        return search.run(index, query, params, deps)
    call_many = call_many or _default_call_many()
    repeats = int(params["dynamic_search_num_repeats"])
    calls: list[ModelCall] = []
    try:
        sel = dynamic_selection.start(index, int(params["community_level"]), params)
        while not sel.done:
            pending = dynamic_selection.pending(sel, query, bool(params["dynamic_search_use_summary"]))
            got = call_many(_requests(pending, repeats), settings, **call_kwargs)
            calls += got
            bad = next((c for c in got if not c.ok), None)
            if bad is not None:
                why = msg("rating call {label} failed: {error}", label=bad.label, error=bad.error)
                return _failed(index, query, params, deps, calls, why)
            answers = {cid: [c.raw for c in got[i * repeats : (i + 1) * repeats]] for i, (cid, _) in enumerate(pending)}
            dynamic_selection.record(sel, answers)
    except dynamic_selection.SelectionError as exc:
        from graphrag_ui.llm.map_reduce import reason

        return _failed(index, query, params, deps, calls, reason(exc))
    out = search.run(index, query, params, deps, selection=sel)
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


def _failed(index, query, params, deps, calls: list[ModelCall], why: str) -> Retrieval:
    out = search.run(index, query, params, deps)
    assert out.stages is not None
    out.stages.calls = calls
    out.stages.status = FAILED
    out.stages.note = msg(
        "dynamic community selection stopped: {why}. No batches from a half-rated tree are sent.", why=why
    )
    out.stages.batches, out.context, out.budgets = [], "", []
    out.warnings = [w for w in out.warnings if "needs a language model" not in w] + [out.stages.note]
    return out
