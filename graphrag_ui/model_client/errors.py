"""Every provider failure becomes one sentence: what failed and what to check — never a traceback.

litellm maps each provider's errors onto OpenAI-style exception classes with a ``status_code``; the
classes are matched by name so this module does not import litellm (whose import is slow). One
classification (``classify``) decides both the message and whether a retry can help.
"""

from __future__ import annotations

import re

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.model_client.settings import LLMSettings, scrub

RETRYABLE_KINDS = {"rate_limit", "server", "connection"}
_SERVER_CLASSES = {"InternalServerError", "ServiceUnavailableError", "BadGatewayError"}
# what Python's json module says about a body that is not JSON (litellm wraps it as a "500")
_JSON_ERROR = re.compile(
    r"Expecting (?:value|property name|',' delimiter|':' delimiter)|Unterminated string|Extra data|"
    r"Invalid control character|JSONDecodeError"
)


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


def _raw(exc: BaseException) -> str:
    return str(exc)


def classify(exc: BaseException) -> str:
    """The failure kind: timeout, malformed, stream_cut, no_provider, no_key, auth, not_found, context_window,
    rate_limit, bad_request, connection, server or other."""
    names, status, text = _names(exc), status_of(exc), _raw(exc)
    if names & {"Timeout", "APITimeoutError"} or isinstance(exc, TimeoutError):
        return "timeout"
    if "<APIResponse [200" in text or ("MidStreamFallbackError" in names and _JSON_ERROR.search(text)):
        return "malformed"
    if "MidStreamFallbackError" in names or "incomplete chunked read" in text or "peer closed" in text:
        return "stream_cut"
    if "LLM Provider NOT provided" in text or "LiteLLMUnknownProvider" in names:
        return "no_provider"
    if "Missing credentials" in text or ("api_key" in text and "must be set" in text):
        return "no_key"
    if "AuthenticationError" in names or status == 401 or "PermissionDeniedError" in names or status == 403:
        return "auth"
    if "NotFoundError" in names or status == 404:
        return "not_found"
    if "ContextWindowExceededError" in names:
        return "context_window"
    if "RateLimitError" in names or status == 429:
        return "rate_limit"
    if "BadRequestError" in names or status in (400, 422):
        return "bad_request"
    if "Connection error" in text or ("APIConnectionError" in names and status in (None, 500)):
        return "connection"
    if names & _SERVER_CLASSES or (status is not None and status >= 500):
        return "server"
    if isinstance(exc, (ConnectionError, OSError)):
        return "connection"
    return "other"


def is_retryable(exc: BaseException) -> bool:
    """429, 5xx and connection failures; never a timeout (the user already waited it out)."""
    return classify(exc) in RETRYABLE_KINDS


def _detail(exc: BaseException, settings: LLMSettings) -> str:
    """The provider's own message, shortened, without litellm's prefixes and without any key."""
    text = _raw(exc).strip()
    for prefix in ("litellm.", "OpenAIException - ", "AnthropicException - "):
        text = text.replace(prefix, "")
    text = text.split("\n", 1)[0].split(", Received response - ", 1)[0]
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
    kind = classify(exc)
    status = status_of(exc)
    model = settings.model or "(no model)"
    where = f"model {model}" + (f" at {settings.api_base}" if settings.api_base else "")
    tried = msg(" after {attempts} attempts", attempts=attempts) if attempts > 1 else ""
    detail = _detail(exc, settings)  # the provider's own words: a value, never translated
    key = msg(
        "{key_hint} (currently {masked})", key_hint=settings.key_hint(), masked=settings.masked_key() or msg("not set")
    )
    messages: dict[str, tuple[str, str]] = {
        "timeout": (
            msg("the model did not answer within {timeout} s", timeout=f"{settings.timeout:g}"),
            msg("check that the server is running and reachable, or raise the timeout (GRAPHRAG_UI_LLM_TIMEOUT)"),
        ),
        "malformed": (
            msg("the model server answered (status 200) with a reply that is not valid JSON ({detail})", detail=detail),
            msg(
                "nothing was shown or cached; check the API base URL (OpenAI-compatible servers usually end in /v1) "
                "and the server's logs"
            ),
        ),
        "stream_cut": (
            msg("the answer stream broke off before the model finished: the answer is incomplete"),
            msg(
                "the partial answer is shown but not cached; run the query again, and check the server's logs if it "
                "keeps happening"
            ),
        ),
        "no_provider": (
            msg("litellm cannot tell which provider serves this model name"),
            msg(
                "prefix it with the provider, e.g. openai/gpt-4o-mini, anthropic/<model>, ollama/llama3, "
                "or openai/<name> with an API base for an OpenAI-compatible server"
            ),
        ),
        "no_key": (msg("no API key is set for this model"), msg("set {key}", key=key)),
        "auth": (msg("the provider rejected the API key or refused access to this model"), msg("check {key}", key=key)),
        "not_found": (
            msg("the model or endpoint was not found ({detail})", detail=detail),
            msg("check the model name (litellm form, e.g. openai/gpt-4o-mini, ollama/llama3) and the API base URL"),
        ),
        "context_window": (
            msg("the prompt is longer than the model's context window"),
            msg("lower the token budgets or top_k, or choose a model with a larger context"),
        ),
        "rate_limit": (
            msg("the provider kept refusing with 'rate limit'{tried}", tried=tried),
            msg("wait a minute and try again, or check your plan's quota"),
        ),
        "bad_request": (
            msg("the provider rejected the request ({detail})", detail=detail),
            msg("check the model name and its parameters"),
        ),
        "connection": (
            msg("could not connect to the model server{tried}", tried=tried),
            msg("check the API base URL, that the server is running, and your network"),
        ),
        "server": (
            msg(
                "the provider's server failed with status {status}{tried} ({detail})",
                status=status or 500,
                tried=tried,
                detail=detail,
            ),
            msg("the server is having trouble: try again later, and check its logs if it is yours"),
        ),
        "other": (
            msg("the model call failed: {type}: {detail}", type=type(exc).__name__, detail=detail),
            msg("check the model settings"),
        ),
    }
    what, fix = messages[kind]
    return LLMError(what, where, fix, kind=kind, retryable=kind in RETRYABLE_KINDS)
