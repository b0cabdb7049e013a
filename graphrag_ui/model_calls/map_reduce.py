"""The model stages of a map-reduce mode (``ms.global``, ``nano.global``): map, reduce, answer.

The mode's context builder is pure: its ``Retrieval.stages`` holds every batch with its exact map
prompt. Here the map calls run (at most ``MAP_CONCURRENCY`` at once, each through the answer cache),
each answer is read by the mode's ``parse_map`` into points, the mode's ``reduce`` picks the points and
writes the reduce prompt, and the final answer is that prompt sent through the ordinary answer layer
(``graphrag_ui.model_calls.answer``: same cache, streaming and error handling as every other mode). Every call
is recorded in ``stages.calls`` — from the cache or not — so re-running a question costs nothing and
shows where the time and tokens went.

A failed map call stops the run before the reduce stage: an answer built from the other batches would
look complete while missing reports. Failures are never cached, so running again only repeats the
calls that failed. Without a model every batch and map prompt stays visible and the note says plainly
that the map and reduce stages need one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from typing import Any

from graphrag_ui.base.i18n import joined, msg
from graphrag_ui.base.timing import elapsed_ms, now
from graphrag_ui.model_calls import prompts
from graphrag_ui.model_calls.answer import INCOMPLETE_KINDS, AnswerResult, answer, short_help, unconfigured_error
from graphrag_ui.model_client import usage
from graphrag_ui.model_client.cache import LLMCache, args_hash, default_cache
from graphrag_ui.model_client.errors import LLMError
from graphrag_ui.model_client.settings import LLMSettings, scrub
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import (
    DONE,
    FAILED,
    NEEDS_MODEL,
    MalformedAnswer,
    MapReduceHooks,
    ModelCall,
    Point,
    Stages,
)
from graphrag_ui.retrieval.spec.model_stages import CallRequest, Parse, reason

MAP_CONCURRENCY = 4  # map calls in flight at once: fast, and gentle on a provider's rate limit
ERROR_CHARS = 200  # a model's reply quoted in an error line is cut to this

Progress = Callable[[int, int, ModelCall], None]  # (calls done, calls in all, the call just finished)


# --- one call --------------------------------------------------------------------------------------


def call_key(stage: str, messages: list[dict[str, str]], settings: LLMSettings, llm_kwargs: dict[str, Any]) -> str:
    return args_hash(kind=stage, model=settings.identity(), messages=messages, llm_kwargs=llm_kwargs)


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= ERROR_CHARS else flat[: ERROR_CHARS - 1] + "…"


def _read(record: ModelCall, parse: Parse | None) -> ModelCall:
    """Parse ``record.raw`` into ``record.parsed``; a reply the parser rejects makes the call not ok."""
    if parse is None:
        return record
    try:
        record.parsed = parse(record.raw)
    except ValueError as exc:
        record.ok = False
        record.error = msg("the answer could not be read ({why}): {raw}", why=reason(exc), raw=repr(_quote(record.raw)))
    return record


def call_model(
    request: CallRequest,
    settings: LLMSettings,
    *,
    use_cache: bool = True,
    cache: LLMCache | None = None,
) -> ModelCall:
    """Make one call (or take it from the cache), timed and recorded; never raises for a model fault.

    Only a complete, non-empty reply that ``parse`` accepts is cached: an empty, cut or unreadable
    answer is recorded as not ok and asked again next time.
    """
    started = now()
    record = ModelCall(stage=request.stage, label=request.label)

    def done(rec: ModelCall) -> ModelCall:
        rec.ms = elapsed_ms(started)
        return rec

    if not settings.configured:
        record.ok = False
        record.error = unconfigured_error()
        record.prompt_tokens = usage.estimate_prompt_tokens(request.messages)
        return done(record)
    store = (cache or default_cache()) if use_cache else None
    key = call_key(request.stage, request.messages, settings, request.llm_kwargs)
    hit = store.get(key) if store is not None else None
    if hit is not None and isinstance(hit.get("text"), str):
        record.raw, record.cached = hit["text"], True
        record.prompt_tokens = int(hit.get("prompt_tokens", 0))
        record.answer_tokens = int(hit.get("answer_tokens", 0))
        record.cost_usd = hit.get("cost_usd")
        reread = _read(record, request.parse)
        if reread.ok:
            return done(reread)
        record = ModelCall(stage=request.stage, label=request.label)  # the parser changed: ask again

    from graphrag_ui.model_client import client

    client.litellm()  # its first import takes seconds: not part of this call's time
    started = now()
    try:
        result = client.call(request.messages, settings, **request.llm_kwargs)
    except LLMError as exc:
        record.ok = False
        record.error = scrub(exc.message, settings)
        record.raw = getattr(exc, "partial", "") or ""
        record.prompt_tokens = usage.estimate_prompt_tokens(request.messages)
        return done(record)
    record.raw = result.text
    record.prompt_tokens, record.answer_tokens = result.prompt_tokens, result.completion_tokens
    record.cost_usd = result.cost_usd
    if not result.text.strip():
        record.ok, record.error = False, msg("the model returned an empty answer")
        return done(record)
    if result.finish_reason == "length":
        record.ok = False
        record.error = msg("the answer was cut off at the model's length limit: {raw}", raw=repr(_quote(result.text)))
        return done(record)
    _read(record, request.parse)
    if record.ok and store is not None:
        value = {
            "text": record.raw,
            "prompt_tokens": record.prompt_tokens,
            "answer_tokens": record.answer_tokens,
            "cost_usd": record.cost_usd,
        }
        store.put(key, request.stage, settings.model, value)
    return done(record)


def call_many(
    requests: Sequence[CallRequest],
    settings: LLMSettings,
    *,
    concurrency: int = MAP_CONCURRENCY,
    on_progress: Progress | None = None,
    use_cache: bool = True,
    cache: LLMCache | None = None,
) -> list[ModelCall]:
    """Run ``requests`` at most ``concurrency`` at once; results in request order.

    ``on_progress`` is called in the caller's thread (Streamlit can draw from it) after each call.
    """
    results: list[ModelCall | None] = [None] * len(requests)
    if not requests:
        return []
    store = (cache or default_cache()) if use_cache else None
    with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(requests)))) as pool:
        futures = {
            pool.submit(call_model, request, settings, use_cache=use_cache, cache=store): i
            for i, request in enumerate(requests)
        }
        for finished, future in enumerate(as_completed(futures), start=1):
            results[futures[future]] = record = future.result()
            if on_progress is not None:
                on_progress(finished, len(requests), record)
    return [r for r in results if r is not None]


# --- the map-reduce run ----------------------------------------------------------------------------


def hooks_of(mode: str) -> MapReduceHooks:
    from graphrag_ui.base.errors import UserError
    from graphrag_ui.retrieval.registry import get_mode

    stages = get_mode(mode).stages
    hooks = stages.map_reduce if stages is not None else None
    if hooks is None:
        raise UserError(msg("mode {mode} is not a map-reduce mode", mode=mode))
    return hooks


def _map_parser(hooks: MapReduceHooks, label: str, fallbacks: dict[str, list[tuple[str, float]]]) -> Parse:
    """``hooks.parse_map`` as a call parser: (description, score) pairs become point dicts.

    A ``MalformedAnswer`` still fails the call (never cached) but leaves the reference's fallback
    points in ``fallbacks[label]``, for the reduce stage to receive as the reference would.
    """

    def parse(raw: str) -> list[dict[str, Any]]:
        try:
            pairs = hooks.parse_map(raw)
        except MalformedAnswer as exc:
            fallbacks[label] = list(exc.fallback)
            raise
        fallbacks.pop(label, None)
        return [{"description": d, "score": s} for d, s in pairs]

    return parse


def needs_model_note(stages: Stages) -> str:
    n = len(stages.batches)
    return msg(
        "{n} map batch(es) and their exact prompts are ready; the map and reduce stages need a language model and "
        "none is configured, so no points, reduce context or answer exist — {help}",
        n=n,
        help=short_help(),
    )


def run_map_reduce(
    retrieval: Retrieval,
    settings: LLMSettings,
    *,
    hooks: MapReduceHooks | None = None,
    stream: bool = False,
    on_token: Callable[[str], None] | None = None,
    on_progress: Progress | None = None,
    use_cache: bool = True,
    cache: LLMCache | None = None,
    concurrency: int = MAP_CONCURRENCY,
    final_answer: bool = True,
) -> tuple[Retrieval, AnswerResult | None]:
    """Map every batch, reduce, answer; returns the Retrieval with its stages filled in, and the answer.

    The input Retrieval is not changed. ``on_progress`` reports each map call; ``on_token`` streams the
    final answer. ``final_answer=False`` stops once the reduce context is built (the reference's
    "only need context", which still runs the map calls); the answer is then ``None``.
    """
    from graphrag_ui.base.errors import UserError

    if retrieval.stages is None:
        raise UserError(msg("mode {mode} has no map and reduce stages", mode=retrieval.mode))
    hooks = hooks or hooks_of(retrieval.mode)
    stages = Stages.from_dict(_plain(retrieval.stages))
    stages.calls = [c for c in stages.calls if c.stage == "rate"]  # ratings came with the retrieval
    stages.points, stages.reduce_context, stages.reduce_messages = [], "", []
    out = replace(retrieval, stages=stages)
    if retrieval.stages.status == FAILED:  # a model stage before the map (e.g. community rating) failed
        stages.status, stages.note = FAILED, retrieval.stages.note
        return out, _no_answer(stages.note, "failed_before_map", settings)
    if not settings.configured:
        stages.status, stages.note = NEEDS_MODEL, needs_model_note(stages)
        return out, _no_answer(stages.note, "config", settings)

    kwargs = dict(getattr(hooks, "map_llm_kwargs", None) or {})
    fallbacks: dict[str, list[tuple[str, float]]] = {}
    requests = [
        CallRequest("map", label, b.messages, _map_parser(hooks, label, fallbacks), kwargs)
        for b in stages.batches
        for label in [f"batch {b.index}"]
    ]
    store = (cache or default_cache()) if use_cache else None
    calls = call_many(
        requests, settings, concurrency=concurrency, on_progress=on_progress, use_cache=use_cache, cache=store
    )
    stages.calls += calls

    failed = [(b, c) for b, c in zip(stages.batches, calls, strict=True) if not c.ok and c.label not in fallbacks]
    if failed:
        batch, call = failed[0]
        stages.status = FAILED
        stages.note = msg(
            "{failed} of {n} map call(s) failed (first: batch {batch}: {error}); the reduce stage did not run, since "
            "an answer without those batches' reports would look complete but is not. Run again: answered batches "
            "come from the cache.",
            failed=len(failed),
            n=len(calls),
            batch=batch.index,
            error=call.error,
        )
        return out, _no_answer(stages.note, "map_failed", settings)

    for batch, call in zip(stages.batches, calls, strict=True):
        pairs = fallbacks.get(call.label) or [(p["description"], p["score"]) for p in call.parsed]
        # scores stay as parse_map gave them: a reference may print 80 and 80.0 differently
        stages.points += [Point(batch.index, d, s, list(batch.community_ids)) for d, s in pairs]
    stages.reduce_context, stages.reduce_messages = hooks.reduce(stages.points, retrieval.query, retrieval.params)
    notes: list[str] = []
    for c in calls:
        if not c.ok:  # a malformed answer whose fallback points went on, as the reference's do
            notes.append(
                msg(
                    "batch {label}'s map answer could not be read (the reference's fallback was used, as it does)",
                    label=c.label.removeprefix("batch "),
                )
            )
    if not stages.reduce_context.strip() and store is not None:
        # no point above 0: the run ends in the reference's no-data answer, which a user asks again after
        # changing something; keeping these map answers would repeat it without asking the model
        store.delete([call_key("map", r.messages, settings, r.llm_kwargs) for r in requests])
    reply = _reduce(out, hooks, settings, stream, on_token, use_cache, store) if final_answer else None
    if reply is not None and reply.error:
        stages.status = FAILED
        if reply.error_kind in INCOMPLETE_KINDS:
            stages.note = msg(
                "the map stage ran ({n} call(s)); the reduce answer is incomplete: {error}",
                n=len(calls),
                error=reply.error,
            )
        else:
            stages.note = msg(
                "the map stage ran ({n} call(s)); the reduce call failed: {error}", n=len(calls), error=reply.error
            )
        return out, reply
    stages.status = DONE
    kept = sum(1 for p in stages.points if p.in_context)
    stages.note = joined(
        msg(
            "{n} map call(s) gave {points} point(s); {kept} reached the reduce context",
            n=len(calls),
            points=len(stages.points),
            kept=kept,
        ),
        *notes,
        "" if final_answer else msg("the reduce call (the answer) was not made: context only"),
    )
    return out, reply


def _reduce(out: Retrieval, hooks, settings, stream, on_token, use_cache, store) -> AnswerResult:
    """The reduce call is the answer: the reduce prompt through the answer layer, recorded as a call."""
    stages = out.stages
    assert stages is not None
    reduce_view = replace(out, context=stages.reduce_context, messages=stages.reduce_messages)
    if not stages.reduce_context.strip():  # no point survived: the reference answers without a model call
        fail = str(getattr(hooks, "fail_response", "") or prompts.FAIL_RESPONSE)
        if on_token is not None and stream:
            on_token(fail)
        return AnswerResult(fail, False, 0, 0, None, settings.model)
    reply = answer(reduce_view, settings, stream=stream, on_token=on_token, use_cache=use_cache, cache=store)
    stages.calls.append(
        ModelCall(
            stage="reduce",
            label="answer",
            prompt_tokens=reply.prompt_tokens,
            answer_tokens=reply.answer_tokens,
            ms=reply.seconds * 1000,
            cost_usd=reply.cost_usd,
            cached=reply.cached,
            ok=not reply.error,
            error=reply.error or "",
            raw=reply.text,
        )
    )
    return reply


def _no_answer(note: str, kind: str, settings: LLMSettings) -> AnswerResult:
    return AnswerResult("", False, 0, 0, None, settings.model, error=note, error_kind=kind)


def _plain(stages: Stages) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(stages)
