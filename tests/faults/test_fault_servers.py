"""Fault matrix, servers (issue 21, deliver 4): servers that hang or are gone, and replaced server data.

A hanging stub (it accepts connections and never answers) stands in for a PostgreSQL catalog and for a
chroma server: every CLI path that talks to one fails in one line within the timeout (the default and a
configured one); the time each took is printed (``-s``) for the issue's note. A local load never asks the
chroma server; a replaced or overwritten server collection is detected; a re-save drops the old
``gri_*`` catalog table; a NUL in recall text answers on PostgreSQL as on SQLite.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time

import numpy as np
import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.cli import main as cli_main
from graphrag_ui.index import store
from graphrag_ui.index.servers.server_timeouts import DEFAULT
from tests.conftest import ROOT, SAMPLES
from tests.support.chroma_server import chroma_server as run_chroma
from tests.support.chroma_server import free_port
from tests.support.index_faults import copy_index, replace
from tests.support.pg_server import bin_dir, postgres_server

EN = SAMPLES / "en" / "index"
NANO_SRC = ROOT / "tests" / "goldens" / "nano" / "en"
QUESTION = "Who founded the Guild of Tidewrights?"
PROGRESS = re.compile(r"^[^:]+: (?:done |start, )?\d+(?:/\d+| to do)")
SLACK = (
    4.0  # seconds beyond the timeout a failure may take (start-up, the import's own work before it calls the server)
)


@pytest.fixture(autouse=True)
def quiet_env(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    for var in ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_CATALOG_URL", "CHROMA_HOST", "CHROMA_PORT"):
        monkeypatch.delenv(var, raising=False)
    for var in ("GRAPHRAG_UI_DB_TIMEOUT", "GRAPHRAG_UI_CHROMA_TIMEOUT"):
        monkeypatch.delenv(var, raising=False)


@contextlib.contextmanager
def hanging_server():
    """A TCP server on a free port that accepts every connection and never sends a byte."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


def timed_one_line(capsys, name: str, limit: float, *argv: str) -> str:
    start = time.monotonic()
    code = cli_main(list(argv))
    taken = time.monotonic() - start
    out, err = capsys.readouterr()
    with capsys.disabled():
        print(f"\n[hang] {name}: failed after {taken:.2f} s (timeout {limit:g} s)")
    err = "".join(line for line in err.splitlines(True) if not PROGRESS.match(line))
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err + out, err
    assert taken < limit + SLACK, (name, taken)
    return err


def server_index(tmp_path, host: str, port: int):
    """A copy of the sample whose manifest says its vectors live on the chroma server host:port."""
    folder = copy_index(EN, tmp_path / "idx")
    data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    kinds = list(data["storage"]["vectors"])
    data["storage"]["chroma"] = {
        "mode": "server",
        "host": host,
        "port": port,
        "collections": {k: f"gri-idx-0123456789-{k}" for k in kinds},
    }
    replace(folder / "manifest.json", json.dumps(data).encode())
    return folder


def pg_index(tmp_path, table: str = "gri_idx_0123456789"):
    folder = copy_index(EN, tmp_path / "idx")
    data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    data["storage"]["catalog"]["server_table"] = table
    replace(folder / "manifest.json", json.dumps(data).encode())
    return folder


# --- hanging servers fail within the timeout ------------------------------------------------------


@pytest.mark.parametrize("configured", [None, "2"])
def test_a_hanging_catalog_server_fails_an_import_in_time(capsys, monkeypatch, tmp_path, configured):
    with hanging_server() as port:
        monkeypatch.setenv("GRAPHRAG_UI_CATALOG_URL", f"postgresql+psycopg://app:pw-7731q@127.0.0.1:{port}/g")
        if configured:
            monkeypatch.setenv("GRAPHRAG_UI_DB_TIMEOUT", configured)
        limit = float(configured or DEFAULT)
        argv = ["import", "nano", str(NANO_SRC), "--out", str(tmp_path / "out"), "--embedder", "hash"]
        err = timed_one_line(capsys, f"postgres import (timeout {limit:g})", limit, *argv)
    assert "timeout" in err and "pw-7731q" not in err and not (tmp_path / "out").exists(), err


