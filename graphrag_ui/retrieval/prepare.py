"""Per-index work every first query would do, done once when the index is opened.

A first query used to pay for loading the mode modules, tiktoken's encoding and the per-index
lookups the graph modes keep (LightRAG's relation-row map and node degrees, nano's memo, GraphRAG's
level views and global-search batches): seconds at 10k entities on a busy machine, while the next
queries took milliseconds. ``prepare_index`` builds them right after loading, so the wait moves to
"opening the index" where the app already shows a spinner, and the first question is answered as
fast as the second. A small index also gets what its queries would fill bit by bit, query after query:
its stored columns as lists (``stored.convert_small``) and, imported from LightRAG, its chunks' float16
copies (``lightrag.chunks.decode_f16``): ~90 ms at 10k entities, 2–3 ms off each of its LightRAG queries.

Only the family the index came from is prepared (a GraphRAG index gets GraphRAG's views, not
LightRAG's row map nor nano's o200k_base encoding): each family's lookups cost 0.1–0.5 s at 10k and
are wasted on an index nobody asks that family's modes about; those still work, building their
lookups on their first query. Indexes built here (``build``) and any other source get none: any
family may be asked about them, and preparing all three took ~5 s of a 100k-entity index's first
view (GraphRAG's level views and row norms alone ~3 s, ``scripts/bench_scale.py``); each family's
first query builds its lookups instead, and only the parts it reads (nano counts the reports it uses).
"""

from __future__ import annotations

import gc
import threading
from pathlib import Path
from typing import Any

import numpy.ma  # noqa: F401  (the first np.unique of a query imports it: 25 ms)

from graphrag_ui.base import tokens
from graphrag_ui.base.gc_pause import paused_gc
from graphrag_ui.index import cache, stored
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import screen
from graphrag_ui.retrieval.lightrag import chunks as lightrag_chunks
from graphrag_ui.retrieval.lightrag import search as lightrag_search
from graphrag_ui.retrieval.ms import indexer_adapters, text
from graphrag_ui.retrieval.ms.global_search import search as ms_global
from graphrag_ui.retrieval.nano import prep as nano_prep
from graphrag_ui.retrieval.registry import get_mode, mode_names

FAMILIES = ("nano", "lightrag", "graphrag")
BACKGROUND = "prepare.background"  # the open's background thread, kept per index (``settle``)


def family(index: Index) -> str | None:
    """The reference library an index was imported from (``None``: built here or unknown, so all)."""
    source = index.manifest.source
    return next((f for f in FAMILIES if source.startswith(f)), None)


def defaults(mode: str) -> dict[str, Any]:
    """The mode's default parameters: what a first question uses unless the user changed them."""
    return {p.name: p.default for p in get_mode(mode).params}


def prepare_index(index: Index) -> None:
    """Import every mode module, fill the per-index caches of the index's family (none for an index of
    no known family), then freeze the heap.

    Nothing of the vectors: each table is checked (``store.load``'s ``lazy``) and gets the int8
    screen's copy (``retrieval.core.screen``) on its first search. Doing both here for every table read
    every matrix into memory and built every copy at each open — at 100k entities ~240 MB and ~0.5 s that
    ms.global, which searches no vectors, kept as its peak, and a nano index's 300k relation vectors that
    its local mode never searches.

    ``freeze_heap`` moves the just-loaded rows (10⁵–10⁶ objects) out of the collector's generations:
    without it every full collection a query's allocations trigger walks them all again (tens of ms
    at 100k, hundreds on a busy machine), which made the per-query times jump under load.
    """
    kind = family(index)
    with paused_gc():  # modules and 10⁵ lookup tuples: each full collection would walk the whole index
        mode_names()  # imports the mode modules
        for rows in (index.chunks, index.entities, index.relations):
            stored.convert_small(rows)  # a small index's texts and lists, frozen below with the rest
        if kind == "graphrag":
            _prepare_graphrag(index)
        if kind == "nano":
            _prepare_nano(index)
        if kind == "lightrag":
            tokens.encoding(nano_prep.ENCODING)  # LightRAG counts with o200k_base too
            lightrag_search.graph_cache(index)
            lightrag_chunks.decode_f16(index)
        # frozen before the collector is back on: its allocation count is reset, so the first
        # allocation after the pause does not start a full collection over what was just built (1.3 s
        # at 100k entities)
        freeze_heap()
    if kind != "graphrag":
        thread = decode_in_background(index)
        if thread is not None:
            cache.kept(index, BACKGROUND, lambda: thread)


