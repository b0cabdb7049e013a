"""Import ahead, off the request path, what litellm imports lazily inside the first completion.

litellm's first streamed call to an OpenAI-compatible model imports ~540 modules (the ``openai``
client's resources and their pydantic models, httpcore/h11/h2, litellm's provider handlers and the
default tiktoken encoding): ~0.7 s on an idle core, 1.4 s on the loaded 2-core machine the app
runs on, which the first analyst to press "Generate answer" used to wait. ``warm_up`` does the same
imports without calling any model (no request, no key used) so the start-up preload can pay for them.
"""

from __future__ import annotations

import importlib
import logging

from graphrag_ui.model_client.client import litellm

log = logging.getLogger(__name__)

# what the first streamed completion imported that ``import litellm`` had not (litellm 1.x, measured
# by diffing sys.modules around a first call to a local server); a name a release lacks is skipped
LAZY_MODULES = (
    "litellm.llms.openai.openai",
    "litellm.litellm_core_utils.default_encoding",
    "litellm._service_logger",
    "litellm.integrations.prometheus_services",
    "litellm.llms.litellm_proxy.chat.transformation",
    "litellm.llms.openai.chat.gpt_audio_transformation",
    "litellm.llms.openai_like.dynamic_config",
    "litellm.proxy.openai_files_endpoints.common_utils",
    "litellm.types.litellm_core_utils.streaming_chunk_builder_utils",
    "httpcore",
    "h11",
    "h2.connection",
    "jiter",
)


def warm_up() -> None:
    """Import litellm and what its first completion would import; build (never use) an OpenAI client."""
    litellm()
    for name in LAZY_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:  # another litellm release: that module is not where this list says
            log.debug("warm-up: no module %s", name)
    import openai

    openai.OpenAI(api_key="warm-up", base_url="http://127.0.0.1:9/v1").chat.completions  # noqa: B018  (imports the resources)
