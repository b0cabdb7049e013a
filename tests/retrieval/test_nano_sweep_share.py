"""What nano's sweeps make once and cut per step, against the work it replaces: a ``ReportPlan`` of the widest
recall cut at ``k`` is the reports gather of the first ``k`` entities (ties, a NaN rating, a cluster without a
report, clusters above the level), and a top_k sweep plans its reports once."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.core.recall import RecallHit
from graphrag_ui.retrieval.nano import csv_context, local_gather
from graphrag_ui.retrieval.nano.prep import prepared
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep
from tests.retrieval.test_sweep_parity import comparable

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"


@pytest.fixture(scope="module")
def index():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


def awkward(index, rating):
    """A copy whose recalled entities' clusters tie on count and rating, one cluster rated ``rating``, one
    cluster without a report and one above every level asked; and the hits of its top 12 entities."""
    out = copy.copy(index)
    communities = list(index.communities)
    first, second = communities[0], communities[1]
    out.community_by_id = dict(index.community_by_id)
    out.community_by_id[first.id] = dataclasses.replace(first, extra={"report_json": {"rating": rating}})
    out.community_by_id[second.id] = dataclasses.replace(second, rating=first.rating, extra={})
    entities = [index.entity_by_id[c.id] for c in run_query(index, "nano.local", QUESTION, {"top_k": 12}).entities]
    hits = []
    for n, entity in enumerate(entities[:12]):
        clusters = [(0, first.id), (0, second.id)] if n % 3 == 0 else list(entity.communities)
        if n in (2, 7):
            clusters.append((1, "no such cluster"))
        if n in (4, 9):
            clusters.append((9, "deep cluster"))
        hits.append(RecallHit(dataclasses.replace(entity, communities=clusters), 1.0, 1.0, "", ""))
    return out, hits


def gathered(got) -> tuple:
    return got.rows, got.costs, [str(w) for w in got.whys], [str(w) for w in got.warnings], got.extra


@pytest.mark.parametrize("rating", [3.0, float("nan"), -1.0])
@pytest.mark.parametrize("level", [0, 1, 2])
def test_a_report_plan_cut_at_k_is_the_gather_of_the_first_k(index, rating, level):
    awkward_index, hits = awkward(index, rating)
    prep = prepared(awkward_index)
    plan = local_gather.ReportPlan(awkward_index, prep, hits, level)
    for k in range(len(hits) + 1):
        fresh = local_gather.reports(awkward_index, prep, hits[:k], level)
        assert gathered(plan.gather(k)) == gathered(fresh), f"k={k}"


def test_a_top_k_sweep_plans_its_reports_once(index, monkeypatch):
    made = []
    real = local_gather.ReportPlan.__init__

    def counted(self, *args, **kwargs):
        made.append(len(args[2]))
        real(self, *args, **kwargs)

    monkeypatch.setattr(local_gather.ReportPlan, "__init__", counted)
    steps = []
    run_sweep(index, "nano.local", QUESTION, {}, "top_k", [3, 12, 6, 9], on_step=lambda v, r: steps.append((v, r)))
    assert len(made) == 1
    monkeypatch.setattr(local_gather.ReportPlan, "__init__", real)
    for value, result in steps:
        assert comparable(result) == comparable(run_query(index, "nano.local", QUESTION, {"top_k": value}))


def test_lines_cut_at_n_are_the_table_of_the_first_n_rows():
    rests = [csv_context.joined([f"row {i}", i, 'a "quoted"\ncell']) for i in range(6)]
    lines = csv_context.Lines(csv_context.SOURCE_HEADER, rests.__getitem__)
    for n in (3, 0, 6, 2, 5):
        assert lines.table(n) == csv_context.numbered(csv_context.SOURCE_HEADER, rests[:n])


@pytest.mark.parametrize(
    "param,values,once",
    [
        ("top_k", [3, 12, 6, 9], {"entity", "source"}),
        ("local_max_token_for_community_report", [0, 1, 64000, 300], {"entity", "source", "report"}),
        ("local_max_token_for_text_unit", [0, 1, 64000, 300], {"entity", "source", "report"}),
    ],
)
def test_a_sweep_numbers_each_section_once_where_its_rows_are_a_prefix(index, monkeypatch, param, values, once):
    """A top_k step's entities and sources are the first rows of the widest step's; a budget step's reports are the
    same rows cut elsewhere: their CSV lines are made once a sweep (the reports of each top_k are their own)."""
    made: list[str] = []
    real = csv_context.Lines.__init__
    names = {  # by identity: the Sources and Reports headers are equal lists
        id(csv_context.ENTITY_HEADER): "entity",
        id(csv_context.SOURCE_HEADER): "source",
        id(csv_context.REPORT_HEADER): "report",
    }

    def counted(self, header, rest):
        made.append(names[id(header)])
        real(self, header, rest)

    monkeypatch.setattr(csv_context.Lines, "__init__", counted)
    steps = []
    run_sweep(index, "nano.local", QUESTION, {}, param, values, on_step=lambda v, r: steps.append((v, r)))
    for section in ("entity", "source", "report"):
        assert made.count(section) == (1 if section in once else len(values)), section
    monkeypatch.setattr(csv_context.Lines, "__init__", real)
    for value, result in steps:
        assert result.context == run_query(index, "nano.local", QUESTION, {param: value}).context