def test_a_hanging_catalog_server_fails_a_query_in_time(capsys, monkeypatch, tmp_path):
    folder = pg_index(tmp_path)
    with hanging_server() as port:
        monkeypatch.setenv("GRAPHRAG_UI_CATALOG_URL", f"postgresql+psycopg://app@127.0.0.1:{port}/g")
        argv = ["query", "--index", str(folder), "--recall", "ilike", "--context-only", QUESTION]
        err = timed_one_line(capsys, "postgres recall query", DEFAULT, *argv)
    assert "catalog database failed" in err and "timeout" in err, err


@pytest.mark.parametrize("configured", [None, "1"])
def test_a_hanging_chroma_server_fails_an_import_in_time(capsys, monkeypatch, tmp_path, configured):
    with hanging_server() as port:
        monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
        monkeypatch.setenv("CHROMA_PORT", str(port))
        if configured:
            monkeypatch.setenv("GRAPHRAG_UI_CHROMA_TIMEOUT", configured)
        limit = float(configured or DEFAULT)
        argv = ["import", "nano", str(NANO_SRC), "--out", str(tmp_path / "out"), "--embedder", "hash"]
        err = timed_one_line(capsys, f"chroma import (timeout {limit:g})", limit, *argv)
    assert f"did not answer within {limit:g} s" in err and not (tmp_path / "out").exists(), err


def test_a_hanging_chroma_server_fails_a_server_query_in_time(capsys, tmp_path):
    with hanging_server() as port:
        folder = server_index(tmp_path, "127.0.0.1", port)
        argv = ["query", "--index", str(folder), "--vectors", "server", "--context-only", QUESTION]
        err = timed_one_line(capsys, "chroma --vectors server query", DEFAULT, *argv)
        # the same index searched locally never waits for the hanging server
        start = time.monotonic()
        code = cli_main(["query", "--index", str(folder), "--context-only", QUESTION])
        assert code == 0 and time.monotonic() - start < DEFAULT
    assert "did not answer within" in err, err


@pytest.mark.parametrize("var", ["GRAPHRAG_UI_DB_TIMEOUT", "GRAPHRAG_UI_CHROMA_TIMEOUT"])
@pytest.mark.parametrize("value", ["abc", "0", "-3", "nan"])
def test_a_bad_timeout_setting_is_one_line(capsys, monkeypatch, tmp_path, var, value):
    monkeypatch.setenv(var, value)
    if var == "GRAPHRAG_UI_DB_TIMEOUT":
        monkeypatch.setenv("GRAPHRAG_UI_CATALOG_URL", "postgresql+psycopg://app@127.0.0.1:1/g")
    else:
        monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
        monkeypatch.setenv("CHROMA_PORT", "1")
    code = cli_main(["import", "nano", str(NANO_SRC), "--out", str(tmp_path / "out"), "--embedder", "hash"])
    _, err = capsys.readouterr()
    err = "".join(line for line in err.splitlines(True) if not PROGRESS.match(line))
    assert code == 2 and err.count("\n") == 1 and f"{var} must be a number of seconds above 0" in err, err


# --- a server that is gone only affects --vectors server ------------------------------------------


def test_a_local_load_never_needs_the_chroma_server(capsys, tmp_path):
    folder = server_index(tmp_path, "127.0.0.1", free_port())  # nothing listens there
    assert len(store.load(folder).entities) == len(store.load(EN).entities)
    assert cli_main(["query", "--index", str(folder), "--vectors", "local", "--context-only", QUESTION]) == 0
    capsys.readouterr()
    with pytest.raises(UserError, match="cannot reach the chroma server"):
        store.load(folder, vectors="server")


# --- a real chroma server: a replaced collection is detected --------------------------------------


@pytest.fixture(scope="module")
def chroma_port(tmp_path_factory):
    with run_chroma(tmp_path_factory.mktemp("chroma-server")) as port:
        yield port


def _saved_on_server(chroma_port, monkeypatch, tmp_path):
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", str(chroma_port))
    folder = tmp_path / "saved"
    store.save(store.load(EN), folder)
    chroma = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["storage"]["chroma"]
    assert set(chroma["collection_ids"]) == set(chroma["collections"])
    return folder, chroma


