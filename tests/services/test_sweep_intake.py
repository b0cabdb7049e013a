"""A sweep takes its parameters in once (``query.prepare_query``) and moves one value per step
(``Prepared.at``): each step must be what ``run_query`` with that value returns or raises — the same
``Retrieval``, the same refusal for a value out of range, an alias given beside it, an unknown name."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.index import store
from graphrag_ui.services.query import prepare_query, run_query
from graphrag_ui.services.sweep import run_sweep
from tests.retrieval.test_sweep_parity import comparable

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"


@pytest.fixture(scope="module")
def index():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


def refusal(run) -> str:
    with pytest.raises(UserError) as caught:
        run()
    return str(caught.value)


@pytest.mark.parametrize(
    "mode,given,name,value",
    [
        ("ms.basic", {"k": 10}, "k", 501),  # above its maximum
        ("ms.basic", {"k": 10}, "k", 0),  # below its minimum
        ("ms.basic", {"k": 10}, "k", 2.5),  # a whole number that is not one
        ("ms.basic", {"k": 10}, "k", "ten"),  # not a number
        ("nano.local", {"top_k": 5}, "top_k", -1),
        ("lightrag.local", {"version": "1.4.7", "top_k": 5}, "top_k", 10**9),
        ("ms.basic", {"k": 10}, "no_such_parameter", 3),  # a name the mode has not
        ("ms.local", {"top_k_entities": 5}, "top_k_mapped_entities", 8),  # an alias of it given too, another value
        # a float of its own type is taken without parsing only when finite and inside its bounds
        ("nano.naive", {}, "query_better_than_threshold", float("inf")),
        ("nano.naive", {}, "query_better_than_threshold", float("nan")),
        ("nano.naive", {}, "query_better_than_threshold", 1.5),
        ("nano.naive", {}, "query_better_than_threshold", -1.0000001),
        ("nano.naive", {}, "query_better_than_threshold", True),  # a bool is no number here
        ("nano.naive", {}, "top_k", True),
        ("nano.naive", {}, "top_k", 201),
    ],
)
def test_a_step_is_refused_as_a_single_run_at_its_value_is(index, mode, given, name, value):
    """The shortcut checks only the moved value: it must still refuse every value (and every name) that
    ``run_query`` refuses, with the same message."""
    base = prepare_query(index, mode, QUESTION, given)
    alone = refusal(lambda: run_query(index, mode, QUESTION, {**given, name: value}))
    assert refusal(lambda: base.at(name, value).run()) == alone


def test_an_alias_given_at_the_same_value_runs_as_the_single_run(index):
    """``take`` accepts an alias beside its parameter when both say the same: so does a step."""
    given = {"top_k_entities": 5}
    step = prepare_query(index, "ms.local", QUESTION, given).at("top_k_mapped_entities", 5).run()
    alone = run_query(index, "ms.local", QUESTION, {**given, "top_k_mapped_entities": 5})
    assert comparable(step) == comparable(alone)


@pytest.mark.parametrize(
    "mode,given,name,value",
    [
        ("ms.basic", {"k": 10}, "k", 3),
        ("ms.basic", {"k": 10}, "k", "7"),  # as a URL or the CLI gives it: coerced as take coerces it
        ("ms.basic", {"k": 10}, "response_type", "One line"),  # not a number: the whole intake again
        ("lightrag.naive", {"version": "1.5.7"}, "top_k", 3),  # a release's own schema
        ("nano.local", {"top_k": 5, "response_type": "Bullets"}, "top_k", 9),
        ("nano.naive", {}, "query_better_than_threshold", 0.35),  # a float, as is
        ("nano.naive", {}, "query_better_than_threshold", 1),  # an int for a float: coerced to 1.0 as take does
        ("nano.naive", {}, "query_better_than_threshold", -1.0),  # its bounds are inside
        ("nano.naive", {}, "top_k", 200),
    ],
)
def test_a_moved_step_is_the_single_run_and_leaves_the_base_as_it_was(index, mode, given, name, value):
    base = prepare_query(index, mode, QUESTION, given, keywords=None)
    before = dict(base.intake.params)
    step = base.at(name, value).run()
    alone = run_query(index, mode, QUESTION, {**given, name: value})
    assert comparable(step) == comparable(alone)
    assert base.intake.params == before and base.given == given
    assert comparable(base.run()) == comparable(run_query(index, mode, QUESTION, given))


def test_a_sweep_with_an_alias_beside_its_parameter_is_refused_as_its_steps_are(index):
    """An alias of the swept parameter fixed at another value: every step but that value is the single
    run's refusal (``take``: two names of one parameter), so the sweep is refused with its message."""
    given = {"top_k_entities": 5}
    alone = refusal(lambda: run_query(index, "ms.local", QUESTION, {**given, "top_k_mapped_entities": 8}))
    assert refusal(lambda: run_sweep(index, "ms.local", QUESTION, given, "top_k_mapped_entities", [8, 5])) == alone


def test_a_sweeps_later_steps_embed_nothing_and_a_new_question_shares_no_vector(index, monkeypatch):
    """``Prepared.vectors`` (``Deps.cache``) is shared by ``at``'s copies: the question is embedded (and its
    width checked) at the first step only; another ``prepare_query`` starts with none."""
    import graphrag_ui.services.query as query

    asked = []
    real = query._embed_model
    monkeypatch.setattr(query, "_embed_model", lambda *a: asked.append(a) or real(*a))
    sweep = run_sweep(index, "nano.naive", QUESTION, {}, "top_k", [2, 4, 6, 8])
    assert len(sweep.steps) == 4 and len(asked) == 2  # the intake's check, then the first step's embedding
    base = prepare_query(index, "nano.naive", QUESTION, {})
    base.run()
    assert list(base.at("top_k", 3).vectors) == [QUESTION] and base.at("top_k", 3).vectors is base.vectors
    assert prepare_query(index, "nano.naive", QUESTION, {}).vectors == {}
