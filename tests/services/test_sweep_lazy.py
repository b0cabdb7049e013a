"""A sweep step keeps what few readers read as data and makes it when read: its binding limits' words
(``binding.Limit.text``, ``sweep.Step.binding``: ``i18n.ReadText``/``ReadTexts``) and its items' spans
(``sweep._spans``, from the steps' ids at the end). What is read must be what the eager code said."""

from __future__ import annotations

import json
import pickle
from dataclasses import asdict
from pathlib import Path

import pytest

from graphrag_ui.base.i18n import Msg, Reason, msg, translate
from graphrag_ui.index import store
from graphrag_ui.retrieval.core.binding import binding, limits
from graphrag_ui.retrieval.core.candidates import in_context
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"

# what the eager code said at these steps of nano.local on the sample index (the threshold takes over at 10)
SAID = {
    2: (
        ["Entities: top_k 2 binding, 5 candidates cut", "Chunks: budget binding, 7 candidates cut"],
        ["实体：top_k 2 起限制作用，截掉 5 个候选", "文本块：预算起限制作用，截掉 7 个候选"],
    ),
    10: (
        [
            "Entities: threshold 0.2 binding, 2 candidates cut",
            "Entities: top_k 10 binding, 3 candidates cut",
            "Chunks: budget binding, 13 candidates cut",
        ],
        [
            "实体：阈值 0.2 起限制作用，截掉 2 个候选",
            "实体：top_k 10 起限制作用，截掉 3 个候选",
            "文本块：预算起限制作用，截掉 13 个候选",
        ],
    ),
}


@pytest.fixture(scope="module")
def index():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


def eager(text: Reason) -> Msg:
    """The ``Msg`` the eager code made from the same template and values."""
    return msg(text.template, **{k: eager(v) if type(v) is Reason else v for k, v in text.values.items()})


def test_a_steps_binding_is_worded_when_read_and_reads_as_the_eager_words_in_both_languages(index):
    sweep = run_sweep(index, "nano.local", QUESTION, {}, "top_k", [2, 10, 40])
    kept = [r for step in sweep.steps for r in step.__dict__["_binding"]]
    assert kept and all(type(r) is Reason and r._text is None for r in kept), "no step worded its limits"
    for step in sweep.steps:
        words = step.binding
        assert all(type(w) is Msg for w in words)  # read as text, as before: joined, compared, translated
        assert words == [eager(r) for r in step.__dict__["_binding"]]
        alone = run_query(index, "nano.local", QUESTION, {"top_k": step.value})
        assert words == [lim.text for lim in binding(alone)]
        if step.value in SAID:
            english, chinese = SAID[step.value]
            assert [str(w) for w in words] == english
            assert [translate(w, "zh") for w in words] == chinese
    # written and kept as the words: the JSON the sweep command writes, a pickled sweep (the app's session)
    data = json.loads(json.dumps(asdict(sweep), ensure_ascii=False, default=str))
    assert [s["binding"] for s in data["steps"]] == [[str(w) for w in s.binding] for s in sweep.steps]
    again = pickle.loads(pickle.dumps(sweep))
    assert [[translate(w, "zh") for w in s.binding] for s in again.steps] == [
        [translate(w, "zh") for w in s.binding] for s in sweep.steps
    ]


def test_a_limit_keeps_its_words_as_data_until_read(index):
    result = run_query(index, "nano.local", QUESTION, {"top_k": 40})
    found = limits(result)
    assert any(not lim.binding for lim in found) or len(found) > 1
    assert all(type(lim.said()) is Reason and lim.said()._text is None for lim in found)
    for lim in found:
        assert type(lim.text) is Msg and lim.text == eager(lim.said())
        assert translate(lim.text, "zh") == translate(eager(lim.said()), "zh")
    count = next(lim for lim in found if lim.limit == "count")
    assert count.text == f"Entities: top_k 40 is not binding: {count.passed} candidates pass the threshold 0.2"
    assert translate(count.text, "zh") != str(count.text) and "top_k 40" in translate(count.text, "zh")


