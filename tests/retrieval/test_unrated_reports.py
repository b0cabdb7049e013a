"""Reports without a rating (nano-graphrag ≤ 0.0.3 wrote none; a hand-made report may lack one) are left out
by GraphRAG's min_community_rank filter: ms.local and ms.global then say that, not "over budget" or nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.services.query import run_query

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"


@pytest.fixture()
def unrated():
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    for c in index.communities:
        c.rating = None
        c.extra.pop("rank", None)
    return index


def test_ms_local_names_the_rating_filter_when_no_report_is_rated(unrated):
    result = run_query(unrated, "ms.local", QUESTION)
    assert not any(c.in_context for c in result.communities)
    said = [w for w in result.warnings if "min_community_rank" in w]
    assert len(said) == 1 and "have no rating" in said[0], result.warnings
    assert not any("fits the Reports budget" in w for w in result.warnings)


def test_ms_global_says_every_report_is_below_the_rating_filter(unrated):
    result = run_query(unrated, "ms.global", QUESTION)
    assert not any(c.in_context for c in result.communities)
    said = [w for w in result.warnings if "every community report" in w]
    n = len([c for c in unrated.communities if c.level <= 2])
    assert len(said) == 1 and f"{n} of {n} have no rating" in said[0], result.warnings


def test_rated_reports_say_nothing_of_the_filter():
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    for mode in ("ms.local", "ms.global"):
        result = run_query(index, mode, QUESTION)
        assert not any("have no rating" in w for w in result.warnings), (mode, result.warnings)