def test_a_collection_made_again_under_its_name_is_detected(chroma_port, monkeypatch, tmp_path):
    import chromadb

    folder, chroma = _saved_on_server(chroma_port, monkeypatch, tmp_path)
    assert store.load(folder, vectors="server").vectors  # the untouched collections pass
    name = chroma["collections"]["entities"]
    client = chromadb.HttpClient(host="127.0.0.1", port=chroma_port)
    old = client.get_collection(name).get(include=["embeddings"])
    client.delete_collection(name)
    other = np.asarray(old["embeddings"], dtype=np.float32)[::-1].copy()  # same ids, other vectors
    client.create_collection(name, embedding_function=None).add(ids=old["ids"], embeddings=other)
    with pytest.raises(UserError, match="is not the one this index saved .its id is"):
        store.load(folder, vectors="server")
    assert store.load(folder).vectors  # local search is unaffected


def test_a_collection_overwritten_in_place_is_detected(chroma_port, monkeypatch, tmp_path):
    import chromadb

    folder, chroma = _saved_on_server(chroma_port, monkeypatch, tmp_path)
    collection = chromadb.HttpClient(host="127.0.0.1", port=chroma_port).get_collection(chroma["collections"]["chunks"])
    got = collection.get(include=["embeddings"])
    collection.upsert(ids=got["ids"], embeddings=-np.asarray(got["embeddings"], dtype=np.float32))
    with pytest.raises(UserError, match="differs from the one saved"):
        store.load(folder, vectors="server")


# --- a real PostgreSQL: old tables dropped, NUL answered ------------------------------------------

needs_pg = pytest.mark.skipif(bin_dir() is None, reason="no PostgreSQL binaries (make setup-test installs them)")


@pytest.fixture(scope="module")
def pg_url():
    if bin_dir() is None:
        pytest.skip("no PostgreSQL binaries")
    with postgres_server() as url:
        yield url


def _gri_tables(url: str) -> set[str]:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    try:
        return {t for t in sa.inspect(engine).get_table_names() if t.startswith("gri_")}
    finally:
        engine.dispose()


@needs_pg
def test_a_re_save_drops_the_old_catalog_table(pg_url, monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHRAG_UI_CATALOG_URL", pg_url)
    index = store.load(EN)
    before = _gri_tables(pg_url)
    store.save(index, tmp_path / "a")
    store.save(index, tmp_path / "b")
    first = _gri_tables(pg_url) - before
    assert len(first) == 2
    for _ in range(3):
        store.save(index, tmp_path / "a")
    now = _gri_tables(pg_url) - before
    assert len(now) == 2 and len(now & first) == 1  # b's table kept, a's old ones dropped


@needs_pg
def test_a_nul_in_recall_text_answers_on_postgresql_as_on_sqlite(pg_url, monkeypatch, tmp_path, capsys):
    argv = ["query", "--index", str(tmp_path / "a"), "--recall", "ilike", "--context-only", "Tide\x00wrights guild"]
    store.save(store.load(EN), tmp_path / "a")
    assert cli_main(argv) == 0
    on_sqlite = capsys.readouterr().out
    monkeypatch.setenv("GRAPHRAG_UI_CATALOG_URL", pg_url)
    store.save(store.load(EN), tmp_path / "a")
    assert cli_main(argv) == 0
    out, err = capsys.readouterr()
    assert out == on_sqlite and "catalog database failed" not in err


def test_the_recall_page_says_the_hang_in_one_line(app, monkeypatch, tmp_path, capsys):
    from graphrag_ui.ui.shell.state import register_index
    from tests.support.ui_fixtures import plain

    folder = pg_index(tmp_path)
    with hanging_server() as port:
        monkeypatch.setenv("GRAPHRAG_UI_CATALOG_URL", f"postgresql+psycopg://app:pw-5521z@127.0.0.1:{port}/g")
        monkeypatch.setenv("GRAPHRAG_UI_DB_TIMEOUT", "2")
        start = time.monotonic()
        at = app("pages/recall.py", index=register_index("on-pg", folder), rq="Guild")
        taken = time.monotonic() - start
    errors = [plain(e.value) for e in at.error]
    with capsys.disabled():
        print(f"\n[hang] postgres recall page: error shown after {taken:.2f} s (timeout 2 s)")
    assert len(errors) == 1 and "catalog database failed" in errors[0] and "timeout" in errors[0], errors
    assert "pw-5521z" not in errors[0] and taken < 2 + SLACK + 10  # + the app's own start-up
