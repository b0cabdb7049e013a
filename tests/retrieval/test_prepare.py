"""Opening an index prepares what a first query would otherwise build (and changes no answer)."""

from __future__ import annotations

import contextlib
import gc
import weakref
from pathlib import Path

from graphrag_ui.base.gc_pause import paused_gc
from graphrag_ui.index import cache as index_cache
from graphrag_ui.index import store
from graphrag_ui.retrieval.lightrag import search
from graphrag_ui.retrieval.prepare import family, freeze_heap, open_index, prepare_index
from graphrag_ui.services.query import run_query

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample" / "en" / "index"


def test_prepared_caches_are_the_ones_queries_use():
    index = store.load(SAMPLE)
    before = run_query(index, "lightrag.local", "Who is the Lock Queen?", hl=["flood"], ll=["Lock Queen"]).context
    fresh = store.load(SAMPLE)
    fresh.manifest.source = "lightrag-1.4.7"  # as an imported LightRAG index says
    prepare_index(fresh)
    held = index_cache.peek(fresh, search.GRAPH_CACHE)
    assert search.graph_cache(fresh) is held and held.degree == dict(fresh.graph.degree())
    after = run_query(fresh, "lightrag.local", "Who is the Lock Queen?", hl=["flood"], ll=["Lock Queen"]).context
    assert after == before != ""
    nano = store.load(SAMPLE)
    nano.manifest.source = "nano-graphrag"
    prepare_index(nano)
    assert index_cache.peek(nano, "nano.prep").index is nano and index_cache.peek(nano, search.GRAPH_CACHE) is None


def test_an_index_of_no_known_family_is_left_to_each_family_s_first_query():
    """Built here: any family may be asked, so none is prepared up front (seconds of a 100k first view)."""
    plain = store.load(SAMPLE)
    modes = ("nano.local", "lightrag.local", "ms.local")
    before = {m: run_query(plain, m, "Who is the Lock Queen?").context for m in modes}
    fresh = store.load(SAMPLE)
    assert family(fresh) is None
    prepare_index(fresh)
    assert index_cache.peek(fresh, search.GRAPH_CACHE) is None and index_cache.peek(fresh, "ms.index_view") is None
    assert index_cache.peek(fresh, "nano.prep") is None
    after = {m: run_query(fresh, m, "Who is the Lock Queen?").context for m in modes}
    assert after == before and all(after.values())
    assert all(index_cache.peek(fresh, name) is not None for name in (search.GRAPH_CACHE, "ms.index_view", "nano.prep"))


def test_only_the_index_family_is_prepared_and_answers_do_not_change():
    plain = store.load(SAMPLE)
    before = {m: run_query(plain, m, "Who is the Lock Queen?").context for m in ("ms.local", "ms.global", "ms.basic")}
    fresh = store.load(SAMPLE)
    fresh.manifest.source = "graphrag-3"  # as an imported GraphRAG 3 index says
    assert family(fresh) == "graphrag" and family(plain) is None
    prepare_index(fresh)
    assert index_cache.peek(fresh, "ms.index_view").levels
    assert index_cache.peek(fresh, search.GRAPH_CACHE) is None  # LightRAG's row map is left to its own first query
    assert gc.get_freeze_count() > 0  # the loaded rows are out of the collector's way
    after = {m: run_query(fresh, m, "Who is the Lock Queen?").context for m in before}
    assert after == before and all(after.values())


def test_freeze_heap_lets_a_dropped_cycle_be_collected():
    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    freeze_heap()  # the cycle is frozen while it is alive
    del a, b
    freeze_heap()  # the next index opened unfreezes, collects and frees it
    assert gone() is None


def test_open_index_pauses_the_collector_and_leaves_nothing_pending(monkeypatch):
    """Opening freezes what it built before the collector is back on, so no full collection follows."""
    collections: list[int] = []
    gc.unfreeze()
    with _collections(lambda info: collections.append(info["generation"])):
        index = open_index(SAMPLE)
    assert gc.isenabled() and gc.get_freeze_count() > 0
    assert not collections  # no collection at all while loading and preparing (nothing built is garbage)
    assert gc.get_count()[0] < 100  # the allocation count was reset by the freeze
    assert index.entities and search.graph_cache(index).degree


def test_paused_gc_keeps_an_outer_pause():
    gc.disable()
    try:
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause is not ended by the inner one
    finally:
        gc.enable()


def test_an_open_collects_what_earlier_opens_froze_before_it_loads_not_after(monkeypatch):
    """The collection that frees dropped indexes walks the heap before the new rows are built: after the
    start-up preload froze the sample, a 100k-entity index's first view paid for walking its own 10⁶ rows."""
    from graphrag_ui.index import store

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    freeze_heap()  # an earlier index, frozen while alive
    del a, b  # then dropped
    events: list[str] = []
    real = store.load
    monkeypatch.setattr(store, "load", lambda *a, **k: events.append("load") or real(*a, **k))
    with _collections(lambda info: events.append("collect")):
        index = open_index(SAMPLE)
    assert events == ["collect", "load"] and gone() is None
    assert gc.isenabled() and gc.get_freeze_count() > 0 and index.entities


@contextlib.contextmanager
def _collections(seen):
    """Call ``seen(info)`` as each collection starts (the collector calls the list it holds: a test that
    replaced ``gc.callbacks`` heard of no collection at all)."""
    callback = lambda phase, info: phase == "start" and seen(info)  # noqa: E731
    gc.callbacks.append(callback)
    try:
        yield
    finally:
        gc.callbacks.remove(callback)


def test_opening_a_small_index_converts_its_stored_columns_and_answers_the_same():
    """The sample is small: every stored column of its chunks, entities and relations is a list after the
    open (frozen with the load), none is read from Arrow by the first query, and its answer is unchanged."""
    lazy = store.load(SAMPLE)
    before = run_query(lazy, "lightrag.local", "Who is the Lock Queen?", hl=["flood"], ll=["Lock Queen"]).context
    opened = open_index(SAMPLE)
    for rows in (opened.chunks, opened.entities, opened.relations):
        columns = rows[0].__dict__["_columns"]
        assert not columns._arrays and columns._converted
    after = run_query(opened, "lightrag.local", "Who is the Lock Queen?", hl=["flood"], ll=["Lock Queen"]).context
    assert after == before != ""
