"""Round trip through a real chroma server started by the test (``chroma run`` on 127.0.0.1)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.index import store
from tests.support.chroma_server import chroma_server as run_chroma
from tests.support.chroma_server import free_port as _free_port
from tests.support.chroma_server import server_collections as _server_collections
from tests.support.store_fixtures import small_index


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    with run_chroma(tmp_path_factory.mktemp("chroma-server")) as port:
        yield port


def test_round_trip_through_a_chroma_server(chroma_server, tmp_path, monkeypatch):
    port = chroma_server
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", str(port))
    index = small_index()
    a, b = tmp_path / "a", tmp_path / "b"
    store.save(index, a)
    store.save(index, b)
    assert not (a / "chroma").exists()
    info = json.loads((a / "manifest.json").read_text(encoding="utf-8"))["storage"]["chroma"]
    assert info["mode"] == "server" and info["port"] == port
    names_a = set(info["collections"].values())
    names_b = set(json.loads((b / "manifest.json").read_text())["storage"]["chroma"]["collections"].values())
    assert names_a.isdisjoint(names_b) and all(n.startswith("gri-a-") for n in names_a)
    assert names_a | names_b <= _server_collections(port)

    loaded = store.load(a)
    for kind, table in index.vectors.items():
        assert loaded.vectors[kind].matrix.tobytes() == table.matrix.tobytes()
    assert loaded.entities == index.entities

    # without the mirror the vectors are read from the server itself
    for kind in index.vectors:
        (a / "vectors" / f"{kind}.npy").unlink()
    from_server = store.load(a)
    for kind, table in index.vectors.items():
        assert from_server.vectors[kind].ids == table.ids
        np.testing.assert_allclose(from_server.vectors[kind].matrix, table.matrix, rtol=1e-6, atol=1e-6)

    # overwriting an index drops its old collections from the server, the other index keeps its own
    store.save(index, a)
    now = _server_collections(port)
    assert names_a.isdisjoint(now) and names_b <= now
    assert store.load(b).counts() == index.counts()


def test_unreachable_server_is_a_clear_error(chroma_server, tmp_path, monkeypatch):
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", str(chroma_server))
    store.save(small_index(), tmp_path / "idx")
    monkeypatch.setenv("CHROMA_PORT", str(_free_port()))
    with pytest.raises(UserError, match="cannot reach the chroma server"):
        store.load(tmp_path / "idx", vectors="server")
    assert store.load(tmp_path / "idx").counts()  # a local load never asks the server
    monkeypatch.setenv("CHROMA_PORT", "eighty")
    with pytest.raises(UserError, match="CHROMA_PORT must be a number"):
        store.load(tmp_path / "idx", vectors="server")


def test_save_to_an_unreachable_server_fails_cleanly(tmp_path, monkeypatch):
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", str(_free_port()))
    with pytest.raises(UserError, match="cannot reach the chroma server"):
        store.save(small_index(), tmp_path / "idx")
    assert list(tmp_path.iterdir()) == []
