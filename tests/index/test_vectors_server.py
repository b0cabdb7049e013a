"""Querying an index through the chroma server its vectors were saved to (``--vectors server``).

A real ``chroma run`` on 127.0.0.1 holds both samples' collections; every mode that searches vectors
must give the same context as the exact local search (the samples are small enough for HNSW to be
exact), say which engine searched, never read the ``.npy`` matrices, and fail in one clear line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.cli import main
from graphrag_ui.index import store
from graphrag_ui.index.servers import vector_server
from graphrag_ui.retrieval.core import vector_engine
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.retrieval.registry import mode_names
from graphrag_ui.services.query import run_query
from tests.support.chroma_server import chroma_server, free_port
from tests.support.ui_fixtures import plain
from tests.support.zh_catalogue import allowed_names, untranslated, visible_strings

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "sample"


# modes with a vector top-k (ms.drift without a model ranks every report instead: no top-k to compare)
def _near_miss(candidate) -> bool:
    return candidate.dropped.startswith("below cosine_better_than_threshold")


SEARCHING = [m for m in mode_names() if not m.endswith((".global", ".bypass", ".drift"))]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """(port, {lang: sample index saved to the server}) with CHROMA_HOST/PORT unset again afterwards."""
    base = tmp_path_factory.mktemp("vectors-server")
    with chroma_server(base) as port, pytest.MonkeyPatch.context() as mp:
        mp.setenv("CHROMA_HOST", "127.0.0.1")
        mp.setenv("CHROMA_PORT", str(port))
        saved = {}
        for lang in ("en", "zh"):
            saved[lang] = base / f"sample-{lang}"
            store.save(store.load(SAMPLES / lang / "index"), saved[lang])
        mp.delenv("CHROMA_HOST")  # the manifest's recorded address is what the queries use
        mp.delenv("CHROMA_PORT")
        yield port, saved


def first_question(lang: str) -> str:
    data = json.loads((SAMPLES / lang / "questions.json").read_text(encoding="utf-8"))
    return (data if isinstance(data, list) else data["questions"])[0]["question"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_server_top_k_equals_exact_on_the_samples(server, lang):
    port, saved = server
    local, remote = store.load(saved[lang]), store.load(saved[lang], vectors="server")
    question = first_question(lang)
    engine = f"chroma HNSW on 127.0.0.1:{port}"
    # DRIFT's ranking reads every report's full_content vector: from the collection, the same float32 rows
    assert run_query(remote, "ms.drift", question).context == run_query(local, "ms.drift", question).context
    for mode in SEARCHING:
        exact, hnsw = run_query(local, mode, question), run_query(remote, mode, question)
        assert hnsw.context == exact.context, mode
        assert exact.vector_search == {}  # the default engine leaves the Retrieval as it was
        info = hnsw.vector_search
        assert info["engine"] == engine and info["searches"], mode
        for search in info["searches"]:
            assert search["overlap"] == search["exact_k"] == search["returned"] > 0, (mode, search)
            assert search["missed"] == [] and search["ef"] >= vector_server.search_ef(search["k"])
        marked = [c for kind in KINDS for c in hnsw.candidates(kind) if c.why.endswith(f"by {engine}")]
        assert marked, mode
        for kind in KINDS:  # same items, same scores up to chroma's float32 arithmetic
            # LightRAG's near misses (rows its threshold cut) are listed from the local matrix only
            # (retrieval/lightrag/near_misses.py leaves a server-searched table out): compare the rest
            mine = {c.id: c.score for c in exact.candidates(kind) if not _near_miss(c)}
            theirs = {c.id: c.score for c in hnsw.candidates(kind) if not _near_miss(c)}
            assert mine.keys() == theirs.keys(), (mode, kind)
            for cid, score in mine.items():
                if score is not None:
                    assert theirs[cid] == pytest.approx(score, abs=1e-5), (mode, kind, cid)


def test_ef_follows_top_k_and_only_rises(server):
    import chromadb

    from graphrag_ui.index.vectorstore import SERVER_EF_SEARCH

    port, saved = server
    remote = store.load(saved["en"], vectors="server")
    client = chromadb.HttpClient(host="127.0.0.1", port=port)

    def ef(kind: str) -> int:
        return client.get_collection(remote.vectors[kind].collection).configuration["hnsw"]["ef_search"]

    assert ef("relations") == SERVER_EF_SEARCH  # set when the collection was created: chroma applies it
    result = run_query(remote, "nano.local", "Who keeps the lighthouse?", {"top_k": 60})
    (search,) = result.vector_search["searches"]
    assert vector_server.search_ef(search["k"]) <= SERVER_EF_SEARCH == ef("entities") == search["ef"]
    assert not [w for w in result.warnings if "ef_search" in w]
    # a top-k beyond what the collection's ef covers raises it, and says that chroma applies it later
    result = run_query(remote, "lightrag.global", "lighthouse keepers", {"top_k": 300})
    (search,) = result.vector_search["searches"]
    want = vector_server.search_ef(search["k"])
    assert search["k"] == 293 and want > SERVER_EF_SEARCH and ef("relations") == want == search["ef"]
    (note,) = [w for w in result.warnings if "ef_search" in w]
    assert f"ef_search {SERVER_EF_SEARCH}, below the {want}" in note and "restart" in note
    again = run_query(remote, "lightrag.global", "lighthouse keepers", {"top_k": 100})
    assert ef("relations") == want and not [w for w in again.warnings if "ef_search" in w]
    assert vector_server.search_ef(5) == vector_server.EF_FLOOR


def test_server_loading_reads_no_vector_matrix(server, tmp_path, monkeypatch):
    port, saved = server
    exact = run_query(store.load(saved["en"]), "nano.local", first_question("en")).context
    real_load = np.load
    opened: list[str] = []

    def spy(file, *args, **kwargs):
        opened.append(str(file))
        return real_load(file, *args, **kwargs)

    monkeypatch.setattr(np, "load", spy)
    remote = store.load(saved["en"], vectors="server")
    assert not [f for f in opened if f.endswith(".npy")]
    assert all(t.matrix.size == 0 and len(t) > 0 for t in remote.vectors.values())
    # without the local copy at all: the server still answers, and the overlap is said to be unknown
    copy = tmp_path / "no-mirror"
    shutil.copytree(saved["en"], copy)
    for npy in (copy / "vectors").glob("*.npy"):
        npy.unlink()
    result = run_query(store.load(copy, vectors="server"), "nano.local", first_question("en"))
    assert result.context == exact
    assert result.vector_search["searches"] and vector_engine.overlaps(result.vector_search) == []
    assert not [f for f in opened if f.endswith(".npy")]


def test_a_local_index_cannot_be_searched_on_a_server():
    with pytest.raises(UserError, match="keeps its vectors locally") as err:
        store.load(SAMPLES / "en" / "index", vectors="server")
    assert "--vectors local" in err.value.fix


def test_a_server_that_went_down_is_one_line_and_no_fallback(server):
    _, saved = server
    remote = store.load(saved["en"], vectors="server")
    table = remote.vectors["entities"]
    table.port, table._handle = free_port(), None  # the server moved away after the index was opened
    with pytest.raises(UserError, match="did not answer the entities search") as err:
        run_query(remote, "nano.local", first_question("en"))
    assert "nothing was searched locally" in err.value.what and "chroma run --host 127.0.0.1" in err.value.fix
    assert "\n" not in str(err.value)


def test_missing_collection_is_one_line(server, tmp_path, monkeypatch):
    import chromadb

    port, _ = server
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", str(port))
    folder = tmp_path / "doomed"
    store.save(store.load(SAMPLES / "en" / "index"), folder)
    remote = store.load(folder, vectors="server")
    name = remote.vectors["entities"].collection
    chromadb.HttpClient(host="127.0.0.1", port=port).delete_collection(name)
    with pytest.raises(UserError, match=f"'{name}' \\(entities vectors\\) is not on the server"):
        run_query(remote, "nano.local", first_question("en"))
    with pytest.raises(UserError, match=f"'{name}' is not on the server at 127.0.0.1:{port} \\(the manifest"):
        store.load(folder, vectors="server")


def test_cli_json_carries_the_engine_and_the_overlap(server, capsys):
    port, saved = server
    code = main(["query", "--index", str(saved["zh"]), "--mode", "ms.local", "--vectors", "server", "--json", "苏州"])
    out = capsys.readouterr().out
    assert code == 0
    info = json.loads(out)["vector_search"]
    assert info["engine"] == f"chroma HNSW on 127.0.0.1:{port}"
    assert [(s["kind"], s["overlap"], s["exact_k"]) for s in info["searches"]] == [("entities", 20, 20)]
    code = main(["query", "--index", str(saved["zh"]), "--vectors", "server", "苏州"])
    assert code == 0 and "entities: server top-25 ∩ exact top-25: 25/25" in capsys.readouterr().out


def test_cli_error_for_a_local_index_is_one_line(capsys):
    code = main(["query", "--index", str(SAMPLES / "en" / "index"), "--vectors", "server", "who?"])
    err = capsys.readouterr().err
    assert code != 0 and "keeps its vectors locally" in err and "Traceback" not in err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_explore_offers_the_server_and_shows_the_overlap(server, app, monkeypatch, lang):
    from graphrag_ui.base.i18n import t
    from graphrag_ui.ui.shell.state import register_index

    port, saved = server
    key = register_index(f"team-{lang}", saved[lang])
    at = app(index=key, mode="nano.local", q=first_question(lang), vectors="server", lang=lang)
    assert not at.error, [e.value for e in at.error]
    (note,) = [plain(i.value) for i in at.info if f"127.0.0.1:{port}" in plain(i.value)]
    assert note == t("Vectors searched by chroma HNSW on {where}.", lang, where=f"127.0.0.1:{port}")
    overlap = t(
        "{kind}: server top-{k} ∩ exact top-{k}: {both}/{n}", lang, kind=t("Entities", lang), k=25, both=25, n=25
    )
    assert overlap in [c.value for c in at.caption]
    assert any(sb.label == t("Vector search", lang) for sb in at.selectbox)
    opened = at.session_state["_index"]  # the frame opened it without the vector matrices
    assert all(vector_server.is_server(table) and table.matrix.size == 0 for table in opened.vectors.values())
    if lang == "zh":  # the new strings (the note, the choice, the reasons' engine) all read in Chinese
        # data and CLI values: the server's address, the registered folder's label, --vectors local|server
        data = {f"127.0.0.1:{port}", key, key.split(":", 1)[1], "local", "server"}
        missing = untranslated(visible_strings(at._tree), allowed_names() | data)
        assert not missing, missing
    # the exact engine is the default and shows no server note
    at = app(index=key, mode="nano.local", q=first_question(lang), lang=lang)
    assert not [i for i in at.info if f"127.0.0.1:{port}" in plain(i.value)]


def test_explore_does_not_offer_the_server_for_a_local_index(app):
    from graphrag_ui.base.i18n import t

    at = app(index="sample:en", mode="nano.local", q="Who keeps the lighthouse?")
    assert not any(sb.label == t("Vector search", "en") for sb in at.selectbox)
