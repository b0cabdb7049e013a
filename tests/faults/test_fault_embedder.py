"""Fault matrix, nothing wrong is written (issue 27, deliver 4): every embedder reply is checked first.

A local stub HTTP server plays a ``litellm:`` embeddings endpoint that answers wrongly — fewer or more
vectors than texts, empty lists, empty vectors, strings, ragged rows, another width half-way, NaN,
1e300, all zeros, no ``embedding`` key. ``reembed`` must exit non-zero with one line naming the row,
no traceback, and leave the index's files exactly as they were; a question embedded that way is
refused, never searched. The builder's embedding step checks the same on any embedder, and a
crafted ``.npy`` header is refused before numpy allocates what it claims.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from graphrag_ui.base.errors import IndexFormatError, UserError
from graphrag_ui.cli import main
from graphrag_ui.embedding.embed import get_embedder
from graphrag_ui.embedding.embed_checks import EmbedReplyError
from graphrag_ui.index import store
from graphrag_ui.index.builder.embedding import embed_index
from graphrag_ui.index.importers.command import import_source
from graphrag_ui.services.query import run_query
from tests.conftest import GOLDENS

MODEL = "litellm:openai/stub-embedding"
DIM = 8

Reply = Callable[[list[str]], object]  # texts -> the "data" the stub answers with


def vec(seed: int, dim: int = DIM) -> list[float]:
    return [float((seed * 7 + i) % 5 + 1) for i in range(dim)]


def good(texts: list[str]) -> object:
    return [{"embedding": vec(i)} for i in range(len(texts))]


def row_nth(n: int, bad: object) -> Reply:
    """Good rows, except the ``n``-th of the first request (or the last one if it is shorter)."""
    return lambda texts: [{"embedding": bad if i == min(n, len(texts) - 1) else vec(i)} for i in range(len(texts))]


FAULTS: dict[str, tuple[Reply, str]] = {
    "fewer vectors": (lambda texts: good(texts)[:2], "vector(s) for"),
    "more vectors": (lambda texts: good(texts) + good(texts[:1]), "vector(s) for"),
    "empty list": (lambda texts: [], "0 vector(s) for"),
    "data is null": (lambda texts: None, "not a list of vectors"),
    "data is a string": (lambda texts: "vectors", "not a list of vectors"),
    "empty vector": (row_nth(1, []), "is an empty vector"),
    "vector is a string": (row_nth(1, "0.1,0.2"), "is not a list of numbers"),
    "vector of strings": (row_nth(1, ["0.1"] * DIM), "is not a list of numbers"),
    "nested vector": (row_nth(1, [[0.1] * DIM]), "is not a list of numbers"),
    "no embedding key": (lambda texts: [{"vector": vec(0)} for _ in texts], "is not a list of numbers"),
    "ragged rows": (row_nth(1, [0.5] * (DIM + 3)), "values where the index's vectors have"),
    "NaN": (row_nth(1, [float("nan")] * DIM), "not a finite number"),
    "infinity": (row_nth(1, [float("inf")] + [1.0] * (DIM - 1)), "not a finite number"),
    "1e300": (row_nth(1, [1e300] * DIM), "not a finite number"),
    "1e20": (row_nth(1, [1e20] * DIM), "not a finite number"),
    "all zeros": (row_nth(1, [0.0] * DIM), "all zeros"),
    "every row zero": (lambda texts: [{"embedding": [0.0] * DIM} for _ in texts], "all zeros"),
}


class Stub:
    """An OpenAI-compatible ``/embeddings`` endpoint answering with ``reply(texts)`` as its ``data``."""

    def __init__(self) -> None:
        self.reply: Reply = good
        self.calls = 0
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                texts = body.get("input") or []
                texts = [texts] if isinstance(texts, str) else texts
                stub.calls += 1
                data = stub.reply(texts)
                payload = json.dumps({"object": "list", "data": data, "model": "stub", "usage": {}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def stub(monkeypatch, no_network):
    server = Stub()
    monkeypatch.setenv("GRAPHRAG_UI_EMBED_API_BASE", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("GRAPHRAG_UI_EMBED_TIMEOUT", "120")  # litellm's first import counts in it
    get_embedder.cache_clear()
    yield server
    server.close()
    get_embedder.cache_clear()


def fingerprint(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    """An index whose vectors the stub's model made (so a question is embedded by the stub too)."""
    out = tmp_path_factory.mktemp("emb") / "index"
    import_source("auto", GOLDENS / "nano" / "en", out, embedder="hash")
    return out