@pytest.mark.parametrize(
    "mode,param,values",
    [
        ("nano.local", "top_k", [2, 10, 5, 40]),
        ("lightrag.hybrid", "top_k", [3, 9, 30]),
        ("ms.local", "top_k_mapped_entities", [2, 14, 8]),
    ],
)
def test_the_items_spans_are_what_each_steps_context_held(index, mode, param, values):
    """Each item once, by kind then the step it first appears at (context order within it), labelled as
    that step's context labels it, present exactly at the steps whose context holds it."""
    held = []
    sweep = run_sweep(
        index,
        mode,
        QUESTION,
        {},
        param,
        values,
        on_step=lambda v, r: held.append([in_context(r.candidates(k)) for k in KINDS]),
    )
    expected, seen = [], set()
    for k, kind in enumerate(KINDS):
        for step in held:
            for c in step[k]:
                if (kind, c.id) not in seen:
                    seen.add((kind, c.id))
                    present = [any(x.id == c.id for x in other[k]) for other in held]
                    expected.append((kind, c.id, c.label, present))
    assert [(it.kind, it.id, it.label, it.present) for it in sweep.items] == expected
    assert any(not all(it.present) for it in sweep.items)  # something enters or leaves: the test can fail


@pytest.mark.parametrize(
    "mode,param,values",
    [
        ("lightrag.hybrid", "top_k", [60, 3, 20, 40]),
        ("lightrag.mix", "max_total_tokens", [30000, 0, 2000, 8000]),
        ("lightrag.naive", "top_k", [40, 2, 10]),
    ],
)
def test_a_sweep_keeps_summaries_and_makes_a_steps_whole_run_when_asked(index, mode, param, values, monkeypatch):
    """Without ``on_step`` a sweep's runs are read for their summaries only: they print no context, build no
    answer messages and no whole kept entity, relation or chunk row (``reuse.summaries``, ``explain.KeptRow``); ``Sweep.retrieval`` makes a step's whole run when asked — the Retrieval ``on_step``
    gets and a single run returns — also from the sweep written as JSON's fields and from a pickled sweep
    (the app's session), and each ``Step`` is the summary of that whole run."""
    from graphrag_ui.retrieval.lightrag import explain, retrieve
    from graphrag_ui.retrieval.lightrag.v1_5_7 import context as c157
    from graphrag_ui.services.sweep import _step
    from tests.retrieval.test_sweep_parity import comparable

    run_query(index, mode, QUESTION, {"version": "1.5.7"})  # 1.5.7's token counts of its empty sections, made once
    asked = []

    class Counted(dict):
        def __getitem__(self, key):
            asked.append(key)
            return super().__getitem__(key)

    monkeypatch.setattr(retrieve, "ANSWER", Counted(retrieve.ANSWER))
    rows = []

    class Row(explain.Candidate):  # a whole kept row, counted as made
        def __init__(self, *args, **kwargs):
            rows.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(explain, "Candidate", Row)
    printed = []
    real_tail = c157.chunks_tail
    monkeypatch.setattr(c157, "chunks_tail", lambda *a: printed.append(1) or real_tail(*a))
    sweep = run_sweep(index, mode, QUESTION, {"version": "1.5.7"}, param, values)
    assert printed == [], "a summary step printed its context"
    assert asked == [], "a summary step built the answer's messages"
    assert rows == [], "a summary step made its kept rows whole"
    whole = []
    full = run_sweep(index, mode, QUESTION, {"version": "1.5.7"}, param, values, on_step=lambda v, r: whole.append(r))
    assert [(i.kind, i.id, i.label, i.present) for i in sweep.items] == [
        (i.kind, i.id, i.label, i.present) for i in full.items
    ]
    assert asked  # a whole run builds them (naive top_k steps under a chunk_top_k: once, copied)
    assert rows and printed
    again = pickle.loads(pickle.dumps(sweep))
    data = json.loads(json.dumps(asdict(sweep), ensure_ascii=False, default=str))
    assert data["params"] == {"version": "1.5.7"} and data["values"] == values
    keywords = sweep.keywords if sweep.keywords.source else None
    for i, value in enumerate(values):
        made = sweep.retrieval(index, i)
        alone = run_query(index, mode, QUESTION, {"version": "1.5.7", param: value}, keywords=keywords)
        assert comparable(made) == comparable(whole[i]) == comparable(alone)
        assert comparable(again.retrieval(index, i)) == comparable(made)
        assert made.messages or not made.context
        summary = _step(value, made, sweep.steps[i].ms, {k: {} for k in KINDS})
        assert (summary.ids, summary.tokens, summary.sections, summary.warnings, summary.binding) == (
            sweep.steps[i].ids,
            sweep.steps[i].tokens,
            sweep.steps[i].sections,
            sweep.steps[i].warnings,
            sweep.steps[i].binding,
        )
