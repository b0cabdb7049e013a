"""ms.local's and ms.basic's sweep path (issue 30): a section's dropped rows after its last kept one are a
lazy tail, LanceDB's top k is kept at the widest step, and a selection's relationship rows are counted once.
Every step is still the single run at its value — at the edges too (k beyond the index, a budget of 0 or
1 token) and when a step cannot share (a wider search than the one kept, a kept ``links`` dict) — and a
lazy section reads, explains and binds exactly as the list of its rows would."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.binding import binding, limits
from graphrag_ui.retrieval.core.candidates import Candidates, dropped_reasons, in_context
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.retrieval.ms.vector_search import lance_knn
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep
from tests.retrieval.test_sweep_parity import comparable

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"


@pytest.fixture(scope="module")
def index():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


EDGES = [
    ("ms.local", "top_k_mapped_entities", [1, 2, 7, 200]),  # 200: 400 hits asked of a smaller index
    ("ms.local", "max_context_tokens", [0, 1, 60, 700, 3000, 200000]),
    ("ms.basic", "k", [1, 3, 500]),
    ("ms.basic", "max_context_tokens", [0, 1, 30, 200000]),
]


@pytest.mark.parametrize("mode,param,values", EDGES, ids=[f"{m}-{p}" for m, p, _ in EDGES])
def test_every_step_at_the_edges_is_the_single_run(index, mode, param, values):
    steps = []
    sweep = run_sweep(index, mode, QUESTION, {}, param, values, on_step=lambda v, r: steps.append((v, r)))
    assert [v for v, _ in steps] == values
    for (value, result), step in zip(steps, sweep.steps, strict=True):
        alone = run_query(index, mode, QUESTION, {param: value})
        assert result.context == alone.context, f"{mode} {param}={value}"
        assert comparable(result) == comparable(alone), f"{mode} {param}={value}"
        # the Sweep view's step: kept ids and binding marks as the single run's, read without making a tail row
        assert step.ids == {kind: alone.selected_ids(kind) for kind in KINDS}
        assert step.binding == [lim.text for lim in binding(alone)]


def _eager(result):
    """The same retrieval with every lazy section read into the plain list of its rows."""
    for kind in KINDS:
        setattr(result, kind, list(result.candidates(kind)))
    return result


@pytest.mark.parametrize(
    "mode,params",
    [
        ("ms.local", {"top_k_mapped_entities": 40}),
        ("ms.local", {"max_context_tokens": 700}),
        ("ms.local", {"max_context_tokens": 0}),
        ("ms.local", {"min_community_rank": 6, "top_k_mapped_entities": 30}),
        ("ms.basic", {"k": 60, "max_context_tokens": 500}),
    ],
)
def test_a_lazy_section_reads_explains_and_binds_as_its_rows(index, mode, params):
    result = run_query(index, mode, QUESTION, params)
    lazy = [kind for kind in KINDS if isinstance(result.candidates(kind), Candidates)]
    assert lazy, "these values leave dropped rows after the last kept one"
    for kind in lazy:
        items = result.candidates(kind)
        assert items.tail_made == 0  # the run, its warnings and its kept rows made none
        assert in_context(items) == [c for c in items.head if c.in_context]
    marks = [(lim.kind, lim.limit, lim.cut, lim.passed, str(lim.text)) for lim in limits(result)]
    counted = {kind: sorted(_templates(result.candidates(kind))) for kind in lazy}
    assert all(result.candidates(kind).tail_made == 0 for kind in lazy)  # binding read the tails' runs only
    eager = _eager(result)
    assert [(lim.kind, lim.limit, lim.cut, lim.passed, str(lim.text)) for lim in limits(eager)] == marks
    for kind in lazy:
        rows = eager.candidates(kind)
        assert [c.order for c in rows] == list(range(len(rows)))
        last_kept = max((i for i, c in enumerate(rows) if c.in_context), default=-1)
        assert len(rows) == len(items := result.candidates(kind)) and rows[last_kept + 1 :]
        assert all(not c.in_context and c.dropped for c in rows[last_kept + 1 :])  # a tail holds dropped rows
        assert sorted(_templates(rows)) == counted[kind]  # the runs count each row's own reason
        assert all(str(c.dropped) for c in rows if not c.in_context)  # every dropped row says why


def _templates(items):
    out = []
    for reason, _score, n in dropped_reasons(items):
        template = getattr(reason, "template", reason)
        while getattr(template, "template", None) is not None:
            template = template.template
        out += [str(template)] * n
    return out


def test_a_wider_search_than_the_one_kept_searches_again(index):
    """The widest step runs first, so a sweep's later steps cut its top k; a step wider than what is kept (a
    float sweep, or a caller's own order) falls back to its own search, and each is the search alone."""
    table = index.vectors["entities"]
    query = np.asarray(table.matrix[3], dtype=np.float32) * 0.5 + np.asarray(table.matrix[7], dtype=np.float32)
    alone = {k: lance_knn(table, query, k, "flat") for k in (2, 9, 4, len(table) + 5)}
    with reuse.shared():
        shared = {k: lance_knn(table, query, k, "flat") for k in (2, 9, 4, len(table) + 5)}
    assert shared == alone and len(alone[len(table) + 5]) == len(table)


