"""LLM settings from env / secrets.toml, key masking and scrubbing, error sentences, the cache store."""

from __future__ import annotations

import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.model_client import settings as st
from graphrag_ui.model_client.cache import LLMCache, app_home, args_hash
from graphrag_ui.model_client.errors import explain
from graphrag_ui.model_client.settings import LLMSettings

ENV = [st.ENV_MODEL, st.ENV_API_BASE, st.ENV_API_KEY, st.ENV_TIMEOUT, st.ENV_MAX_RETRIES, st.ENV_TEMPERATURE]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in [*ENV, "OPENAI_API_KEY", "ANTHROPIC_API_KEY"]:
        monkeypatch.delenv(name, raising=False)


def test_nothing_configured(tmp_path):
    s = LLMSettings.from_env_and_secrets(tmp_path / "missing.toml")
    assert not s.configured and s.model == "" and s.masked_key() == "" and s.source == ""


def test_env_settings(monkeypatch, tmp_path):
    monkeypatch.setenv(st.ENV_MODEL, "openai/qwen2")
    monkeypatch.setenv(st.ENV_API_BASE, "http://127.0.0.1:8000/v1")
    monkeypatch.setenv(st.ENV_TIMEOUT, "7.5")
    monkeypatch.setenv(st.ENV_MAX_RETRIES, "4")
    monkeypatch.setenv(st.ENV_TEMPERATURE, "0")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abcdefghijkl789")
    s = LLMSettings.from_env_and_secrets(tmp_path / "none.toml")
    assert (s.model, s.api_base, s.timeout, s.max_retries, s.temperature, s.source) == (
        "openai/qwen2",
        "http://127.0.0.1:8000/v1",
        7.5,
        4,
        0.0,
        "env",
    )
    assert s.configured and s.api_key == "" and s.key() == "sk-abcdefghijkl789" and s.masked_key() == "sk-…789"


def test_secrets_file_table_and_flat_forms(tmp_path, monkeypatch):
    table = tmp_path / "a.toml"
    table.write_text(
        '[llm]\nmodel = "anthropic/claude-3-5-haiku-20241022"\napi_key = "sk-ant-secret-999"\ntimeout = 30\n'
    )
    s = LLMSettings.from_env_and_secrets(table)
    assert s.model.startswith("anthropic/") and s.timeout == 30.0 and s.source == "secrets"
    assert s.masked_key() == "sk-…999" and "sk-ant-secret-999" not in repr(s)
    flat = tmp_path / "b.toml"
    flat.write_text('GRAPHRAG_UI_LLM_MODEL = "gpt-4o-mini"\nOPENAI_API_KEY = "sk-flat-key-456"\n')
    s = LLMSettings.from_env_and_secrets(flat)
    assert s.model == "gpt-4o-mini" and s.key() == "sk-flat-key-456"
    monkeypatch.setenv(st.ENV_MODEL, "ollama/llama3")  # the environment wins
    s = LLMSettings.from_env_and_secrets(flat)
    assert s.model == "ollama/llama3" and s.key_hint() == "no key needed"


def test_bad_values_are_clear_errors(tmp_path, monkeypatch):
    bad = tmp_path / "bad.toml"
    bad.write_text('[llm\nmodel = "x"')
    with pytest.raises(UserError, match="cannot read"):
        LLMSettings.from_env_and_secrets(bad)
    monkeypatch.setenv(st.ENV_TIMEOUT, "soon")
    with pytest.raises(UserError, match="GRAPHRAG_UI_LLM_TIMEOUT must be a number"):
        LLMSettings.from_env_and_secrets(tmp_path / "none.toml")


def test_the_secrets_file_is_parsed_once_per_version_and_an_edit_is_read_at_once(tmp_path, monkeypatch):
    """Issue 29: a slider move asks for the settings several times; the file is parsed again only when it
    changes, its keys are still masked, and a file broken by an edit is said on every read, never cached."""
    path = tmp_path / "secrets.toml"
    path.write_text('[llm]\nmodel = "openai/first"\napi_key = "sk-first-secret-111"\n')
    parses = []
    real = st.tomllib.loads
    monkeypatch.setattr(st.tomllib, "loads", lambda text: parses.append(1) or real(text))
    for _ in range(3):
        assert LLMSettings.from_env_and_secrets(path).model == "openai/first"
    assert len(parses) == 1
    assert "sk-first-secret-111" not in st.scrub("echo sk-first-secret-111")  # remembered, masked
    path.write_text('[llm]\nmodel = "openai/second-model"\napi_key = "sk-second-secret-2222"\n')
    s = LLMSettings.from_env_and_secrets(path)
    assert (s.model, s.api_key, len(parses)) == ("openai/second-model", "sk-second-secret-2222", 2)
    assert "sk-second-secret-2222" not in st.scrub("echo sk-second-secret-2222")
    monkeypatch.setenv(st.ENV_MODEL, "ollama/llama3")  # the environment is read on every call
    assert LLMSettings.from_env_and_secrets(path).model == "ollama/llama3" and len(parses) == 2
    path.write_text('[llm\nmodel = "x"')
    for _ in range(2):
        with pytest.raises(UserError, match="cannot read"):
            LLMSettings.from_env_and_secrets(path)
    path.unlink()
    monkeypatch.delenv(st.ENV_MODEL)
    assert not LLMSettings.from_env_and_secrets(path).configured  # removed: nothing configured


@pytest.mark.parametrize(
    "model,var",
    [
        ("gpt-4o-mini", "OPENAI_API_KEY"),
        ("openai/anything", "OPENAI_API_KEY"),
        ("claude-3-haiku", "ANTHROPIC_API_KEY"),
        ("azure/my-deployment", "AZURE_API_KEY"),
        ("ollama/llama3", None),
        ("groq/llama3-8b", "GROQ_API_KEY"),
    ],
)
def test_key_variable_per_provider(model, var):
    assert st.key_variable(model) == var


def test_mask_and_scrub(monkeypatch):
    assert st.mask("sk-test-SECRET123") == "sk-…123" and st.mask("") == "" and st.mask("abc") == "…bc"
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-very-private-000")
    s = LLMSettings(model="gpt-4o-mini", api_key="sk-explicit-key-111")
    text = st.scrub("a sk-explicit-key-111 b tok-very-private-000 c", s)
    assert text == "a sk-…111 b tok…000 c"


def test_explain_scrubs_keys_from_provider_messages(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET123")

    class WeirdProviderError(Exception):
        pass

    err = explain(WeirdProviderError("provider said: bad key sk-test-SECRET123 !"), LLMSettings(model="gpt-4o-mini"))
    assert "sk-test-SECRET123" not in str(err) and "sk-…123" in str(err)
    assert isinstance(err, UserError) and "\n" not in str(err)


def test_cache_store_roundtrip_and_location(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "h"))
    assert app_home() == tmp_path / "h"
    monkeypatch.delenv("GRAPHRAG_UI_HOME")
    assert app_home().name == ".graphrag_ui"
    cache = LLMCache(tmp_path / "deep" / "c.sqlite")
    key = args_hash(mode="m", query="问题")
    assert key == args_hash(query="问题", mode="m") and key != args_hash(mode="m", query="问题 ")
    assert cache.get(key) is None
    cache.put(key, "answer", "gpt-4o-mini", {"text": "答案"})
    assert cache.get(key) == {"text": "答案"} and cache.stats() == {"answer": 1}
    assert cache.clear() == 1 and cache.get(key) is None


def test_unwritable_cache_is_a_user_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UserError, match="GRAPHRAG_UI_HOME"):
        LLMCache(blocker / "sub" / "c.sqlite").get("k")
