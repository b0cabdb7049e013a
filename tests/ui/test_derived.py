"""The page's per-result values (graphrag_ui/ui/results/derived.py): computed once per result object, never
carried over to another result — a fresh run, a ``replace``d one, a copy or a comparison with another base."""

from __future__ import annotations

import copy
import gc
import weakref
from dataclasses import replace

from graphrag_ui.retrieval.core.binding import limits as binding_limits
from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.ui.answer.citation_marks import trace_key
from graphrag_ui.ui.results import derived, tables


def _result(kept: int, dropped: int) -> Retrieval:
    items = [
        Candidate(f"e{i}", f"E{i}", {}, i, in_context=i < kept, dropped="" if i < kept else "x")
        for i in range(kept + dropped)
    ]
    return Retrieval("nano.local", "q", {"top_k": kept}, entities=items)


def test_a_value_is_computed_once_per_result():
    result, calls = _result(2, 1), []
    for _ in range(3):
        assert derived.once(result, "n", lambda r: calls.append(1) or len(r.entities)) == 3
    assert calls == [1]
    assert derived.counts(result) == tables.counts(result) and derived.counts(result)["entities"] == (2, 1)
    assert derived.limits(result) == binding_limits(result)
    assert result.to_dict() == _result(2, 1).to_dict() and result == _result(2, 1)  # the memo is no field


def test_another_result_never_sees_the_memo():
    result = _result(2, 1)
    assert derived.counts(result)["entities"] == (2, 1)
    key = trace_key(result)
    changed = replace(result, entities=_result(1, 2).entities)
    assert derived.counts(changed)["entities"] == (1, 2) and trace_key(changed) != key
    copied = copy.copy(result)  # carries the memo's slot over: recognised by its identity
    copied.entities = _result(3, 0).entities
    assert derived.counts(copied)["entities"] == (3, 0)
    assert derived.counts(result)["entities"] == (2, 1)


def test_a_comparison_is_recomputed_for_another_base():
    result, first, second = _result(2, 1), _result(1, 1), _result(3, 0)
    bases = []
    seen = lambda base: derived.against(result, base, lambda r: bases.append(base) or len(base.entities), "n")  # noqa: E731
    assert [seen(first), seen(first), seen(second), seen(first)] == [2, 2, 3, 2]
    assert bases == [first, second, first]


def test_a_result_does_not_keep_the_run_it_was_compared_with_alive():
    """The page compares each new run with the one before; a strong hold on the base would chain every run
    of a session (10⁵ candidates each at 100k entities) behind the newest one."""
    result, base = _result(2, 1), _result(1, 1)
    assert derived.against(result, base, lambda r: len(r.entities), "n") == 3
    gone = weakref.ref(base)
    del base
    gc.collect()
    assert gone() is None
    assert derived.against(result, _result(3, 0), lambda r: -1, "n") == -1  # a new base: recomputed
