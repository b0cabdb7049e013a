"""Every provider failure becomes one sentence: what failed and what to check — never a traceback.

litellm maps each provider's errors onto OpenAI-style exception classes with a ``status_code``; the
classes are matched by name so this module does not import litellm (whose import is slow).
"""

from __future__ import annotations

import re

from graphrag_ui.errors import UserError
from graphrag_ui.llm.settings import LLMSettings, scrub

RETRYABLE = {
    "RateLimitError",
    "InternalServerError",
    "ServiceUnavailableError",
    "BadGatewayError",
    "APIConnectionError",
}
RETRYABLE_STATUS = {429, 500, 502, 503, 504, 529}


class LLMError(UserError):
    """A model call failed; the message says what failed and what to check."""

    def __init__(self, what: str, where: str = "", fix: str = "", *, kind: str = "", retryable: bool = False) -> None:
        super().__init__(what, where, fix)
        self.kind = kind
        self.retryable = retryable


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def status_of(exc: BaseException) -> int | None:
    code = getattr(exc, "status_code", None)
    return code if isinstance(code, int) else None


def is_retryable(exc: BaseException) -> bool:
    names = _names(exc)
    if "Timeout" in names or "APITimeoutError" in names:
        return False  # the user already waited the whole timeout once
    if names & {"AuthenticationError", "BadRequestError", "NotFoundError", "PermissionDeniedError"}:
        return False
    if "MidStreamFallbackError" in names:
        return False  # part of the answer was already shown
    return bool(names & RETRYABLE) or status_of(exc) in RETRYABLE_STATUS


def _detail(exc: BaseException, settings: LLMSettings) -> str:
    """The provider's own message, shortened, without litellm's prefixes and without any key."""
    text = str(exc).strip()
    for prefix in ("litellm.", "OpenAIException - ", "AnthropicException - "):
        text = text.replace(prefix, "")
    text = text.split("\n", 1)[0]
    if "Original exception" in text:
        text = text.split("Original exception", 1)[0].strip()
    text = " ".join(text.split())
    text = re.sub(r"^(?:(?:\w+Error|APIConnectionError|Timeout): )+", "", text)
    if len(text) > 200:
        text = text[:197] + "..."
    return scrub(text, settings)


def explain(exc: BaseException, settings: LLMSettings, *, attempts: int = 1) -> LLMError:
    """Turn a litellm/httpx/OS exception from a call to ``settings.model`` into an ``LLMError``."""
    if isinstance(exc, LLMError):
        return exc
    names = _names(exc)
    status = status_of(exc)
    model = settings.model or "(no model)"
    where = f"model {model}" + (f" at {settings.api_base}" if settings.api_base else "")
    tried = f" after {attempts} attempts" if attempts > 1 else ""
    detail = _detail(exc, settings)

    if "Timeout" in names or "APITimeoutError" in names or isinstance(exc, TimeoutError):
        return LLMError(
            f"the model did not answer within {settings.timeout:g} s",
            where,
            "check that the server is running and reachable, or raise the timeout in Settings",
            kind="timeout",
        )
    if "MidStreamFallbackError" in names or "incomplete chunked read" in detail or "peer closed" in detail:
        return LLMError(
            "the answer stream broke off before the model finished",
            where,
            "the partial answer is shown; run the query again, and check the server's logs if it keeps happening",
            kind="stream_cut",
        )
    if "AuthenticationError" in names or status == 401:
        return LLMError(
            "the provider rejected the API key",
            where,
            f"check {settings.key_hint()} (currently {settings.masked_key() or 'not set'})",
            kind="auth",
        )
    if "PermissionDeniedError" in names or status == 403:
        return LLMError(
            "the provider refused access to this model", where, "check that your key may use this model", kind="auth"
        )
    if "NotFoundError" in names or status == 404:
        return LLMError(
            f"the model or endpoint was not found ({detail})",
            where,
            "check the model name (litellm form, e.g. openai/gpt-4o-mini, ollama/llama3) and the API base URL",
            kind="not_found",
        )
    if "ContextWindowExceededError" in names:
        return LLMError(
            "the prompt is longer than the model's context window",
            where,
            "lower the token budgets or top_k, or choose a model with a larger context",
            kind="context_window",
        )
    if "RateLimitError" in names or status == 429:
        return LLMError(
            f"the provider kept refusing with 'rate limit'{tried}",
            where,
            "wait a minute and try again, or check your plan's quota",
            kind="rate_limit",
            retryable=True,
        )
    if "BadRequestError" in names or status in (400, 422):
        return LLMError(
            f"the provider rejected the request ({detail})",
            where,
            "check the model name and its parameters",
            kind="bad_request",
        )
    if "Connection error" in detail or "APIConnectionError" in names and status in (None, 500):
        return LLMError(
            f"could not connect to the model server{tried}",
            where,
            "check the API base URL, that the server is running, and your network",
            kind="connection",
            retryable=True,
        )
    if (
        status is not None
        and status >= 500
        or names & {"InternalServerError", "ServiceUnavailableError", "BadGatewayError"}
    ):
        return LLMError(
            f"the provider's server failed with status {status or 500}{tried} ({detail})",
            where,
            "the server is having trouble: try again later, and check its logs if it is yours",
            kind="server",
            retryable=True,
        )
    if "APIConnectionError" in names or isinstance(exc, (ConnectionError, OSError)):
        return LLMError(
            f"could not connect to the model server{tried} ({detail})",
            where,
            "check the API base URL, that the server is running, and your network",
            kind="connection",
            retryable=True,
        )
    if "BadRequestError" in names or "LiteLLMUnknownProvider" in names or "provider" in detail.lower():
        return LLMError(
            f"litellm cannot call this model ({detail})",
            where,
            "use a litellm model name such as openai/gpt-4o-mini",
            kind="config",
        )
    return LLMError(
        f"the model call failed: {type(exc).__name__}: {detail}", where, "check the model settings", kind="other"
    )