def one_line(err: str) -> str:
    """The one error line (progress lines aside), with no traceback."""
    lines = [line for line in err.splitlines() if line.startswith("error")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("fault", list(FAULTS))
def test_reembed_refuses_a_bad_reply_and_keeps_the_old_vectors(stub, embedded, tmp_path, capsys, fault):
    folder = tmp_path / "index"
    folder.mkdir()
    for p in embedded.rglob("*"):
        if p.is_file():
            (folder / p.relative_to(embedded)).parent.mkdir(parents=True, exist_ok=True)
            (folder / p.relative_to(embedded)).write_bytes(p.read_bytes())
    before = fingerprint(folder)
    reply, said = FAULTS[fault]
    stub.reply = reply
    capsys.readouterr()
    assert main(["reembed", str(folder), "--embedder", MODEL]) != 0
    line = one_line(capsys.readouterr().err)
    assert said in line and MODEL in line, line
    assert fingerprint(folder) == before  # the old vectors, the manifest: all as they were
    assert stub.calls >= 1


def test_a_good_reply_still_reembeds(stub, embedded, tmp_path):
    folder = tmp_path / "index"
    import shutil

    shutil.copytree(embedded, folder)
    assert main(["reembed", str(folder), "--embedder", MODEL]) == 0
    assert store.load(folder).manifest.dimension == DIM


QUESTION_FAULTS: dict[str, tuple[Reply, str]] = {
    "NaN": (row_nth(0, [float("nan")] * DIM), "not a finite number"),
    "1e300": (row_nth(0, [1e300] * DIM), "not a finite number"),
    "all zeros": (row_nth(0, [0.0] * DIM), "all zeros"),
    "no vector": (lambda texts: [], "0 vector(s)"),
    "two vectors": (lambda texts: good(texts * 2), "2 vector(s)"),
    "empty vector": (row_nth(0, []), "empty vector"),
    "a string": (row_nth(0, "0.1"), "not a list of numbers"),
}


@pytest.fixture()
def stub_index(stub, embedded, tmp_path):
    folder = tmp_path / "index"
    import shutil

    shutil.copytree(embedded, folder)
    stub.reply = good
    assert main(["reembed", str(folder), "--embedder", MODEL]) == 0
    return folder


@pytest.mark.parametrize("fault", list(QUESTION_FAULTS))
def test_a_bad_question_vector_is_refused_loudly(stub, stub_index, capsys, fault):
    stub.reply, said = QUESTION_FAULTS[fault]
    question = f"Which institute studies kelp? ({fault})"  # a new question each time: never a kept vector
    with pytest.raises(EmbedReplyError) as caught:
        run_query(store.load(stub_index), "nano.local", question)
    assert "question was not searched" in str(caught.value) and said in str(caught.value)
    capsys.readouterr()
    assert main(["query", "--index", str(stub_index), "--mode", "nano.local", "--context-only", question + "?"]) != 0
    line = one_line(capsys.readouterr().err)
    assert "question was not searched" in line, line


class Faulty:
    """An in-process embedder (the builder's side) answering with ``rows(texts)``."""

    id = "faulty"

    def __init__(self, rows: Callable[[list[str]], np.ndarray], dim: int = DIM) -> None:
        self.rows, self.dim = rows, dim

    def embed(self, texts, progress=None):
        return self.rows(texts)


BUILD_FAULTS = {
    "fewer rows": (lambda t: np.ones((max(len(t) - 1, 0), DIM), np.float32), "vector(s) for"),
    "NaN row": (lambda t: np.vstack([np.full((1, DIM), np.nan), np.ones((len(t) - 1, DIM))]), "not a finite"),
    "zero row": (lambda t: np.vstack([np.zeros((1, DIM)), np.ones((len(t) - 1, DIM))]), "all zeros"),
    "no columns": (lambda t: np.ones((len(t), 0), np.float32), "empty vector"),
    "one-dimensional": (lambda t: np.ones(len(t) * DIM, np.float32), "not a list of vectors"),
}


@pytest.mark.parametrize("fault", list(BUILD_FAULTS))
def test_the_builders_embedding_step_checks_every_reply(embedded, fault):
    rows, said = BUILD_FAULTS[fault]
    index = store.load(embedded)
    with pytest.raises(EmbedReplyError) as caught:
        embed_index(index, Faulty(rows))
    assert said in str(caught.value), caught.value


def test_a_text_without_words_may_have_a_zero_vector(embedded):
    """The hash embedder gives a tokenless text (punctuation) the zero vector: that is its answer, kept."""
    from graphrag_ui.embedding.embed_checks import check_rows

    assert check_rows(np.zeros((1, DIM)), ["—?!"], embedder="hash").shape == (1, DIM)
    with pytest.raises(UserError):
        check_rows(np.zeros((1, DIM)), ["kelp"], embedder="hash")


def crafted(path: Path, header: dict, body: bytes = b"") -> None:
    """A .npy file with ``header`` as its (version 1.0) header and ``body`` as its data."""
    text = repr(header).encode("latin1")
    pad = 64 - (10 + len(text) + 1) % 64
    path.write_bytes(
        b"\x93NUMPY\x01\x00" + (len(text) + pad + 1).to_bytes(2, "little") + text + b" " * pad + b"\n" + body
    )


NPY_FAULTS = {
    "huge shape": {"descr": "<f4", "fortran_order": False, "shape": (2**31, 2**14)},
    "other rows": {"descr": "<f4", "fortran_order": False, "shape": (3, 256)},
    "float64": {"descr": "<f8", "fortran_order": False, "shape": None},
    "fortran order": {"descr": "<f4", "fortran_order": True, "shape": None},
    "object array": {"descr": "|O", "fortran_order": False, "shape": None},
    "truncated data": {"descr": "<f4", "fortran_order": False, "shape": None},
}


@pytest.mark.parametrize("fault", [*NPY_FAULTS, "not a npy file", "version 3"])
def test_a_crafted_npy_header_is_refused_before_any_allocation(embedded, tmp_path, fault):
    import shutil

    folder = tmp_path / "index"
    shutil.copytree(embedded, folder)
    npy = folder / "vectors" / "entities.npy"
    matrix = np.load(npy)
    if fault == "not a npy file":
        npy.write_bytes(b"PK\x03\x04 not numpy")
    elif fault == "version 3":
        npy.write_bytes(npy.read_bytes().replace(b"\x93NUMPY\x01\x00", b"\x93NUMPY\x03\x00", 1))
    else:
        header = dict(NPY_FAULTS[fault])
        header["shape"] = header["shape"] or matrix.shape
        body = matrix.tobytes()
        crafted(npy, header, body[:-4] if fault == "truncated data" else body)
    with pytest.raises(IndexFormatError) as caught:
        store.load(folder)
    assert "entities.npy" in str(caught.value) and "Traceback" not in str(caught.value)
