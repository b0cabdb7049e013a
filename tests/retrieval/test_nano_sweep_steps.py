"""nano's sweeps cut one gather per step (``nano.naive_rows``, ``nano.recall.Ranked``, the lazy dropped tails):
every step is still the single run at its value, at the edges too — a top_k past the index's size, budgets
0 and 1, a threshold that changes what is recalled (its gathers are made again), rows that tie at the edge of
the searched list, vector rows whose chunk or entity is not stored — and its limits are counted as from the
rows themselves, though the tails' rows are never made."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.binding import limits
from graphrag_ui.retrieval.core.candidates import Candidates
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep
from tests.retrieval.test_sweep_parity import comparable

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"

CASES = [
    ("nano.naive", {}, "top_k", [1, 200, 3, 2, 6]),
    ("nano.naive", {}, "naive_max_token_for_text_unit", [0, 1, 500, 128000]),
    ("nano.naive", {"top_k": 40}, "query_better_than_threshold", [-1.0, 0.2, 0.45, 1.0]),
    ("nano.local", {}, "top_k", [1, 200, 3, 2, 6]),
    ("nano.local", {"query_better_than_threshold": -1.0}, "top_k", [2, 1, 4, 3]),
    ("nano.local", {}, "local_max_token_for_local_context", [0, 1, 300, 64000]),
    ("nano.local", {}, "local_max_token_for_text_unit", [0, 1, 64000]),
    ("nano.local", {"local_community_single_one": True}, "local_max_token_for_community_report", [0, 1, 64000]),
    ("nano.local", {"top_k": 40}, "query_better_than_threshold", [-1.0, 0.2, 0.45, 1.0]),
    ("nano.global", {}, "global_max_consider_community", [1, 100000, 2, 7]),
    ("nano.global", {}, "level", [0, 1, 3]),
]


@pytest.fixture(scope="module")
def indexes():
    plain = store.load(ROOT / "data" / "sample" / "en" / "index")
    return {"plain": plain, "hostile": hostile(plain), "wide tie": wide_tie(plain)}


def hostile(index):
    """A copy whose question ranking holds ties next to each other (at the edge of a step's list too), a chunk
    vector without its chunk and an entity vector naming no entity."""
    chunks = run_query(index, "nano.naive", QUESTION, {"top_k": 20}).chunks
    entities = run_query(index, "nano.local", QUESTION, {"top_k": 20}).entities
    out = copy.copy(index)
    out.vectors = dict(index.vectors)
    for name, ranked in (("chunks", [c.id for c in chunks]), ("entities", [c.id for c in entities])):
        table = copy.copy(index.vectors[name])
        table.matrix, table.ids = table.matrix.copy(), list(table.ids)
        rows = [table.ids.index(i) for i in ranked]
        table.matrix[rows[1]] = table.matrix[rows[0]]  # the two best tie
        table.matrix[rows[7]] = table.matrix[rows[6]]  # a tie that a list of 7 rows cuts in two
        out.vectors[name] = table
        if name == "entities":
            table.ids[rows[2]] = "no such entity"
    out.chunk_by_id = {k: v for k, v in index.chunk_by_id.items() if k != chunks[3].id}
    return out


def wide_tie(index):
    """A copy whose eight best entity vectors for the question are one: a tie group that the edge of a list
    of ``top_k + 5`` rows cuts while its first rows are hits (top_k 1, 2)."""
    entities = run_query(index, "nano.local", QUESTION, {"top_k": 20}).entities
    out = copy.copy(index)
    out.vectors = dict(index.vectors)
    table = copy.copy(index.vectors["entities"])
    table.matrix = table.matrix.copy()
    rows = [table.ids.index(c.id) for c in entities[:8]]
    table.matrix[rows] = table.matrix[rows[0]]
    out.vectors["entities"] = table
    return out


def eager_limits(result) -> list:
    """The limits read from every row made (the lazy tails as the lists they read as)."""
    made = copy.copy(result)
    for kind in KINDS:
        setattr(made, kind, list(result.candidates(kind)))
    return [(lim.kind, lim.limit, lim.cut, lim.passed, lim.binding, str(lim.text)) for lim in limits(made)]


@pytest.mark.parametrize("which", ["plain", "hostile", "wide tie"])
@pytest.mark.parametrize("mode,fixed,param,values", CASES, ids=[f"{m}-{p}" for m, _, p, _ in CASES])
def test_every_step_is_the_single_run(indexes, which, mode, fixed, param, values):
    index = indexes[which]
    steps = []
    sweep = run_sweep(index, mode, QUESTION, fixed, param, values, on_step=lambda v, r: steps.append((v, r)))
    assert [v for v, _ in steps] == values
    lazy = 0
    for value, result in steps:
        lazy += sum(isinstance(result.candidates(kind), Candidates) for kind in KINDS)
        # the summary and the limits first: from the tails' reasons, no tail row made yet
        bound = [(lim.kind, lim.limit, lim.cut, lim.passed, lim.binding, str(lim.text)) for lim in limits(result)]
        assert all(items.tail_made == 0 for kind in KINDS if isinstance(items := result.candidates(kind), Candidates))
        assert bound == eager_limits(result), f"{mode} {param}={value}: the limits differ from the rows'"
        alone = run_query(index, mode, QUESTION, {**fixed, param: value})
        assert result.context == alone.context, f"{mode} {param}={value}: the context differs"
        assert comparable(result) == comparable(alone), f"{mode} {param}={value}: the Retrieval differs"
    assert lazy, "no step of the sweep kept its dropped rows lazy"
    assert sweep.steps[0].ids == {kind: steps[0][1].selected_ids(kind) for kind in KINDS}


def test_hostile_index_says_what_it_skipped(indexes):
    """The edits of ``hostile`` reach the steps: the missing rows are warned about, the ties noted."""
    index = indexes["hostile"]
    naive = run_query(index, "nano.naive", QUESTION, {"top_k": 10})
    local = run_query(index, "nano.local", QUESTION, {"top_k": 10})
    assert any("has no stored chunk" in w for w in naive.warnings)
    assert any("names no entity in the graph" in w for w in local.warnings)
    assert "tied with" in str(local.entities[0].why)


def test_a_sweep_searches_once(indexes, monkeypatch):
    """A top_k sweep of nano.naive and nano.local searches its table once, at its widest step."""
    from graphrag_ui.retrieval.nano import naive_rows
    from graphrag_ui.retrieval.nano import recall as nano_recall

    searched = []
    for module in (naive_rows, nano_recall):
        real = module.top_rows
        monkeypatch.setattr(module, "top_rows", lambda t, q, n, real=real: searched.append(n) or real(t, q, n))
    for mode in ("nano.naive", "nano.local"):
        searched.clear()
        run_sweep(indexes["plain"], mode, QUESTION, {}, "top_k", [3, 30, 10, 1])
        assert searched == [35]


def test_steps_do_not_share_rows_a_reader_may_change(indexes):
    """A step's kept rows are its own copies: changing one leaves the next step (and the kept templates) whole."""
    steps = []
    run_sweep(indexes["plain"], "nano.local", QUESTION, {}, "top_k", [5, 6], on_step=lambda v, r: steps.append(r))
    first, second = steps
    first.entities[0].in_context = False
    first.relations[0].order = 999
    assert second.entities[0].in_context and second.relations[0].order == 0
    assert not reuse.active()
