"""Opening an index prepares what a first query would otherwise build (and changes no answer)."""

from __future__ import annotations

from pathlib import Path

from graphrag_ui.index import store
from graphrag_ui.query import run_query
from graphrag_ui.retrieval import lightrag_search, nano_prep
from graphrag_ui.retrieval.prepare import prepare_index

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "en" / "index"


def test_prepared_caches_are_the_ones_queries_use():
    index = store.load(SAMPLE)
    before = run_query(index, "lightrag.local", "Who is the Lock Queen?", hl=["flood"], ll=["Lock Queen"]).context
    fresh = store.load(SAMPLE)
    prepare_index(fresh)
    held = lightrag_search._CACHES[id(fresh)][1]
    assert lightrag_search.graph_cache(fresh) is held and held.degree == dict(fresh.graph.degree())
    assert nano_prep._CACHE[id(fresh)].index is fresh
    after = run_query(fresh, "lightrag.local", "Who is the Lock Queen?", hl=["flood"], ll=["Lock Queen"]).context
    assert after == before != ""
