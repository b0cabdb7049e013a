"""Which model to call and how, read from the environment or ``.streamlit/secrets.toml``.

Keys stay where the user put them (the environment or the secrets file): the settings object holds a
key only in memory, never prints it (``repr`` hides it, ``masked_key`` shows "sk-…123"), and nothing
in the package writes it anywhere. ``scrub`` (``graphrag_ui.base.redact``) masks every credential in a text
before it is logged or shown — a key, a password inside the API base, a ``?api-key=`` parameter — as a
last line of defence against provider messages that echo them back.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from graphrag_ui.base.file_version import Version, version
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.redact import mask, redact, remember

ENV_MODEL = "GRAPHRAG_UI_LLM_MODEL"
ENV_API_BASE = "GRAPHRAG_UI_LLM_API_BASE"
ENV_API_KEY = "GRAPHRAG_UI_LLM_API_KEY"  # optional: a key for this model, whatever its provider
ENV_TIMEOUT = "GRAPHRAG_UI_LLM_TIMEOUT"
ENV_MAX_RETRIES = "GRAPHRAG_UI_LLM_MAX_RETRIES"
ENV_TEMPERATURE = "GRAPHRAG_UI_LLM_TEMPERATURE"

# litellm provider prefix (or model-name start) -> the provider's own key variable
PROVIDER_KEYS: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "gpt-": "OPENAI_API_KEY",
    "o1": "OPENAI_API_KEY",
    "o3": "OPENAI_API_KEY",
    "o4": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "claude": "ANTHROPIC_API_KEY",
    "azure": "AZURE_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "cohere": "COHERE_API_KEY",
    "xai": "XAI_API_KEY",
}
KEYLESS_PROVIDERS = ("ollama", "ollama_chat", "lm_studio", "hosted_vllm", "llamafile")
_SECRET_SUFFIXES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET", "PASSWORD", "_CREDENTIALS")


def provider_of(model: str) -> str:
    """The litellm provider a model name points at ("openai" for bare gpt-* names)."""
    if "/" in model:
        return model.split("/", 1)[0]
    for start, var in PROVIDER_KEYS.items():
        if model.startswith(start):
            return var.removesuffix("_API_KEY").lower()
    return ""


def key_variable(model: str) -> str | None:
    """Name of the environment variable litellm reads the key from for ``model`` (None: no key needed)."""
    provider = provider_of(model)
    if provider in KEYLESS_PROVIDERS:
        return None
    if provider in PROVIDER_KEYS:
        return PROVIDER_KEYS[provider]
    for start, var in PROVIDER_KEYS.items():
        if model.startswith(start):
            return var
    return f"{provider.upper()}_API_KEY" if provider else None


@dataclass(frozen=True)
class LLMSettings:
    model: str = ""
    api_base: str = ""
    timeout: float = 120.0
    max_retries: int = 2
    temperature: float | None = None  # None: the provider's default
    api_key: str = field(default="", repr=False, compare=False)  # only when given explicitly (env or secrets)
    source: str = ""  # where the model name came from: "env", "secrets", "ui", ""

    @property
    def configured(self) -> bool:
        return bool(self.model.strip())

    def key(self) -> str:
        """The key a call will use: the explicit one, else the provider's own variable."""
        if self.api_key:
            return self.api_key
        var = key_variable(self.model)
        return os.environ.get(var, "") if var else ""

    def masked_key(self) -> str:
        return mask(self.key())

    def key_hint(self) -> str:
        """Where the key is looked for, for messages: e.g. "OPENAI_API_KEY"."""
        if self.api_key:
            return f"{ENV_API_KEY} / secrets.toml"
        return key_variable(self.model) or msg("no key needed")

    def identity(self) -> str:
        """What identifies the answering model in a cache key (never the key itself)."""
        return f"{self.model}|{self.api_base}|{self.temperature}"

    def with_(self, **changes: Any) -> LLMSettings:
        return replace(self, **changes)

    def public(self) -> dict[str, Any]:
        """Settings as shown on the page or in an export: the key only masked."""
        return {
            "model": self.model,
            "api_base": redact(self.api_base),
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "temperature": self.temperature,
            "key": self.masked_key(),
            "source": self.source,
        }

    @classmethod
    def from_env_and_secrets(cls, secrets_path: str | Path = ".streamlit/secrets.toml") -> LLMSettings:
        """Environment variables win over the secrets file; the secrets file may use a ``[llm]`` table."""
        secrets = _read_secrets(Path(secrets_path))
        section = secrets.get("llm") if isinstance(secrets.get("llm"), dict) else {}

        def pick(env: str, *names: str) -> tuple[Any, str]:
            if os.environ.get(env, "").strip():
                return os.environ[env].strip(), "env"
            for name in names:
                if section.get(name) not in (None, ""):
                    return section[name], "secrets"
            if secrets.get(env) not in (None, ""):
                return secrets[env], "secrets"
            return None, ""

        model, source = pick(ENV_MODEL, "model")
        api_base, _ = pick(ENV_API_BASE, "api_base")
        api_key, _ = pick(ENV_API_KEY, "api_key")
        timeout, _ = pick(ENV_TIMEOUT, "timeout")
        retries, _ = pick(ENV_MAX_RETRIES, "max_retries")
        temperature, _ = pick(ENV_TEMPERATURE, "temperature")
        model = str(model or "")
        # values kept in secrets.toml are masked wherever they would appear (graphrag_ui.base.redact)
        remember(*(str(v) for k, v in {**secrets, **section}.items() if str(k).upper().endswith(_SECRET_SUFFIXES)))
        if not api_key:
            # a provider key kept in secrets.toml (e.g. OPENAI_API_KEY = "...") counts as explicit
            var = key_variable(model)
            if var and not os.environ.get(var) and secrets.get(var):
                api_key = secrets[var]
        return cls(
            model=model,
            api_base=str(api_base or ""),
            timeout=_number(timeout, 120.0, float, ENV_TIMEOUT),
            max_retries=_number(retries, 2, int, ENV_MAX_RETRIES),
            temperature=None if temperature in (None, "") else _number(temperature, 0.0, float, ENV_TEMPERATURE),
            api_key=str(api_key or ""),
            source=source,
        )


