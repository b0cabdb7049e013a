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
from graphrag_ui.retrieval.nano import local_gather
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
