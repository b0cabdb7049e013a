"""Vectors checked on their table's first read (``store.load(lazy=True)``, as the app opens).

Opening an index read every vector table whole to check it (NaN, far-off norms) and built the int8 screen's
copy of each big one, so a mode that searches none (ms.global) held them all at its peak (issue 30). These
check that a table no query reads costs nothing, and that a bad one is still never used: refused each time a
search reads it, its far-off rows zeroed and said by that query, exactly as the load-time check does.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.index import cache as index_cache
from graphrag_ui.index import store
from graphrag_ui.index.model import CheckedOnRead, VectorTable
from graphrag_ui.retrieval.prepare import open_index
from graphrag_ui.services.query import run_query
from tests.conftest import SAMPLES
from tests.support.index_faults import copy_index

EN = SAMPLES / "en" / "index"
QUESTION = "Who founded the Guild of Tidewrights?"


def _edit_vectors(folder, kind: str, edit) -> None:
    path = folder / "vectors" / f"{kind}.npy"
    matrix = np.load(path).copy()
    edit(matrix)
    path.unlink()  # a hard link to the sample: a new file, never through the link
    np.save(path, matrix)


def _nan_chunks(tmp_path):
    folder = copy_index(EN, tmp_path / "nan-chunks")
    _edit_vectors(folder, "chunks", lambda m: m.__setitem__((1, 3), np.nan))
    return folder


def test_opening_reads_no_table_and_a_query_reads_only_the_tables_it_searches():
    index = open_index(EN)
    assert all(isinstance(t, CheckedOnRead) and not t.checked for t in index.vectors.values())
    run_query(index, "ms.global", QUESTION)
    assert not any(t.checked for t in index.vectors.values())  # ms.global searches no vectors
    run_query(index, "nano.local", QUESTION)
    assert [k for k, t in index.vectors.items() if t.checked] == ["entities"]


def test_a_table_checked_on_first_read_gives_the_contexts_of_one_checked_at_load():
    now, later = store.load(EN), open_index(EN)
    for mode in ("nano.local", "ms.local", "ms.basic", "ms.drift", "lightrag.mix", "lightrag.naive"):
        assert run_query(later, mode, QUESTION).context == run_query(now, mode, QUESTION).context, mode
    for kind, table in now.vectors.items():
        assert later.vectors[kind].matrix.tobytes() == table.matrix.tobytes()


def test_a_nan_vector_is_refused_each_time_its_table_is_searched(tmp_path):
    folder = _nan_chunks(tmp_path)
    with pytest.raises(IndexFormatError, match="NaN"):
        store.load(folder)  # the CLI's load still refuses the whole index
    index = open_index(folder)
    assert run_query(index, "nano.local", QUESTION).context  # entity vectors only: clean
    for _ in range(2):  # never kept as checked: the second search is refused too
        with pytest.raises(IndexFormatError) as caught:
            run_query(index, "ms.basic", QUESTION)
        said = str(caught.value)
        assert "chunks.npy" in said and "NaN" in said and "row 1" in said and "—" in said
    with pytest.raises(IndexFormatError, match="chunks.npy"):
        pickle.dumps(index.vectors["chunks"])  # a copy never carries the unchecked rows either


def test_a_far_off_norm_is_zeroed_and_said_by_the_query_that_first_reads_it(tmp_path):
    folder = copy_index(EN, tmp_path / "far")
    _edit_vectors(folder, "entities", lambda m: m.__setitem__(4, m[4] * 1e6))
    now, later = store.load(folder), open_index(folder)
    line = next(p for p in now.problems if "entities vector row 5" in p)
    assert line not in later.problems  # not read yet
    result = run_query(later, "nano.local", QUESTION)
    assert line in later.problems and line in result.warnings
    assert not later.vectors["entities"].matrix[4].any()
    assert later.vectors["entities"].matrix.tobytes() == now.vectors["entities"].matrix.tobytes()
    assert result.context == run_query(now, "nano.local", QUESTION).context


def test_copies_and_pickles_are_plain_checked_tables():
    table = open_index(EN).vectors["entities"]
    for copied in (copy.copy(table), copy.deepcopy(table), pickle.loads(pickle.dumps(table))):
        assert type(copied) is VectorTable
        assert copied.ids == table.ids and copied.matrix.tobytes() == table.matrix.tobytes()
    assert table.width == table.matrix.shape[1]


def test_a_table_given_new_vectors_keeps_them_unchecked_by_the_old_file():
    table = open_index(EN).vectors["chunks"]
    fresh = np.zeros((len(table), table.width), dtype=np.float32)
    table.matrix = fresh
    assert table.checked and table.matrix is fresh


def _as_graphrag(tmp_path):
    import json

    folder = copy_index(EN, tmp_path / "graphrag")
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["source"] = "graphrag-3"
    (folder / "manifest.json").unlink()  # a hard link to the sample's
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def test_ms_global_decodes_no_text_of_the_chunks_documents_or_relations(monkeypatch, tmp_path):
    """GraphRAG's global search reads the community reports and the entities' communities and text units; at
    100k entities decoding the other stored columns at the open cost ~200 MB it never read."""
    from graphrag_ui.index import stored
    from graphrag_ui.retrieval import prepare

    monkeypatch.setattr(stored.StoredColumns, "EAGER_ROWS", 0)  # as a big index: nothing converted at the open
    started = []
    monkeypatch.setattr(prepare, "decode_in_background", started.append)
    index = open_index(_as_graphrag(tmp_path))
    assert not started  # no background decoding of what ms.global never reads
    assert run_query(index, "ms.global", QUESTION).context
    for name in ("documents", "chunks", "relations"):
        columns = getattr(index, name)[0].__dict__["_columns"]
        assert not columns._arrays and not columns._converted, name
    entities = index.entities[0].__dict__["_columns"]
    assert "description" not in {*entities._arrays, *entities._converted}


def test_other_indexes_decode_their_texts_in_the_background_after_the_open(monkeypatch):
    """Every nano-graphrag and LightRAG mode reads the entities', relations' and chunks' texts: decoded on a
    thread of their own after the open, not inside the first query (as the load did before)."""
    from graphrag_ui.index import stored
    from graphrag_ui.retrieval import prepare

    monkeypatch.setattr(stored.StoredColumns, "EAGER_ROWS", 0)
    threads = []
    real = prepare.decode_in_background
    monkeypatch.setattr(prepare, "decode_in_background", lambda index: threads.append(real(index)) or threads[-1])
    index = open_index(EN)
    assert threads and threads[0] is not None
    threads[0].join(30)
    for name in ("entities", "relations", "chunks"):
        columns = getattr(index, name)[0].__dict__["_columns"]
        assert set(columns._arrays) | set(columns._converted) == set(columns._source.fields), name
    assert run_query(index, "nano.local", QUESTION).context == run_query(store.load(EN), "nano.local", QUESTION).context


def test_settle_waits_for_the_background_work_of_the_open(monkeypatch):
    """A benchmark times the open with its background work (``prepare.settle``): otherwise that work's CPU is
    charged to whichever early queries it overlaps."""
    import threading

    from graphrag_ui.retrieval import prepare

    release = threading.Event()
    monkeypatch.setattr(prepare, "decode_in_background", lambda index: _started(threading.Thread(target=release.wait)))
    index = open_index(EN)
    assert prepare.settle(index, timeout=0.05) is False  # still running
    release.set()
    assert prepare.settle(index, timeout=30) is True


def test_settle_waits_for_the_int8_copies_the_first_searches_started(monkeypatch):
    """The int8 screen's copy is made on a thread when a big table is first searched: a benchmark's warm queries
    wait for it too (``screen.settle``), or its ~0.2 s of CPU lands on them."""
    import threading

    from graphrag_ui.retrieval import prepare
    from graphrag_ui.retrieval.core import screen

    release = threading.Event()
    real = screen._build
    monkeypatch.setattr(screen, "_build", lambda matrix: release.wait() and real(matrix))
    monkeypatch.setattr(screen, "SCREEN_FROM", 1)
    monkeypatch.setattr(screen, "MAX_SHARE", 1)
    monkeypatch.setattr(screen, "IN_BACKGROUND", True)
    index = open_index(EN)
    assert prepare.settle(index, timeout=30) is True
    table = index.vectors["entities"]
    screen.screened_top(table, table.matrix, table.matrix[0], 3)  # starts the copy's thread
    assert prepare.settle(index, timeout=0.05) is False  # still making it
    release.set()
    assert prepare.settle(index, timeout=30) is True
    assert screen.INT8 in index_cache.values(table)


def _started(thread):
    thread.start()
    return thread
