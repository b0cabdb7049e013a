"""The one per-index cache (``graphrag_ui.index.cache``): bounded, emptied when an index closes, never
keeping a dropped index alive, and the same answers whether a value was kept or built again."""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path

import pytest

from graphrag_ui.index import cache as index_cache
from graphrag_ui.index import store
from graphrag_ui.index.reembed import reembed_index
from graphrag_ui.retrieval.lightrag import search as lightrag_search
from graphrag_ui.services.query import run_query
from graphrag_ui.services.readiness import kept_readiness

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample" / "en" / "index"
QUESTION = "Who is the Lock Queen?"
# one mode per family, with what each needs offline; together they fill every kind of kept value
ASKED = {
    "lightrag.local": {"hl": ["flood"], "ll": ["Lock Queen"]},
    "lightrag.hybrid": {"hl": ["flood"], "ll": ["Lock Queen"]},
    "nano.local": {},
    "nano.global": {},
    "ms.local": {},
    "ms.global": {},
    "ms.basic": {},
}
PER_INDEX = ("lightrag.graph", "lightrag.v1_4_7.tokens", "nano.prep", "ms.index_view")


class Owner:
    """Something weakly referenceable to keep values for."""


def contexts(index) -> dict[str, str]:
    return {mode: run_query(index, mode, QUESTION, **extra).context for mode, extra in ASKED.items()}


@pytest.fixture(scope="module")
def expected() -> dict[str, str]:
    return contexts(store.load(SAMPLE))


def test_a_value_is_made_once_per_owner_and_name():
    owner, calls = Owner(), []
    first = index_cache.kept(owner, "x", lambda: calls.append(1) or [1])
    assert index_cache.kept(owner, "x", lambda: calls.append(1) or [2]) is first and calls == [1]
    assert index_cache.kept(owner, "y", lambda: "other") == "other"
    assert index_cache.peek(owner, "x") is first and index_cache.peek(Owner(), "x") is None


def test_bounded_least_recently_used_owner_goes_first():
    owners = [Owner() for _ in range(index_cache.KEPT_OWNERS)]
    for i, owner in enumerate(owners):
        index_cache.kept(owner, "n", lambda i=i: i)
    index_cache.kept(owners[0], "n", lambda: -1)  # used again: now the most recent
    extra = [Owner() for _ in range(3)]
    for owner in extra:
        index_cache.kept(owner, "n", lambda: "new")
    assert index_cache.size() <= index_cache.KEPT_OWNERS
    assert index_cache.peek(owners[0], "n") == 0  # kept, with its first value
    assert [index_cache.peek(o, "n") for o in owners[1:4]] == [None] * 3  # the three least recent went
    assert all(index_cache.peek(o, "n") == "new" for o in extra)
    assert index_cache.kept(owners[1], "n", lambda: "again") == "again"  # forgotten, so made again


def test_the_bound_keeps_every_index_the_app_keeps_with_its_tables():
    assert index_cache.KEPT_OWNERS >= index_cache.KEPT_INDEXES * (1 + 4)


def test_close_forgets_the_index_and_its_tables_and_answers_stay_the_same(expected):
    index = store.load(SAMPLE)
    assert contexts(index) == expected
    assert all(index_cache.peek(index, name) is not None for name in PER_INDEX)
    tables = [t for t in index.vectors.values() if index_cache.peek(t, "sort_at_once") is not None]
    index.close()
    assert all(index_cache.peek(index, name) is None for name in PER_INDEX)
    assert all(index_cache.values(t) == {} for t in tables)
    assert contexts(index) == expected  # built again, the same
    assert index_cache.peek(index, "nano.prep") is not None


def test_refresh_and_reembed_forget_what_was_worked_out_from_the_old_tables():
    index = store.load(SAMPLE)
    kept = lightrag_search.graph_cache(index)
    index.refresh()
    assert index_cache.peek(index, lightrag_search.GRAPH_CACHE) is None
    assert lightrag_search.graph_cache(index) is not kept
    facts, _rows = kept_readiness(index)
    reembed_index(index, "hash")
    assert index_cache.peek(index, "readiness") is None and kept_readiness(index)[0] is not facts


def test_a_dropped_index_leaves_nothing_behind(expected):
    gc.collect()
    before = index_cache.size()
    index = store.load(SAMPLE)
    assert contexts(index) == expected
    kept_readiness(index)
    assert index_cache.size() > before
    gone = weakref.ref(index)
    del index
    gc.collect()
    assert gone() is None  # no kept value holds the index itself
    assert index_cache.size() == before


def test_an_owner_collected_while_the_cache_is_busy_is_dropped_on_the_next_call():
    owner = Owner()
    index_cache.kept(owner, "n", lambda: 1)
    before = index_cache.size()
    with index_cache._LOCK:  # as when the collector runs inside a call of the cache, on its thread
        del owner
        gc.collect()
    assert index_cache.size() == before - 1


def test_threads_asking_at_once_get_the_one_value():
    owner, barrier, got = Owner(), threading.Barrier(8), []

    def ask() -> None:
        barrier.wait()
        got.append(index_cache.kept(owner, "shared", lambda: object()))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 8 and all(value is got[0] for value in got)


def test_the_app_closes_an_index_its_cache_lets_go():
    from graphrag_ui.ui.shell import state

    index = state._load(str(SAMPLE), state.index_version(SAMPLE))
    run_query(index, "nano.local", QUESTION)
    assert index_cache.peek(index, "nano.prep") is not None
    state._load.clear()  # what Streamlit does when the entry is evicted
    assert index_cache.peek(index, "nano.prep") is None


def test_the_loading_spinner_is_only_for_an_index_the_cache_does_not_hold(monkeypatch):
    """state.load_index shows "Loading index…" while an index loads, not on every full run (a spinner
    starts a timer thread each time); once the cache lets the index go, its next load shows it again."""
    from contextlib import nullcontext

    from graphrag_ui.ui.shell import state

    spinners = []
    monkeypatch.setattr(state.st, "spinner", lambda text: spinners.append(text) or nullcontext())
    state._load.clear()
    first = state.load_index(SAMPLE)
    again = state.load_index(SAMPLE)
    assert again is first and len(spinners) == 1
    state._load.clear()  # evicted
    assert not state._LOADED
    state.load_index(SAMPLE)
    assert len(spinners) == 2