def test_hits_not_loaded_at_the_level_are_explained_in_and_after_the_kept_ones():
    """An entity in no community is found by the vector search but not loaded (GraphRAG skips it): before the
    Entities table's cut it is a made row, after it a tail row — each says why, and binding counts both."""
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    for entity in index.entities[::3]:
        entity.communities = []
    params = {"top_k_mapped_entities": 30, "max_context_tokens": 2000}
    result = run_query(index, "ms.local", QUESTION, params)
    items = result.entities
    assert isinstance(items, Candidates) and items.tail_made == 0
    assert any(not c.in_context for c in items.head)  # a skipped hit among the kept ones
    marks = [(lim.kind, lim.limit, lim.cut, lim.passed) for lim in limits(result)]
    rows = list(items)
    skipped = [c for c in rows if str(c.dropped).startswith("not loaded")]
    assert any(c.order < len(items.head) for c in skipped) and any(c.order >= len(items.head) for c in skipped)
    assert [c.order for c in rows] == list(range(len(rows))) and all(c.in_context or c.dropped for c in rows)
    assert [(lim.kind, lim.limit, lim.cut, lim.passed) for lim in limits(_eager(result))] == marks
    _steps_are_single_runs(index, params, result, narrower=5)


def test_an_entity_hit_twice_falls_back_to_the_rows_merged_by_id():
    """Two vector rows naming one entity (a damaged or hand-made table): the Entities rows merge onto its
    candidates by id, as they always did; the section is then made whole, and a sweep's step is the single run."""
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    table = index.vectors["entities"]
    query = run_query(index, "ms.local", QUESTION, {"top_k_mapped_entities": 3})
    first = query.entities[0].id
    table.ids[table.ids.index(query.entities[2].id)] = first  # the third hit now names the first entity
    params = {"top_k_mapped_entities": 20, "max_context_tokens": 2000}
    result = run_query(index, "ms.local", QUESTION, params)
    assert type(result.entities) is list and [c.id for c in result.entities].count(first) == 2
    assert all(c.in_context or c.dropped for c in result.entities)
    _steps_are_single_runs(index, params, result, narrower=2)


def _steps_are_single_runs(index, params: dict, result, narrower: int) -> None:
    """A top_k sweep from ``params``' value down to ``narrower``: its first step is ``result`` (the single run
    at ``params``) and its second the single run at ``narrower``."""
    steps = []
    widest = params["top_k_mapped_entities"]
    run_sweep(
        index,
        "ms.local",
        QUESTION,
        params,
        "top_k_mapped_entities",
        [widest, narrower],
        on_step=lambda v, r: steps.append(r),
    )
    assert comparable(steps[0]) == comparable(result)
    assert comparable(steps[1]) == comparable(
        run_query(index, "ms.local", QUESTION, {**params, "top_k_mapped_entities": narrower})
    )
