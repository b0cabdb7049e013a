"""What nano's sweeps make once and cut per step, part two: nano.global's selection planned at the widest consider
cap (``global_select.Plan``), its batches' tables and prompts made once per batch of the same rows, nano.local's
kept Sources rows made once a sweep, nano.naive's first score below the threshold found once, and a prompt's
template parsed once (``answer_prompt.fill``). Each test counts the shared work (it fails when a step makes
it again) and checks every step against a single run at its value, also on clusters that tie, have no report,
a rating too low or not a number, and an occurrence that is NaN (no order: each step sorts on its own)."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.nano import (
    csv_context,
    global_query,
    global_select,
    local_query,
    naive_query,
    naive_rows,
    prompts,
    recall,
)
from graphrag_ui.retrieval.nano.prep import prepared
from graphrag_ui.retrieval.nano.prompts import LOCAL, NAIVE
from graphrag_ui.retrieval.spec import answer_prompt
from graphrag_ui.retrieval.spec.answer_prompt import fill
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep
from tests.retrieval.test_sweep_parity import comparable

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"
CAPS = [3, 12, 1, 7, 22, 5, 16]  # the widest (22: every cluster) runs first, then these in this order


@pytest.fixture(scope="module")
def index():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


def awkward(index, occurrence: float):
    """A copy whose clusters tie on occurrence and rating, one has no report, one is rated too low for
    ``global_min_community_rating`` 7, one's rating is not a number and one's occurrence is ``occurrence``."""
    out = copy.copy(index)
    out.community_by_id = dict(index.community_by_id)
    order = list(prepared(index).schema())
    first, second = (index.community_by_id[k] for k in order[:2])
    out.community_by_id[order[3]] = dataclasses.replace(first, id=order[3], extra={"occurrence": 0.5})
    out.community_by_id[order[4]] = dataclasses.replace(
        second, id=order[4], rating=first.rating, extra={"occurrence": 0.5}
    )
    out.community_by_id.pop(order[5])
    out.community_by_id[order[6]] = dataclasses.replace(second, id=order[6], rating=2.0, extra={})
    bad = dataclasses.replace(second, id=order[8], extra={"report_json": {"rating": "high"}})
    out.community_by_id[order[8]] = bad
    odd = index.community_by_id[order[10]]
    out.community_by_id[order[10]] = dataclasses.replace(odd, extra={**odd.extra, "occurrence": occurrence})
    out.communities = list(out.community_by_id.values())
    return out


def steps_of(index, param, values, fixed=None):
    steps = []
    run_sweep(index, "nano.global", QUESTION, fixed or {}, param, values, on_step=lambda v, r: steps.append((v, r)))
    return steps


def count_calls(monkeypatch, owner, name) -> list:
    made = []
    real = getattr(owner, name)

    def counted(*args, **kwargs):
        made.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return made


@pytest.mark.parametrize("occurrence", [0.5, float("nan")])
@pytest.mark.parametrize("min_rating", [0.0, 7.0])
def test_every_consider_step_is_the_single_run_on_awkward_clusters(index, monkeypatch, occurrence, min_rating):
    odd = awkward(index, occurrence)
    plans = count_calls(monkeypatch, global_select, "Plan")
    fixed = {"global_min_community_rating": min_rating, "global_max_token_for_community_report": 700}
    steps = steps_of(odd, "global_max_consider_community", CAPS, fixed)
    # a NaN occurrence leaves no order to restrict: every narrower step plans (sorts) its own clusters
    assert len(plans) == (1 if occurrence == occurrence else len(CAPS))
    monkeypatch.undo()
    for cap, result in steps:
        alone = run_query(odd, "nano.global", QUESTION, {**fixed, "global_max_consider_community": cap})
        assert comparable(result) == comparable(alone), f"cap {cap}"
    assert any(w for _, r in steps for w in r.warnings if "not a number" in str(w))


def test_a_consider_sweep_plans_once_and_makes_each_batch_once(index, monkeypatch):
    plans = count_calls(monkeypatch, global_select, "Plan")
    tables = count_calls(monkeypatch, global_query, "_lines")
    fixed = {"global_max_token_for_community_report": 700}
    steps = steps_of(index, "global_max_consider_community", CAPS, fixed)
    batches = [tuple(b.community_ids) for _, r in steps for b in r.stages.batches]
    assert len(plans) == 1
    # a batch of rows already tabled, or the first rows of one, is cut from it: fewer tables than distinct batches
    assert len(tables) < len(set(batches)) < len(batches)
    monkeypatch.undo()
    for cap, result in steps:
        alone = run_query(index, "nano.global", QUESTION, {**fixed, "global_max_consider_community": cap})
        assert comparable(result) == comparable(alone), f"cap {cap}"
        assert result.stages.batches == alone.stages.batches


def test_a_steps_kept_rows_are_its_own(index):
    """The rows made once a sweep are copied per step: changing one step's row changes no other step's."""
    steps = steps_of(index, "global_max_consider_community", [22, 21])
    first, second = (r.communities[0] for _, r in steps)
    assert first is not second and first.__dict__ == second.__dict__
    first.order = 99
    assert second.order == 0


def test_a_top_k_sweep_makes_each_kept_source_row_once(index, monkeypatch):
    made: list[str] = []

    class Counted(local_query.Candidate):
        def __init__(self, *args, **kwargs):
            if len(args) > 7 and args[0] in index.chunk_by_id and args[7]:  # a chunk in the context
                made.append(args[0])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(local_query, "Candidate", Counted)
    values = [3, 12, 6, 9, 1]
    sweep = run_sweep(index, "nano.local", QUESTION, {}, "top_k", values)
    kept = [cid for step in sweep.steps for cid in step.ids["chunks"]]
    assert len(made) == len(set(made)) == len(set(kept)) < len(kept)
    monkeypatch.undo()
    steps = []
    run_sweep(index, "nano.local", QUESTION, {}, "top_k", values, on_step=lambda v, r: steps.append((v, r)))
    for value, result in steps:
        assert comparable(result) == comparable(run_query(index, "nano.local", QUESTION, {"top_k": value}))


def test_lines_make_each_row_once_and_cut_one_text():
    asked: list[int] = []
    rests = [csv_context.joined([f"report {i}", i * 1.5, 'a "quoted"\ncell']) for i in range(7)]

    def rest(i: int) -> str:
        asked.append(i)
        return rests[i]

    lines = csv_context.Lines(global_query.MAP_HEADER, rest)
    for n in (4, 0, 7, 2, 5, 7):
        assert lines.table(n) == csv_context.numbered(global_query.MAP_HEADER, rests[:n])
    assert asked == list(range(7))


@pytest.mark.parametrize("template", [LOCAL.template, NAIVE.template, prompts._MAP, prompts._REDUCE])
def test_a_prompt_filled_from_its_parsed_pieces_is_format(template):
    fields = {"response_type": "Bullets", "report_data": "r {x} }}", "user_prompt": "n/a"}
    for context in ("", 'a "csv" {with} {{braces}} and ü\n' * 40):
        fields["context_data"] = fields["content_data"] = context
        assert fill(template, **fields) == template.format(**fields)


def test_fill_leaves_other_placeholders_to_format():
    for template in ("{x!r} {y}", "{x:>8}|{y}", "{x[0]}{y}", "a {{lit}} {x}}}{y}", "{x}{y}"):
        assert fill(template, x="ab", y="{c}") == template.format(x="ab", y="{c}")
    assert fill("{x}|{y}", x="a", y=3) == "a|3"  # not text: format's own
    for template, error in (("{missing}", KeyError), ("{0}", IndexError), ("{x", ValueError)):
        with pytest.raises(error):
            fill(template, x="a")
    before = answer_prompt._pieces.cache_info().misses
    for _ in range(3):
        fill("once {x}", x="a")
    assert answer_prompt._pieces.cache_info().misses == before + 1  # parsed once, then read


def test_a_steps_stop_is_the_first_score_below_the_threshold_within_its_top_k():
    sims = [0.9, 0.8, 0.3, 0.5, 0.1]
    rows = naive_rows.Ranked(
        [str(i) for i in range(5)], list(range(5)), sims, list(range(5)), [1, 2, 3, 4, 5], [1] * 5, True
    )
    for top_k in (5, 1, 3, 2, 0):
        for threshold in (0.4, 0.0, 0.95):
            expected = next((p for p in range(min(top_k, 5)) if sims[p] < threshold), min(top_k, 5))
            assert naive_rows.cut(rows, top_k, threshold, 100, 5).stop == expected
    assert set(rows.below) == {0.4, 0.0, 0.95}


def test_an_entity_search_finds_its_first_score_below_a_threshold_once():
    sims = [0.9, 0.7, 0.7, 0.2, 0.6]
    ranked = recall.Ranked(None, None, list(range(5)), sims, np.asarray(sims), [None] * 5, True)
    for threshold, first in ((0.5, 3), (0.1, 5), (0.95, 0), (0.7, 3)):
        assert ranked.first_below(threshold) == first
        ranked.sims = np.zeros(5)  # read once: a later call answers from what it kept
        assert ranked.first_below(threshold) == first
        ranked.sims = np.asarray(sims)


def test_naive_steps_that_keep_as_many_chunks_share_their_prompt(index, monkeypatch):
    filled = []

    class Counted:
        def messages(self, context, query, **kwargs):
            filled.append(context)
            return NAIVE.messages(context, query, **kwargs)

    monkeypatch.setattr(naive_query, "NAIVE", Counted())
    values = [2, 40, 30, 4, 50, 35]  # the widest keeps what the budget allows: the steps past it keep as many
    fixed = {"naive_max_token_for_text_unit": 1500}
    sweep = run_sweep(index, "nano.naive", QUESTION, fixed, "top_k", values, on_step=lambda v, r: None)  # whole runs
    kept = [step.counts["chunks"] for step in sweep.steps]
    assert len(filled) == len(set(kept)) < len(kept)
    filled.clear()
    run_sweep(index, "nano.naive", QUESTION, fixed, "top_k", values)  # summary steps build no prompt
    assert filled == []
    monkeypatch.undo()
    steps = []
    run_sweep(index, "nano.naive", QUESTION, fixed, "top_k", values, on_step=lambda v, r: steps.append((v, r)))
    for value, result in steps:
        alone = run_query(index, "nano.naive", QUESTION, {**fixed, "top_k": value})
        assert result.messages == alone.messages and comparable(result) == comparable(alone)
    assert steps[1][1].messages[0] is not steps[2][1].messages[0]  # each step its own messages
