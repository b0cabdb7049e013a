"""The one way this project calls a chat model: litellm, streamed or not, sync or async.

Any litellm model name works (``gpt-4o-mini``, ``anthropic/claude-...``, ``azure/<deployment>``,
``ollama/llama3``, ``openai/<name>`` with an ``api_base`` for a local OpenAI-compatible server).
The retry policy is tenacity's, declared once in ``_retrying`` below for all four call shapes (bounded,
exponential backoff with jitter, ``Retry-After`` honoured); the SDK's own retries are off so a call never
waits longer than we say. Every failure leaves as an ``LLMError`` whose message is one sentence; a stream
that breaks keeps the text received so far in ``LLMError.partial``. litellm is imported on first use: it costs seconds.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from graphrag_ui.base.i18n import msg
from graphrag_ui.base.timing import elapsed_s, now
from graphrag_ui.model_client import usage
from graphrag_ui.model_client.errors import LLMError, explain, is_retryable
from graphrag_ui.model_client.replies import (
    CallbackError,
    ReplyTooLong,
    drain,
    first_choice,
    max_tokens,
    provider_finish,
    reply_limit,
    too_long,
    unfinished,
    with_partial,
)
from graphrag_ui.model_client.settings import LLMSettings, scrub

log = logging.getLogger(__name__)

BACKOFF_BASE = 0.5  # seconds before the first retry; doubles each time
BACKOFF_MAX = 8.0
RETRY_AFTER_MAX = 20.0
_NO_KEY = "no-key-needed"  # OpenAI-compatible local servers accept any bearer token

_litellm_module: Any = None


def loaded() -> bool:
    """Whether litellm is imported already (its first import takes seconds)."""
    return _litellm_module is not None


def litellm() -> Any:
    """Import and quieten litellm once (no debug banner, no telemetry, unknown params dropped)."""
    global _litellm_module
    if _litellm_module is None:
        import litellm as module

        module.suppress_debug_info = True
        module.telemetry = False
        module.drop_params = True
        module.disable_streaming_logging = True  # no callbacks here; skips a thread hand-off per chunk
        logging.getLogger("LiteLLM").setLevel(logging.ERROR)
        _litellm_module = module
    return _litellm_module


@dataclass
class CallResult:
    text: str
    prompt_tokens: int
    completion_tokens: int
    tokens_estimated: bool  # True when the provider sent no usage and we counted locally
    finish_reason: str | None
    model: str
    attempts: int
    seconds: float

    @property
    def cost_usd(self) -> float | None:
        return usage.cost_usd(self.model, self.prompt_tokens, self.completion_tokens)


def _resolve(
    settings: LLMSettings | None, model: str | None, api_base: str | None, timeout: float | None
) -> LLMSettings:
    """Explicit arguments over ``settings`` over the environment / secrets.toml.

    A model named explicitly that differs from the configured one does not inherit the configured API
    base or explicit key (they belong to the other model); timeout and retries are kept.
    """
    if settings is None:
        settings = LLMSettings.from_env_and_secrets()
        if model is not None and model != settings.model:
            settings = LLMSettings(model=model, timeout=settings.timeout, max_retries=settings.max_retries)
    changes: dict[str, Any] = {}
    if model is not None:
        changes["model"] = model
    if api_base is not None:
        changes["api_base"] = api_base
    if timeout is not None:
        changes["timeout"] = float(timeout)
    settings = settings.with_(**changes) if changes else settings
    if not settings.configured:
        raise LLMError(msg("no language model is configured"), fix=describe_unconfigured_short(), kind="config")
    return settings


def describe_unconfigured_short() -> str:
    return msg(
        "set GRAPHRAG_UI_LLM_MODEL (e.g. openai/gpt-4o-mini) and the provider's key, or choose a model in Settings"
    )


def _kwargs(
    settings: LLMSettings, messages: list[dict[str, str]], stream: bool, extra: dict[str, Any]
) -> dict[str, Any]:
    kw: dict[str, Any] = {
        "model": settings.model,
        "messages": messages,
        "timeout": settings.timeout,
        "max_retries": 0,  # the OpenAI SDK's own retries: off, ours are counted and bounded
        "stream": stream,
    }
    if settings.api_base:
        kw["api_base"] = settings.api_base
    key = settings.api_key or ("" if settings.key() else (_NO_KEY if settings.api_base else ""))
    if key:
        kw["api_key"] = key
    if settings.temperature is not None:
        kw["temperature"] = settings.temperature
    if stream:
        kw["stream_options"] = {"include_usage": True}
    kw.update(extra)
    if not kw.get("max_tokens") and not kw.get("max_completion_tokens"):
        kw["max_tokens"] = max_tokens()  # every call bounded (replies.py); a caller may ask for fewer
    return kw


def _wait(state: RetryCallState) -> float:
    """The server's Retry-After (capped) when it sent one, else exponential backoff with jitter."""
    exc = state.outcome.exception()  # type: ignore[union-attr]
    for headers in (
        getattr(exc, "litellm_response_headers", None),
        getattr(exc, "headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ):
        try:
            after = float((headers or {}).get("retry-after", ""))
        except (TypeError, ValueError, AttributeError):
            continue
        return min(max(after, 0.0), RETRY_AFTER_MAX)
    return min(BACKOFF_MAX, BACKOFF_BASE * 2 ** (state.attempt_number - 1)) * random.uniform(0.5, 1.0)


def _log_retry(state: RetryCallState) -> None:
    name, delay = type(state.outcome.exception()).__name__, state.upcoming_sleep  # type: ignore[union-attr]
    log.info("model call failed (%s); retry %d in %.2f s", name, state.attempt_number, delay)


def _retrying(settings: LLMSettings, pieces: list[str] | None = None, *, aio: bool = False) -> Any:
    """The retry policy of every model call: ``1 + max_retries`` attempts while ``is_retryable``, never once
    ``pieces`` holds streamed text. The last error is re-raised as is; ``statistics`` counts the attempts."""
    return (AsyncRetrying if aio else Retrying)(
        stop=stop_after_attempt(1 + settings.max_retries),
        wait=_wait,
        retry=retry_if_exception(lambda exc: not pieces and isinstance(exc, Exception) and is_retryable(exc)),
        before_sleep=_log_retry,
        sleep=asyncio.sleep if aio else time.sleep,
        reraise=True,
    )


def _finish(settings, messages, text, usage_obj, finish, attempts, started) -> CallResult:
    prompt_tokens = getattr(usage_obj, "prompt_tokens", None) if usage_obj else None
    completion_tokens = getattr(usage_obj, "completion_tokens", None) if usage_obj else None
    estimated = not prompt_tokens and not completion_tokens  # litellm reports zeros when the server sent none
    if estimated:
        prompt_tokens = usage.estimate_prompt_tokens(messages)
        completion_tokens = usage.estimate_tokens(text)
    return CallResult(
        text=text,
        prompt_tokens=int(prompt_tokens),
        completion_tokens=int(completion_tokens or 0),
        tokens_estimated=estimated,
        finish_reason=finish,
        model=settings.model,
        attempts=attempts,
        seconds=elapsed_s(started),
    )


def call(messages: list[dict[str, str]], settings: LLMSettings | None = None, **extra: Any) -> CallResult:
    """One non-streamed call with retries; raises ``LLMError``."""
    settings = _resolve(settings, None, None, None)
    started = now()
    kw = _kwargs(settings, messages, False, extra)
    retrying = _retrying(settings)
    try:
        for attempt in retrying:
            with attempt:
                response = litellm().completion(**kw)
    except Exception as exc:  # litellm raises many classes; all are mapped by explain()
        raise explain(exc, settings, attempts=retrying.statistics["attempt_number"]) from None
    choice = first_choice(response, settings)
    text = choice.message.content or ""
    if len(text) > reply_limit(kw):
        raise too_long(settings, reply_limit(kw))
    attempts = retrying.statistics["attempt_number"]
    return _finish(settings, messages, text, getattr(response, "usage", None), choice.finish_reason, attempts, started)


def complete(
    messages: list[dict[str, str]],
    *,
    model: str | None = None,
    api_base: str | None = None,
    timeout: float | None = None,
    settings: LLMSettings | None = None,
    **extra: Any,
) -> str:
    """Non-streamed answer text (for the index builder). Raises ``LLMError`` with one clear sentence.

    ``timeout`` defaults to the settings' (``GRAPHRAG_UI_LLM_TIMEOUT``, else 120 s).
    """
    return call(messages, _resolve(settings, model, api_base, timeout), **extra).text


def stream(
    messages: list[dict[str, str]],
    settings: LLMSettings | None = None,
    on_token: Callable[[str], None] | None = None,
    **extra: Any,
) -> CallResult:
    """Streamed call: ``on_token`` gets each text piece as it arrives. Retries only before the first piece."""
    settings = _resolve(settings, None, None, None)
    started = now()
    kw = _kwargs(settings, messages, True, extra)
    pieces: list[str] = []
    retrying = _retrying(settings, pieces)
    try:
        for attempt in retrying:
            with attempt:
                response = litellm().completion(**kw)
                text, usage_obj, finish = drain(response, pieces, on_token, reply_limit(kw))
                finish = provider_finish(response, finish)
    except CallbackError as exc:
        raise exc.original from None  # the caller's own error, not the model's
    except ReplyTooLong as exc:
        raise too_long(settings, exc.limit, pieces) from None
    except Exception as exc:  # litellm raises many classes; all are mapped by explain()
        raise with_partial(explain(exc, settings, attempts=retrying.statistics["attempt_number"]), pieces) from None
    if finish is None:
        raise unfinished(settings, pieces)
    return _finish(settings, messages, text, usage_obj, finish, retrying.statistics["attempt_number"], started)


async def acall(messages: list[dict[str, str]], settings: LLMSettings | None = None, **extra: Any) -> CallResult:
    """Async non-streamed call with the same retries and errors as ``call``."""
    settings = _resolve(settings, None, None, None)
    started = now()
    kw = _kwargs(settings, messages, False, extra)
    retrying = _retrying(settings, aio=True)
    try:
        async for attempt in retrying:
            with attempt:
                response = await litellm().acompletion(**kw)
    except Exception as exc:
        raise explain(exc, settings, attempts=retrying.statistics["attempt_number"]) from None
    choice = first_choice(response, settings)
    text = choice.message.content or ""
    if len(text) > reply_limit(kw):
        raise too_long(settings, reply_limit(kw))
    attempts = retrying.statistics["attempt_number"]
    return _finish(settings, messages, text, getattr(response, "usage", None), choice.finish_reason, attempts, started)


async def acomplete(
    messages: list[dict[str, str]],
    *,
    model: str | None = None,
    api_base: str | None = None,
    timeout: float | None = None,
    settings: LLMSettings | None = None,
    **extra: Any,
) -> str:
    return (await acall(messages, _resolve(settings, model, api_base, timeout), **extra)).text


async def astream(
    messages: list[dict[str, str]], settings: LLMSettings | None = None, **extra: Any
) -> AsyncIterator[str]:
    """Async generator of text pieces; raises ``LLMError`` (with ``partial``) on failure or a cut stream.

    Like ``stream``, it retries only while no piece has been yielded.
    """
    settings = _resolve(settings, None, None, None)
    kw = _kwargs(settings, messages, True, extra)
    pieces: list[str] = []
    finish, limit = None, reply_limit(kw)
    retrying = _retrying(settings, pieces, aio=True)
    try:
        async for attempt in retrying:
            with attempt:
                response = await litellm().acompletion(**kw)
                async for chunk in response:
                    if not chunk.choices:
                        continue
                    piece = getattr(chunk.choices[0].delta, "content", None)
                    if piece:
                        pieces.append(piece)
                        if sum(map(len, pieces)) > limit:
                            raise ReplyTooLong(limit)
                        yield piece
                    finish = chunk.choices[0].finish_reason or finish
                finish = provider_finish(response, finish)
    except ReplyTooLong:
        raise too_long(settings, limit, pieces) from None
    except Exception as exc:
        raise with_partial(explain(exc, settings, attempts=retrying.statistics["attempt_number"]), pieces) from None
    if finish is None:
        raise unfinished(settings, pieces)


def preload() -> None:
    """Import litellm in a background thread (it takes seconds), so the first answer does not wait."""
    import threading

    if _litellm_module is None:
        threading.Thread(target=litellm, name="litellm-preload", daemon=True).start()


def test_connection(settings: LLMSettings) -> tuple[bool, str]:
    """A one-token request, for the Settings page: (ok, one sentence to show)."""
    if not settings.configured:
        return False, msg("No model is configured: {help}.", help=describe_unconfigured_short())
    quick = settings.with_(max_retries=0, timeout=min(settings.timeout, 30.0))
    try:
        result = call([{"role": "user", "content": "Reply with the single word: ok"}], quick, max_tokens=5)
    except LLMError as exc:
        return False, exc.message
    reply = scrub(" ".join(result.text.split())[:40], settings)
    return True, msg(
        "{model} answered in {ms} ms ({reply}).",
        model=settings.model,
        ms=f"{result.seconds * 1000:.0f}",
        reply=repr(reply),
    )