def settle(index: Index, timeout: float | None = None) -> bool:
    """Wait for the open's background work on ``index`` (``decode_in_background``) and for the int8 copies its
    first searches started; whether it is all done.

    The app never waits: the analyst reads the page while it runs. ``bench_vs_reference`` waits here after
    its first query and prints the wait beside the open's time, so the ~0.2 s of starting onnxruntime and
    decoding is not CPU charged to whichever warm queries it overlapped (``process_time`` is the process's: it
    put LightRAG naive's CPU p95 at 0.7–1.7× the reference's)."""
    thread = cache.peek(index, BACKGROUND)
    if thread is not None:
        thread.join(timeout)
    made = screen.settle(timeout)  # and the int8 copies its first searches started (``screen._prepared``)
    return made and (thread is None or not thread.is_alive())


def decode_in_background(index: Index) -> threading.Thread | None:
    """Decode the entities', relations' and chunks' stored columns and start the int8 screen's onnxruntime on a
    thread of their own (Arrow and onnxruntime let go of the interpreter lock), as the load did before it left
    them to their first read (``store.load(lazy=True)``): every mode of nano-graphrag and LightRAG reads those
    texts, and decoding them inside the first query took it from ~0.3 s to ~1 s at 100k entities. Not for a
    GraphRAG index: ms.global reads none of them (~200 MB at 100k entities, its peak over GraphRAG's). The
    thread holds the columns, never the index (a dropped index is not kept alive)."""
    columns = [c for c in map(stored.source_columns, (index.entities, index.relations, index.chunks)) if c]
    big = any(len(t) >= screen.SCREEN_FROM for t in index.vectors.values())
    if not columns and not big:
        return None

    def work() -> None:
        if big:
            screen.warm()
        for table in columns:
            table.decode_all()

    thread = threading.Thread(target=work, name="decode-columns", daemon=True)
    thread.start()
    return thread


def open_index(path: str | Path, vectors: str = "local") -> Index:
    """Load, verify and prepare an index as the app opens it, with the collector paused throughout
    (a pause that ended between loading and preparing would collect the fresh rows once: ~1 s at 100k)."""
    from graphrag_ui.index import store

    release_dropped()
    with paused_gc():
        index = store.load(path, vectors=vectors, lazy=True)
        prepare_index(index)
    return index


def release_dropped() -> None:
    """Unfreeze and collect what earlier opens froze, before this one loads: an index the app dropped from
    its cache holds cycles only the collector can free (``freeze_heap``). Done first, the collection walks
    the objects there already and not the rows about to be built too: after the start-up preload froze
    the sample, collecting after a 100k-entity index's load walked its 10⁶ objects on its first view."""
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()


def freeze_heap() -> None:
    """Move every live object to the collector's permanent generation.

    When an earlier index was frozen, unfreeze and collect first: an index the app dropped from its
    cache holds cycles (networkx's graph views) only the collector can free. The first index of a
    process skips that collection (1 s at 100k entities, and there is nothing frozen to free yet), and
    so does ``open_index``, which collected before loading (``release_dropped``).
    """
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()
    gc.freeze()


def _prepare_graphrag(index: Index) -> None:
    tokens.encoding(text.ENCODING)  # GraphRAG indexes are counted with cl100k_base
    indexer_adapters.level_view(index, int(defaults("ms.local")["community_level"]))
    ms_global.prepare(index, defaults("ms.global"))


def _prepare_nano(index: Index) -> None:
    tokens.encoding(nano_prep.ENCODING)
    prep = nano_prep.prepared(index)
    prep.schema()  # nano.global's community_schema()
    for community in index.communities:  # both nano.local and nano.global budget the reports
        prep.report_tokens(community)
