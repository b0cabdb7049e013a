"""Reading a model's reply, bounded: the first choice, a stream drained, the finish signal, the limits.

Every call asks for at most ``max_tokens()`` tokens (``GRAPHRAG_UI_LLM_MAX_TOKENS``, default 4096; a
caller may ask for fewer) and reads at most ``reply_limit`` characters of what comes back: a server that
ignores the limit (a 10 MB expansion answer drove one DRIFT run to 22 GB) gets an ``LLMError`` of kind
``too_long`` — said, never cached — and a stream is closed as soon as it passes the limit.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.model_client.errors import LLMError
from graphrag_ui.model_client.settings import LLMSettings

ENV_MAX_TOKENS = "GRAPHRAG_UI_LLM_MAX_TOKENS"
DEFAULT_MAX_TOKENS = 4096
CHARS_PER_TOKEN = 16  # a generous bound: tokens average ~4 characters, the longest common ones ~16


def max_tokens() -> int:
    """The answer length every call asks for (``GRAPHRAG_UI_LLM_MAX_TOKENS``, 1 to 10⁶; default 4096)."""
    raw = os.environ.get(ENV_MAX_TOKENS, "").strip()
    try:
        value = int(raw) if raw else DEFAULT_MAX_TOKENS
    except ValueError:
        return DEFAULT_MAX_TOKENS
    return value if 1 <= value <= 1_000_000 else DEFAULT_MAX_TOKENS


def reply_limit(kw: dict[str, Any]) -> int:
    """How many characters of a reply are read: the tokens asked for, at ``CHARS_PER_TOKEN`` each."""
    asked = kw.get("max_tokens") or kw.get("max_completion_tokens") or max_tokens()
    return max(int(asked), 64) * CHARS_PER_TOKEN


def too_long(settings: LLMSettings, limit: int, pieces: list[str] | None = None) -> LLMError:
    """The reply went past ``limit`` characters: refused (not shown as the answer, not cached)."""
    exc = LLMError(
        msg(
            "the model's reply passed {limit} characters although it was asked for at most {tokens} tokens",
            limit=f"{limit:,}",
            tokens=f"{limit // CHARS_PER_TOKEN:,}",
        ),
        where(settings),
        msg(
            "nothing was cached; check the server or provider (it ignores max_tokens), or lower {env}",
            env=ENV_MAX_TOKENS,
        ),
        kind="too_long",
    )
    return with_partial(exc, pieces or [])


def where(settings: LLMSettings) -> str:
    return f"model {settings.model}" + (f" at {settings.api_base}" if settings.api_base else "")


def preview(value: Any, limit: int = 160) -> str:
    """What the model returned, on one line and truncated, for an error message."""
    if not isinstance(value, str):
        try:
            value = value.model_dump_json(exclude_none=True)
        except Exception:  # noqa: BLE001 - any object still has a repr
            value = repr(value)
    text = " ".join(value.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def first_choice(response: Any, settings: LLMSettings) -> Any:
    """The reply's first choice; a reply with none is an ``LLMError`` quoting what came back."""
    choices = getattr(response, "choices", None)
    if not choices or getattr(choices[0], "message", None) is None:
        raise LLMError(
            msg("the model's reply (status 200) held no answer: {response}", response=preview(response)),
            where(settings),
            msg("nothing was shown or cached; try again, and check the server or provider if it keeps happening"),
            kind="empty_reply",
        )
    return choices[0]


def provider_finish(response: Any, finish: str | None) -> str | None:
    """The finish reason the provider really sent: litellm adds a "stop" of its own when it sent none."""
    if hasattr(response, "received_finish_reason"):
        return response.received_finish_reason or getattr(response, "intermittent_finish_reason", None)
    return finish


def unfinished(settings: LLMSettings, pieces: list[str]) -> LLMError:
    if not "".join(pieces).strip():
        return LLMError(
            msg("the model's answer stream (status 200) ended with no answer and no finish signal"),
            where(settings),
            msg("nothing was shown or cached; try again, and check the server or provider if it keeps happening"),
            kind="empty_reply",
        )
    cut = LLMError(
        msg("the answer stream ended before the model said it was finished: the answer is incomplete"),
        where(settings),
        msg("the partial answer is shown but not cached; run the query again"),
        kind="stream_cut",
    )
    return with_partial(cut, pieces)


def drain(response: Iterator[Any], pieces: list[str], on_token: Callable[[str], None] | None, limit: int):
    """The streamed text, usage and finish signal; past ``limit`` characters the stream is closed."""
    usage_obj, finish, read = None, None, 0
    for chunk in response:
        if getattr(chunk, "usage", None) is not None:
            usage_obj = chunk.usage
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        piece = getattr(choice.delta, "content", None)
        if piece:
            pieces.append(piece)
            read += len(piece)
            if read > limit:
                close = getattr(response, "close", None)
                if callable(close):
                    close()  # stop reading: the rest is never received
                raise ReplyTooLong(limit)
            if on_token is not None:
                try:
                    on_token(piece)
                except Exception as exc:
                    raise CallbackError(exc) from exc
        if choice.finish_reason:
            finish = choice.finish_reason
    return "".join(pieces), usage_obj, finish


class CallbackError(Exception):
    """Carries an exception raised by the caller's ``on_token`` past the provider-error handling."""

    def __init__(self, original: Exception) -> None:
        super().__init__(str(original))
        self.original = original


def with_partial(exc: LLMError, pieces: list[str]) -> LLMError:
    exc.partial = "".join(pieces)  # type: ignore[attr-defined]
    return exc


class ReplyTooLong(Exception):
    """A stream passed its limit; the caller turns it into ``too_long``."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"reply passed {limit} characters")
        self.limit = limit
