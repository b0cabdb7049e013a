"""Fault matrix, concurrent saves (issue 21, deliver 5).

20 readers load (and query) an index folder while at least 10 saves replace it (on until they overlapped 50 reads), alternating two versions with
different row counts: every read is one whole version (never a mix, never a false "damaged"
verdict). 300 concurrent registrations in the app's index list, from threads and from processes,
lose none.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import threading

import pytest

from graphrag_ui.index import store, store_load
from graphrag_ui.services.query import run_query
from tests.conftest import SAMPLES

EN = SAMPLES / "en" / "index"
QUESTION = "Who founded the Guild of Tidewrights?"
READERS, SAVES, REGISTRATIONS = 20, 10, 300


@pytest.fixture(autouse=True)
def quiet_env(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    for var in ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_CATALOG_URL", "CHROMA_HOST"):
        monkeypatch.delenv(var, raising=False)


def two_versions():
    full = store.load(EN)
    small = dataclasses.replace(
        full, communities=[], vectors={k: v for k, v in full.vectors.items() if k != "communities"}
    )
    small.refresh()
    return full, small


def readers_during_saves(tmp_path, readers: int = READERS, saves: int = SAVES):
    full, small = two_versions()
    target = tmp_path / "shared"
    store.save(full, target, chroma=False)
    run_query(store.load(target), "nano.local", QUESTION)  # warm (tokenizer, embedder): reads overlap the saves
    versions = {tuple(sorted(full.counts().items())), tuple(sorted(small.counts().items()))}
    done = threading.Event()
    errors: list[str] = []
    reads = [0]
    lock = threading.Lock()

    def read() -> None:
        while not done.is_set():
            try:
                index = store.load(target)
                got = tuple(sorted(index.counts().items()))
                assert got in versions, f"a mix of two saves: {got}"
                run_query(index, "nano.local", QUESTION)
            except Exception as exc:  # noqa: BLE001 - every failure is counted and shown
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")
            with lock:
                reads[0] += 1

    threads = [threading.Thread(target=read) for _ in range(readers)]
    for thread in threads:
        thread.start()
    try:
        i = 0  # at least ``saves`` saves, and on until 5 reads a save overlapped them (a slow machine reads less)
        while i < saves or (reads[0] < 5 * saves and i < 20 * saves):
            store.save(small if i % 2 == 0 else full, target, chroma=False)
            i += 1
    finally:
        done.set()
        for thread in threads:
            thread.join()
    return reads[0], errors


def test_readers_during_saves_see_whole_indexes(tmp_path, capsys):
    reads, errors = readers_during_saves(tmp_path)
    with capsys.disabled():
        print(f"\n[concurrency] {READERS} readers during {SAVES} saves: {reads} reads, {len(errors)} errors")
    assert reads >= 5 * SAVES and errors == [], (reads, errors[:3])


def test_without_the_retry_a_reader_can_see_a_save_in_progress(tmp_path, monkeypatch, capsys):
    """The guard above is needed: with no retry, reads during saves fail (so the test above can fail)."""
    monkeypatch.setattr(store_load, "SWAP_RETRIES", 0)
    monkeypatch.setattr(store_load, "SWAP_PATIENCE_S", 0.0)
    monkeypatch.setattr(store_load, "_wait_for_swap", lambda folder: None)
    found = []
    for attempt in range(3):
        reads, errors = readers_during_saves(tmp_path / str(attempt), readers=8, saves=20)
        found += errors
        with capsys.disabled():
            print(f"\n[concurrency] without the retry: {len(errors)} of {reads} reads failed, e.g. {errors[:1]}")
        if found:
            break
    assert found, "no read ever overlapped a save"


def _saving_during_reads(monkeypatch, target, versions, swaps: int) -> list[int]:
    """Make each of the first ``swaps`` reads of ``target`` meet a save (the folder replaced mid-read), as a
    reader slower than the saves' interval does; returns the list of reads made so far (one item a read)."""
    made: list[int] = []
    real = store_load._load

    def slow_read(folder, *args):
        made.append(1)
        index = real(folder, *args)
        if len(made) <= swaps:
            store.save(versions[len(made) % 2], target, chroma=False)
        return index

    monkeypatch.setattr(store_load, "_load", slow_read)
    return made


def test_a_read_outlasting_many_saves_gets_one_whole_version(tmp_path, monkeypatch):
    """More swaps in a row than SWAP_RETRIES (a loaded machine): the read goes on until one read was not
    interrupted, and its index is the folder as it is now (the count ran out and gave up before)."""
    full, small = two_versions()
    target = tmp_path / "shared"
    store.save(full, target, chroma=False)
    made = _saving_during_reads(monkeypatch, target, (full, small), swaps=store_load.SWAP_RETRIES + 3)
    index = store.load(target)
    assert len(made) == store_load.SWAP_RETRIES + 4
    assert index.folder_identity == store_load.identity(target)
    assert index.counts() == store.load(target).counts()


def test_saves_that_never_stop_are_said_and_reopening_after_works(tmp_path, monkeypatch):
    full, small = two_versions()
    target = tmp_path / "shared"
    store.save(full, target, chroma=False)
    monkeypatch.setattr(store_load, "SWAP_PATIENCE_S", 0.0)
    made = _saving_during_reads(monkeypatch, target, (full, small), swaps=1)
    with pytest.raises(store_load.IndexFormatError) as err:
        store.load(target)
    assert "saves kept replacing the index folder" in str(err.value) and "open it again" in str(err.value)
    assert len(made) == 1
    assert store.load(target).counts() in (full.counts(), small.counts())  # the advice: open it again


def _register(args: tuple[str, int, int]) -> None:
    home, start, n = args
    os.environ["GRAPHRAG_UI_HOME"] = home
    from graphrag_ui.ui.shell.state import register_index

    for i in range(start, start + n):
        register_index(f"index {i}", f"/srv/indexes/{i}")


def test_concurrent_registrations_lose_none(tmp_path):
    from graphrag_ui.ui.shell.state import registered_indexes

    home = str(tmp_path / "home")
    with concurrent.futures.ThreadPoolExecutor(max_workers=30) as pool:
        list(pool.map(_register, [(home, i, 1) for i in range(REGISTRATIONS)]))
    assert len(registered_indexes()) == REGISTRATIONS


def test_registrations_from_several_processes_lose_none(tmp_path, monkeypatch):
    from graphrag_ui.ui.shell.state import registered_indexes

    home = str(tmp_path / "home")
    per = REGISTRATIONS // 4
    with concurrent.futures.ProcessPoolExecutor(max_workers=4) as pool:
        list(pool.map(_register, [(home, i * per, per) for i in range(4)]))
    assert registered_indexes() == {f"index {i}": f"/srv/indexes/{i}" for i in range(REGISTRATIONS)}


def test_an_index_opened_before_a_save_keeps_its_own_catalog(tmp_path):
    from graphrag_ui.index.servers.catalog import find_entities_by_name_or_alias as find

    target = tmp_path / "shared"
    store.save(store.load(EN), target, chroma=False)
    opened = store.load(target)
    before = find(opened, "Guild of Tidewrights", 5)
    assert before
    store.save(store.load(SAMPLES / "zh" / "index"), target, chroma=False)  # another index in its place
    assert find(opened, "Guild of Tidewrights", 5) == before  # not the new folder's catalog
    assert find(store.load(target), "Guild of Tidewrights", 5) != before
