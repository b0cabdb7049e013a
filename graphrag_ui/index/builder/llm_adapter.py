"""Turn a litellm model name into the builder's ``llm(messages) -> str`` function.

The model client (``graphrag_ui.model_client.client.complete``) owns timeouts, retries, API bases and
keys; the key comes from the environment or the secrets file and is never logged or written into
the build cache.
"""

from __future__ import annotations

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.index.builder.cache import LLMFunction
from graphrag_ui.model_client.client import complete
from graphrag_ui.model_client.settings import LLMSettings


def llm_for_model(model: str, api_base: str | None = None) -> LLMFunction:
    """A function calling ``model`` (at ``api_base`` when given) through the model client."""
    if not model:
        raise UserError(msg("empty LLM model name"), fix=msg("e.g. --llm gpt-4o-mini or --llm ollama/qwen2.5"))
    settings = LLMSettings.from_env_and_secrets().with_(model=model)
    if api_base:
        settings = settings.with_(api_base=api_base)

    def call(messages: list[dict]) -> str:
        return complete(messages, settings=settings)

    return call
