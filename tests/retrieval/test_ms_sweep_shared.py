"""What ms.local's sweep steps share (``local_search.entities.HitList``, ``reports.Matching``, the Entities table):
each is the single run's own work, and a step's candidates stay its own."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.core.candidates import Candidates
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.retrieval.ms.indexer_adapters import level_view
from graphrag_ui.retrieval.ms.local_search.reports import Matching, _matched
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep
from tests.retrieval.test_sweep_parity import comparable

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"


@pytest.fixture(scope="module")
def index():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


def _selection(index, level: int):
    lv = level_view(index, level)
    return lv, list(lv.by_id_order[:60])


@pytest.mark.parametrize("level", [0, 1, 2])
def test_every_prefix_matches_and_sorts_its_reports_as_the_single_run(index, level):
    lv, selected = _selection(index, level)
    matching = Matching(lv, selected)
    assert matching.exact
    ties = 0
    for m in range(len(selected) + 1):
        matches, comms = matching.matched(lv, selected[:m])
        alone = _matched(lv, selected[:m])
        assert list(matches.items()) == list(alone[0].items())
        assert [c.id for c in comms] == [c.id for c in alone[1]], m
        keys = [(matches[c.id], c.rating) for c in comms]
        ties += len(keys) - len(set(keys))
    assert ties, "equal (count, rank) keys: the order among them is the stable one"


def test_a_nan_rating_sorts_as_python_does(index):
    lv, selected = _selection(index, 2)
    some = next(iter(lv.reports.values()))
    rating = some.rating
    try:
        some.rating = math.nan
        lv.memo.pop("ms.local report ranks", None)
        matching = Matching(lv, selected)
        assert not matching.exact
        assert [c.id for c in matching.matched(lv, selected[:30])[1]] == [c.id for c in _matched(lv, selected[:30])[1]]
    finally:
        some.rating = rating
        lv.memo.pop("ms.local report ranks", None)


@pytest.mark.parametrize(
    "param,values", [("top_k_mapped_entities", [40, 3, 12, 25, 40]), ("max_context_tokens", [900, 8000, 400, 900])]
)
def test_steps_share_work_not_candidates(index, param, values):
    """Each step's candidates are objects of its own (a kept entity candidate is copied): a reader that changes a
    step's rows as it gets them changes no later step, and every step is still the single run."""
    steps, seen, held = [], set(), []

    def spoil(value, result):
        made = {id(c) for kind in KINDS for c in result.candidates(kind)}
        assert not seen & made, f"{param}={value} holds another step's candidate"
        seen.update(made)
        held.append(result)  # alive: no later candidate takes one of its ids
        steps.append((value, comparable(result)))
        for kind in KINDS:
            for c in result.candidates(kind):
                c.tokens, c.label, c.in_context = -1, "changed", not c.in_context

    run_sweep(index, "ms.local", QUESTION, {}, param, values, on_step=spoil)
    for value, step in steps:
        assert step == comparable(run_query(index, "ms.local", QUESTION, {param: value})), f"{param}={value}"


@pytest.mark.parametrize("pick", [0, 5, -1])
def test_scoring_a_gold_entity_among_the_dropped_makes_only_its_rows(index, pick):
    """``evaluate`` finds a missed gold entity in ms.local's lazy Entities tail by the tail's ids and labels: it makes
    the rows it matches only, and says what it says over the whole list."""
    from graphrag_ui.evaluation.gold import Question
    from graphrag_ui.evaluation.metrics import evaluate

    params = {"top_k_mapped_entities": 40, "max_context_tokens": 1500}
    result = run_query(index, "ms.local", QUESTION, params)
    items = result.entities
    assert isinstance(items, Candidates) and len(items.tail) > 6
    gold = items[len(items.head) + (pick % len(items.tail))]  # a fresh run below reads it, not this one
    question = Question("q", QUESTION, evidence_entities=[gold.label])
    lazy = run_query(index, "ms.local", QUESTION, params)
    scored = evaluate(index, lazy, question)
    wanted = sum(1 for c in items if c.id == gold.id or c.label == gold.label)  # the rows it matches
    assert lazy.entities.tail_made == wanted - sum(1 for c in lazy.entities.head if c.id == gold.id)
    eager = run_query(index, "ms.local", QUESTION, params)
    eager.entities = list(eager.entities)
    assert scored.items == evaluate(index, eager, question).items
    assert not scored.items[0].found and scored.items[0].missed
