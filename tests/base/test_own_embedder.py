"""The analyst's own embedding model (issue 19, item 5): an index whose vectors a provider's model made is
imported and queried with ``litellm:<model>``, here through the local OpenAI-compatible test server's
embeddings endpoint; the width is checked against the stored vectors before any search; with no network
or a server that never answers, the failure is one line within GRAPHRAG_UI_EMBED_TIMEOUT, with no
third-party banner or colour codes."""

from __future__ import annotations

import socket
import time

import pytest

from graphrag_ui.base.errors import EmbedderMismatchError
from graphrag_ui.cli import main
from graphrag_ui.embedding.embed import get_embedder
from graphrag_ui.index import store
from graphrag_ui.index.importers.command import import_source
from graphrag_ui.index.reembed import reembed
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.services.query import run_query
from tests.conftest import GOLDENS
from tests.support.llm_server import Script, start_server

MODEL = "litellm:openai/test-embedding"
QUESTION = "How is the Tidewater Institute related to Kelp Bay?"
SOURCE = GOLDENS / "nano" / "en"  # 256-dimensional vectors


@pytest.fixture()
def server(monkeypatch, no_network):
    """The test server making ``dim``-dimensional embeddings, named by GRAPHRAG_UI_EMBED_API_BASE."""
    stops = []

    def start(dim: int = 256):
        script = Script(None)
        url, stop = start_server(script, embedding_dim=dim)
        stops.append(stop)
        monkeypatch.setenv("GRAPHRAG_UI_EMBED_API_BASE", url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        get_embedder.cache_clear()  # the embedder reads its API base when made
        return script

    yield start
    for stop in stops:
        stop()
    get_embedder.cache_clear()


def kept(result) -> int:
    return sum(1 for kind in KINDS for c in result.candidates(kind) if c.in_context)


def test_import_then_query_through_the_providers_embeddings_endpoint(server, tmp_path, capsys):
    server(256)
    out = tmp_path / "own"
    assert main(["import", "auto", str(SOURCE), "--out", str(out), "--embedder", MODEL]) == 0
    assert f"embedder {MODEL}" in capsys.readouterr().out
    index = store.load(out)
    assert index.manifest.embedder == MODEL  # remembered: every later query embeds with it
    result = run_query(index, "nano.local", QUESTION)  # the server's vectors are not the golden's: scores only
    assert result.timings_ms["embed"] > 0 and result.entities and all(c.score is not None for c in result.entities)
    assert main(["query", "--index", str(out), "--mode", "nano.naive", "--context-only", QUESTION]) == 0


def test_reembed_with_the_own_model_then_query(server, tmp_path):
    server(96)
    out = tmp_path / "re"
    import_source("auto", SOURCE, out)  # the embedder left unknown
    reembed(out, MODEL)
    index = store.load(out)
    assert index.manifest.embedder == MODEL and index.manifest.dimension == 96
    assert kept(run_query(index, "nano.local", QUESTION))


def test_a_question_is_embedded_once_per_endpoint(server, tmp_path):
    def calls(script) -> int:
        return sum(1 for r in script.requests if r["path"].endswith("/embeddings"))

    first = server(256)
    _, index = import_source("auto", SOURCE, tmp_path / "a", embedder=MODEL)
    question = "Who studies the kelp forests near Riverton?"
    run_query(index, "nano.local", question)
    run_query(index, "nano.local", question, {"top_k": 5})  # a slider move: the kept vector
    assert calls(first) == 1
    second = server(64)  # the same model name on another server: its own vectors, checked against the index
    with pytest.raises(EmbedderMismatchError):
        run_query(index, "nano.local", question)
    assert calls(second) == 1


def test_width_is_checked_against_the_stored_vectors_before_any_search(server, tmp_path):
    server(64)
    _, index = import_source("auto", SOURCE, tmp_path / "w", embedder=MODEL)
    with pytest.raises(EmbedderMismatchError) as err:
        run_query(index, "nano.local", QUESTION)
    text = str(err.value.message)
    assert "256 dimensions" in text and "makes 64" in text and MODEL in text


def _one_line_failure(capsys, out, timeout_s: float) -> str:
    from graphrag_ui.model_client.client import litellm

    litellm()  # its first import takes seconds on a busy machine: the clock is for the call
    store.load(out)
    start = time.monotonic()
    code = main(["query", "--index", str(out), "--mode", "nano.local", QUESTION])
    took = time.monotonic() - start
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert code != 0 and took < timeout_s + 5, (code, took)
    assert err.startswith("error: embedding model ") and "\n" not in err.split("\n  fix:")[0], err
    for noise in ("Give Feedback", "LiteLLM.Info", "\x1b[", "Traceback"):
        assert noise not in captured.err and noise not in captured.out
    return err


def test_no_network_fails_in_one_line_without_a_banner(no_network, monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("GRAPHRAG_UI_EMBED_API_BASE", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("GRAPHRAG_UI_EMBED_TIMEOUT", "5")
    get_embedder.cache_clear()
    out = tmp_path / "net"
    import_source("auto", SOURCE, out, embedder="litellm:text-embedding-3-small")
    err = _one_line_failure(capsys, out, 5)
    assert "GRAPHRAG_UI_EMBED_TIMEOUT = 5 s" in err


def test_a_server_that_never_answers_fails_within_the_timeout(no_network, monkeypatch, tmp_path, capsys):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # accepts connections, never answers
    try:
        monkeypatch.setenv("GRAPHRAG_UI_EMBED_API_BASE", f"http://127.0.0.1:{silent.getsockname()[1]}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("GRAPHRAG_UI_EMBED_TIMEOUT", "1.5")
        get_embedder.cache_clear()
        out = tmp_path / "silent"
        import_source("auto", SOURCE, out, embedder=MODEL)
        err = _one_line_failure(capsys, out, 1.5)
        assert "Timeout" in err or "timed out" in err.lower(), err
    finally:
        silent.close()
        get_embedder.cache_clear()
