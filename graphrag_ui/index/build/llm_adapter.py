"""Turn a litellm model name into the builder's ``llm(messages) -> str`` function.

The shared client ``graphrag_ui.llm.client.complete(messages, model=...)`` is used when it exists
(it owns timeouts, API bases and keys); otherwise litellm is called directly. Either way the API key
comes from the environment and is never logged or written into the cache.
"""

from __future__ import annotations

import importlib

from graphrag_ui.errors import UserError
from graphrag_ui.index.build.cache import LLMFunction


def _shared_client():
    try:
        module = importlib.import_module("graphrag_ui.llm.client")
    except ModuleNotFoundError as exc:
        if exc.name not in {"graphrag_ui.llm.client", "graphrag_ui.llm"}:
            raise
        return None
    return getattr(module, "complete", None)


def _litellm_complete(messages: list[dict], model: str, api_base: str | None = None) -> str:
    import litellm

    try:
        reply = litellm.completion(model=model, messages=messages, timeout=120, api_base=api_base)
    except Exception as exc:  # provider errors become one sentence without the key or a traceback
        first = str(exc).splitlines()[0][:200] if str(exc) else ""
        raise UserError(
            f"LLM {model} failed: {type(exc).__name__}: {first}",
            fix="check the model name, its API base and the provider's API key (the build resumes from the cache)",
        ) from None
    return reply.choices[0].message.content or ""


def _settings(model: str, api_base: str | None):
    """The shared client's settings from the environment / secrets, with this model (and API base)."""
    try:
        from graphrag_ui.llm.settings import LLMSettings
    except ModuleNotFoundError:
        return None
    settings = LLMSettings.from_env_and_secrets().with_(model=model)
    return settings.with_(api_base=api_base) if api_base else settings


def llm_for_model(model: str, api_base: str | None = None) -> LLMFunction:
    """A function calling ``model`` through the shared client (or litellm when it is absent)."""
    if not model:
        raise UserError("empty LLM model name", fix="e.g. --llm gpt-4o-mini or --llm ollama/qwen2.5")
    shared = _shared_client()
    settings = _settings(model, api_base) if shared is not None else None

    def call(messages: list[dict]) -> str:
        if shared is not None and settings is not None:
            return shared(messages, settings=settings)
        if shared is not None:
            return shared(messages, model=model, api_base=api_base)
        return _litellm_complete(messages, model, api_base)

    return call
