"""The answer to a ``Retrieval``: its messages sent to the model, streamed or not, through the cache.

Provider failures never raise here: they come back as ``AnswerResult.error`` (one sentence), with
whatever text had arrived before a stream broke. The answer text is returned as plain text — the
UI escapes it before rendering (``graphrag_ui.ui.shell.escape.md_escape``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.base.timing import elapsed_s, now
from graphrag_ui.citations import Trace, trace_answer
from graphrag_ui.model_calls import prompts
from graphrag_ui.model_client import usage
from graphrag_ui.model_client.cache import LLMCache, args_hash, default_cache
from graphrag_ui.model_client.errors import LLMError
from graphrag_ui.model_client.settings import ENV_API_BASE, ENV_MODEL, LLMSettings, scrub
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.registry import find_mode

# parameters LightRAG hashes into its answer-cache key (others are hashed too, via the messages)
KEY_PARAMS = (
    "response_type",
    "top_k",
    "chunk_top_k",
    "max_entity_tokens",
    "max_relation_tokens",
    "max_total_tokens",
    "max_token_for_text_unit",
    "max_token_for_local_context",
    "max_token_for_global_context",
    "user_prompt",
)


# an answer that arrived only in part: its text is shown with a notice (CLI exit 3) and never cached
INCOMPLETE_KINDS = ("stream_cut", "length")


@dataclass
class AnswerResult:
    text: str
    cached: bool
    prompt_tokens: int
    answer_tokens: int
    cost_usd: float | None
    model: str
    error: str | None = None
    error_kind: str = ""  # "timeout", "rate_limit", "server", "stream_cut", "length", "auth", "config", ...
    tokens_estimated: bool = False  # counted locally because the provider sent no usage
    seconds: float = 0.0
    messages: list[dict[str, str]] = field(default_factory=list)
    trace: Trace | None = None  # the answer traced to its context (citations, support, unused tokens)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sends_without_context(retrieval: Retrieval) -> bool:
    """A context-free mode (LightRAG's ``bypass``) sends the bare question to the model: no context is expected."""
    spec = find_mode(retrieval.mode)
    return spec is not None and spec.context_free


def messages_for(retrieval: Retrieval, history: list[dict[str, str]] | None = None) -> list[dict[str, str]]:
    """The messages the mode prepared (or ones built from its context), with ``history`` before the question.

    Without ``history``, the ``conversation_history`` given in the reference's parameters is used
    (already cut to what the reference sends)."""
    if history is None:
        history = retrieval.answer_options.get("conversation_history")
    if retrieval.messages:
        messages = list(retrieval.messages)
    else:
        params = retrieval.params or {}
        family, _, mode = retrieval.mode.partition(".")
        messages = prompts.build_messages(
            family,
            mode or family,
            retrieval.context,
            retrieval.query,
            response_type=str(params.get("response_type") or prompts.DEFAULT_RESPONSE_TYPE),
            user_prompt=str(params.get("user_prompt") or ""),
        )
    if history:
        turns = [{"role": str(m["role"]), "content": str(m["content"])} for m in history]
        messages = [*messages[:-1], *turns, messages[-1]]
    return messages


def answer_key(retrieval: Retrieval, messages: list[dict[str, str]], settings: LLMSettings) -> str:
    params = retrieval.params or {}
    return args_hash(
        kind="answer",
        mode=retrieval.mode,
        query=retrieval.query,
        params={k: params.get(k) for k in KEY_PARAMS if k in params},
        hl=retrieval.keywords.hl,
        ll=retrieval.keywords.ll,
        model=settings.identity(),
        messages=messages,
    )


def answer(
    retrieval: Retrieval,
    settings: LLMSettings,
    *,
    stream: bool,
    on_token: Callable[[str], None] | None = None,
    use_cache: bool = True,
    cache: LLMCache | None = None,
    history: list[dict[str, str]] | None = None,
) -> AnswerResult:
    """Answer ``retrieval.query`` from its context; never raises for a provider failure.

    ``history`` (earlier user/assistant turns) goes between the system prompt and the question, as
    LightRAG sends its conversation history; it is part of the cache key through the messages. An
    answer with text (a cut one too) carries its trace: citations, support and unused context tokens.
    """
    reply = _answer(retrieval, settings, stream, on_token, use_cache, cache, history)
    if reply.text and (not reply.error or reply.error_kind in INCOMPLETE_KINDS):
        reply.trace = trace_answer(reply.text, retrieval)
    return reply


def _answer(
    retrieval: Retrieval,
    settings: LLMSettings,
    stream: bool,
    on_token: Callable[[str], None] | None,
    use_cache: bool,
    cache: LLMCache | None,
    history: list[dict[str, str]] | None,
) -> AnswerResult:
    started = now()
    messages = messages_for(retrieval, history)
    emit = on_token if (stream and on_token is not None) else None

    if not retrieval.context.strip() and not sends_without_context(retrieval):
        # the references answer an empty context with their fail response and no model call
        if emit:
            emit(prompts.FAIL_RESPONSE)
        return AnswerResult(prompts.FAIL_RESPONSE, False, 0, 0, None, settings.model, messages=messages)
    if not settings.configured:
        return AnswerResult(
            "",
            False,
            usage.estimate_prompt_tokens(messages),
            0,
            None,
            "",
            error=unconfigured_error(),
            error_kind="config",
            tokens_estimated=True,
            messages=messages,
        )

    store = (cache or default_cache()) if use_cache else None
    key = answer_key(retrieval, messages, settings)
    if store is not None:
        hit = store.get(key)
        if hit is not None and isinstance(hit.get("text"), str):
            if emit:
                emit(hit["text"])
            return AnswerResult(
                text=hit["text"],
                cached=True,
                prompt_tokens=int(hit.get("prompt_tokens", 0)),
                answer_tokens=int(hit.get("answer_tokens", 0)),
                cost_usd=hit.get("cost_usd"),
                model=settings.model,
                tokens_estimated=bool(hit.get("tokens_estimated", False)),
                seconds=elapsed_s(started),
                messages=messages,
            )

    from graphrag_ui.model_client import client

    try:
        result = client.stream(messages, settings, on_token=emit) if stream else client.call(messages, settings)
    except LLMError as exc:
        partial = getattr(exc, "partial", "") or ""
        return AnswerResult(
            text=partial,
            cached=False,
            prompt_tokens=usage.estimate_prompt_tokens(messages),
            answer_tokens=usage.estimate_tokens(partial),
            cost_usd=None,
            model=settings.model,
            error=scrub(exc.message, settings),
            error_kind=exc.kind,
            tokens_estimated=True,
            seconds=elapsed_s(started),
            messages=messages,
        )
    if not result.text.strip():
        return AnswerResult(
            text="",
            cached=False,
            prompt_tokens=result.prompt_tokens,
            answer_tokens=0,
            cost_usd=result.cost_usd,
            model=settings.model,
            error=msg(
                "the model returned an empty answer (finish reason {reason}); nothing was cached — try again, or "
                "check the model and its limits",
                reason=repr(result.finish_reason),
            ),
            error_kind="empty_reply",
            tokens_estimated=result.tokens_estimated,
            seconds=elapsed_s(started),
            messages=messages,
        )
    reply = AnswerResult(
        text=result.text,
        cached=False,
        prompt_tokens=result.prompt_tokens,
        answer_tokens=result.completion_tokens,
        cost_usd=result.cost_usd,
        model=settings.model,
        tokens_estimated=result.tokens_estimated,
        seconds=elapsed_s(started),
        messages=messages,
    )
    if result.finish_reason == "length":  # the model stopped at its output limit: the text is cut short
        reply.error, reply.error_kind = length_error(), "length"
        return reply
    if store is not None and result.text:
        store.put(
            key,
            "answer",
            settings.model,
            {
                "text": result.text,
                "prompt_tokens": reply.prompt_tokens,
                "answer_tokens": reply.answer_tokens,
                "cost_usd": reply.cost_usd,
                "tokens_estimated": reply.tokens_estimated,
            },
        )
    return reply


def length_error() -> str:
    """The error of an answer the model cut at its length limit (finish reason "length")."""
    return msg(
        "the model stopped at its length limit (finish reason 'length'): the answer is incomplete and was not "
        "cached — ask a narrower question, or use a model with a larger output limit"
    )


def unconfigured_error() -> str:
    """The error of an answer (or a model call) asked for while no model is configured."""
    return msg(
        "no language model is configured — set {env} (e.g. openai/gpt-4o-mini) and the provider's key, or see Settings",
        env=ENV_MODEL,
    )


def short_help() -> str:
    return msg("set {env} (e.g. openai/gpt-4o-mini) and the provider's key, or see Settings", env=ENV_MODEL)


def describe_unconfigured() -> str:
    """How to configure a model, for the CLI and the Settings page."""
    return f"""No language model is configured, so no answer was generated (the context and prompt above are complete).
To get answers, name any litellm model and give its key, in the environment or in .streamlit/secrets.toml:
  export {ENV_MODEL}=gpt-4o-mini            # OpenAI; also set OPENAI_API_KEY
  export {ENV_MODEL}=anthropic/claude-3-5-haiku-20241022   # with ANTHROPIC_API_KEY
  export {ENV_MODEL}=ollama/llama3          # a local Ollama, no key
  export {ENV_MODEL}=openai/<name> {ENV_API_BASE}=http://127.0.0.1:8000/v1   # any OpenAI-compatible server
or in .streamlit/secrets.toml:
  [llm]
  model = "gpt-4o-mini"
  api_base = ""          # optional
  api_key = "..."        # optional; otherwise the provider's own variable (OPENAI_API_KEY, ...) is used
Keys are read at run time only; they are never written to an index, the cache, a log or an export."""