def _number(raw: Any, default: Any, kind: type, name: str) -> Any:
    from graphrag_ui.base.errors import UserError

    if raw in (None, ""):
        return default
    try:
        value = kind(float(raw)) if kind is int else kind(raw)
    except (TypeError, ValueError):
        raise UserError(
            msg("{name} must be a number, got {raw}", name=name, raw=repr(raw)),
            fix=msg("fix the environment variable or secrets.toml"),
        ) from None
    if value < 0:
        raise UserError(msg("{name} must not be negative, got {raw}", name=name, raw=repr(raw)))
    return value


# path -> (its version when parsed, its tables): a page asks for the settings several times per slider move
_parsed: dict[str, tuple[Version, dict[str, Any]]] = {}


def _read_secrets(path: Path) -> dict[str, Any]:
    """The secrets file's tables, parsed once per version of the file (``base.file_version``): an edit is
    read on the next call, a file that fails to parse is said on every call (never cached)."""
    from graphrag_ui.base.errors import UserError

    seen = version(path)
    if seen is None:
        return {}
    cached = _parsed.get(str(path))
    if cached is not None and cached[0] == seen:
        return cached[1]
    try:
        tables = tomllib.loads(path.read_text(encoding="utf-8"))
        _parsed[str(path)] = (seen, tables)
        return tables
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        # the parser's message quotes no values, only the position
        raise UserError(
            msg("cannot read {path}: {error}", path=str(path), error=str(exc)),
            fix=msg("fix the TOML syntax or remove the file"),
        ) from None


def scrub(text: str, settings: LLMSettings | None = None) -> str:
    """``text`` redacted (``graphrag_ui.base.redact``: URL passwords, secret parameters, every known key), the
    explicit key of ``settings`` included. A message (``msg``) stays a message."""
    return redact(text, (settings.api_key,) if settings and settings.api_key else ())
