"""Properties of ``nano.global`` (batches, map-answer reading, reduce) and ``nano.naive``.

The byte-level proof is tests/retrieval/test_golden_nano_global.py; here the rules hold for any parameters,
any index (synthetic, golden, empty) and any model answer, however odd.
"""

from __future__ import annotations

import json
import math
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.stages import NEEDS_MODEL, Point
from graphrag_ui.retrieval.nano.community_schema import community_schema
from graphrag_ui.retrieval.nano.global_query import SPECS as GLOBAL_SPECS
from graphrag_ui.retrieval.nano.map_reduce import HOOKS, parse_map
from graphrag_ui.retrieval.nano.naive_query import SPECS as NAIVE_SPECS
from graphrag_ui.retrieval.nano.prep import prepared
from graphrag_ui.retrieval.registry import get_mode
from tests.conftest import ROOT
from tests.retrieval.test_golden_nano import deps, golden_index

sys.path.insert(0, str(ROOT / "scripts"))
from make_synthetic_index import make_index  # noqa: E402

GLOBAL, NAIVE = GLOBAL_SPECS[0], NAIVE_SPECS[0]
QUICK = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
_SYNTHETIC: list[Index] = []


def synthetic() -> Index:
    if not _SYNTHETIC:
        from graphrag_ui.embedding.embed import HashEmbedder

        _SYNTHETIC.append(make_index(300, 900, 150, 7, HashEmbedder.dim, "hash"))
    return _SYNTHETIC[0]


def run_global(index: Index, query: str = "What are the themes?", **params):
    return GLOBAL.func(index, query, GLOBAL.resolve(params), deps())


# ------------------------------------------------------------------ batches


@pytest.mark.parametrize("index_name", ["synthetic", "en", "zh"])
@pytest.mark.parametrize("budget", [1, 150, 400, 1000, 16384])
@pytest.mark.parametrize("level", [0, 1, 2])
def test_batches_are_nanos_greedy_groups_in_sorted_order(index_name, budget, level):
    index = synthetic() if index_name == "synthetic" else golden_index(index_name)
    result = run_global(index, level=level, global_max_token_for_community_report=budget)
    prep = prepared(index)
    kept = [c for c in result.communities if c.in_context]
    keys = [(c.score, c.rank) for c in kept]
    assert keys == sorted(keys, reverse=True)  # (occurrence, rating) descending
    assert all(c.data["level"] <= level for c in kept)
    batches = result.stages.batches
    assert [cid for b in batches for cid in b.community_ids] == [c.id for c in kept]
    sizes = {c.id: c.tokens for c in kept}
    for pos, batch in enumerate(batches):
        assert batch.index == pos and batch.limit == budget
        assert batch.tokens == sum(sizes[cid] for cid in batch.community_ids) <= budget
        assert batch.context.splitlines()[0] == '"id",\t"content",\t"rating",\t"importance"'
        assert batch.messages[0]["role"] == "system" and batch.context in batch.messages[0]["content"]
        assert batch.messages[-1] == {"role": "user", "content": result.query}
        if pos + 1 < len(batches):  # greedy: the next batch's first report did not fit here
            assert batch.tokens + sizes[batches[pos + 1].community_ids[0]] > budget
    for cand in result.communities:
        if "loops forever" in cand.dropped:
            assert cand.tokens > budget
    for c in kept:
        assert c.tokens == prep.report_tokens(index.community_by_id[c.id])
    assert result.stages.status == NEEDS_MODEL and result.messages == []
    assert (result.context != "") == bool(batches)


def test_consider_cap_and_min_rating():
    index = synthetic()
    result = run_global(index, global_max_consider_community=5, global_min_community_rating=4.0)
    kept = [c for c in result.communities if c.in_context]
    assert len(kept) <= 5 and all(c.rank >= 4.0 for c in kept)
    reasons = " ".join(c.dropped for c in result.communities)
    assert "beyond global_max_consider_community (5)" in reasons
    assert "< global_min_community_rating 4" in reasons
    assert len(result.communities) == len(community_schema(index))  # every cluster is explained


def test_schema_occurrence_is_chunk_union_over_the_largest():
    index = golden_index("en")
    schema = community_schema(index)
    assert max(e.occurrence for e in schema.values()) == 1.0
    for key, entry in schema.items():
        chunks = {c for e in index.entities for lvl, k in e.communities if k == key for c in e.source_chunk_ids}
        assert entry.chunk_ids == len(chunks)
        stored = index.community_by_id[key].extra["occurrence"]
        assert math.isclose(entry.occurrence, stored)  # nano computed the stored value the same way


def test_empty_index_and_no_community_give_a_warning_and_no_batch():
    from tests.retrieval.test_modes_properties import empty_index

    result = run_global(empty_index())
    assert not result.stages.batches and result.context == ""
    assert any("no community report is left" in w for w in result.warnings)
    result = run_global(golden_index("en"), global_min_community_rating=10)
    assert not result.stages.batches and all(not c.in_context for c in result.communities)


@pytest.mark.parametrize("query", ["", "   ", "🚀", "x" * 20_000, "湖灯节"])
def test_odd_questions_change_only_the_user_message(query):
    base = run_global(golden_index("zh"))
    odd = run_global(golden_index("zh"), query)
    assert [b.context for b in odd.stages.batches] == [b.context for b in base.stages.batches]
    assert all(b.messages[-1]["content"] == query for b in odd.stages.batches)


def test_modes_are_registered_with_nano_parameter_names_and_hooks():
    spec = get_mode("nano.global")
    assert spec is GLOBAL and spec.stages.map_reduce is HOOKS
    assert {p.name for p in spec.params} == {
        "level",
        "global_max_consider_community",
        "global_min_community_rating",
        "global_max_token_for_community_report",
        "response_type",
    }
    assert spec.defaults()["global_max_token_for_community_report"] == 16384
    assert get_mode("nano.naive").defaults()["naive_max_token_for_text_unit"] == 12000


# ------------------------------------------------------------------ map answers


@pytest.mark.parametrize(
    ("answer", "points"),
    [
        ('{"points": [{"description": "a", "score": 80}]}', [("a", 80)]),
        ('Sure:\n```json\n{"points": [{"description": "a", "score": 7.5}]}\n```', [("a", 7.5)]),
        ('{"points": [{"description": "no score"}]}', [("no score", 1)]),
        ('{"points": [{"score": 90}, {"description": "b", "score": 0}]}', [("b", 0)]),
        ('{"answer": "no points"}', []),
        ('{"points": "a string is iterated per character"}', []),
        ('{"points": [{"description": "n", "score": NaN}]}', None),  # NaN: kept by parse, dropped by reduce
    ],
)
def test_parse_map_reads_what_nano_reads(answer, points):
    got = parse_map(answer)
    if points is None:
        assert len(got) == 1 and math.isnan(got[0][1])
    else:
        assert got == points and [type(s) for _, s in got] == [type(s) for _, s in points]


@pytest.mark.parametrize(
    "answer",
    [
        "I can only answer in prose.",
        "",
        '{"points": [{"description": "x", "score": 5},]}',
        '{"points": [1, 2]} and {"more"}',
        '{"points": 5}',
        '{"points": null}',
        '{"points": [{"description": "x", "score": "high"}]}',
        '{"points": [{"description": 7, "score": 50}]}',
        '{"points": ["a description of something"]}',
        '{"points": {"description": "dict keys are iterated"}}',
    ],
)
def test_parse_map_fails_in_one_line_where_nano_fails(answer):
    with pytest.raises(ValueError) as err:
        parse_map(answer)
    assert "\n" not in str(err.value) and "nano-graphrag 0.0.8.2 fails the whole global query" in str(err.value)


@QUICK
@given(
    st.text(max_size=300)
    | st.recursive(
        st.none() | st.booleans() | st.floats() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.sampled_from(["points", "description", "score", "x"]), inner, max_size=4)
        ),
    ).map(json.dumps)
)
def test_parse_map_never_raises_anything_but_valueerror(answer):
    try:
        out = parse_map(answer)
    except ValueError as exc:
        assert "\n" not in str(exc)
    else:
        assert all(isinstance(d, str) and isinstance(s, (int, float)) for d, s in out)


# ------------------------------------------------------------------ reduce


def _points(specs: list[tuple[int, str, float]]) -> list[Point]:
    return [Point(batch, text, score, [str(batch)]) for batch, text, score in specs]


def test_reduce_keeps_positive_scores_sorted_and_prints_scores_as_given():
    pts = _points(
        [(0, "low", 10), (0, "zero", 0), (1, "top", 90.0), (1, "tie a", 50), (2, "tie b", 50), (2, "neg", -3)]
    )
    context, messages = HOOKS.reduce(
        pts, "q?", {"global_max_token_for_community_report": 16384, "response_type": "Bullets"}
    )
    assert context == (
        "----Analyst 1----\nImportance Score: 90.0\ntop\n\n"
        "----Analyst 1----\nImportance Score: 50\ntie a\n\n"
        "----Analyst 2----\nImportance Score: 50\ntie b\n\n"
        "----Analyst 0----\nImportance Score: 10\nlow\n"
    )
    assert messages[0]["role"] == "system" and context in messages[0]["content"] and "Bullets" in messages[0]["content"]
    assert messages[-1] == {"role": "user", "content": "q?"}
    dropped = {p.description: p.dropped for p in pts if not p.in_context}
    assert set(dropped) == {"zero", "neg"} and all("score" in why for why in dropped.values())


@QUICK
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.text(min_size=1, max_size=60), st.integers(-5, 100) | st.floats(-5, 100)),
        max_size=30,
    ),
    st.integers(0, 200),
)
def test_reduce_budget_is_a_prefix_cut_of_the_sorted_positive_points(specs, budget):
    pts = _points(specs)
    context, messages = HOOKS.reduce(pts, "q", {"global_max_token_for_community_report": budget, "response_type": "x"})
    kept = [p for p in pts if p.in_context]
    assert sum(p.tokens for p in kept) <= max(budget, 0)
    assert all(p.score > 0 for p in kept)
    positive = sorted([p for p in pts if p.score > 0], key=lambda p: (p.batch,))  # stable base order
    positive.sort(key=lambda p: p.score, reverse=True)
    assert [p for p in positive if p.in_context] == positive[: len(kept)]  # a prefix of the sorted points
    assert (context == "") == (not kept) and (messages == []) == (not kept)
    assert all(p.in_context == (p.dropped == "") for p in pts)


# ------------------------------------------------------------------ naive


@pytest.mark.parametrize("budget", [0, 1, 300, 1200, 12000])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_naive_budget_and_order(lang, budget):
    index = golden_index(lang)
    query = "Alice Chen Tidewater Institute" if lang == "en" else "林晓梅 青岚湖研究站"
    result = NAIVE.func(
        index,
        query,
        NAIVE.resolve({"naive_max_token_for_text_unit": budget, "query_better_than_threshold": 0.0}),
        deps(),
    )
    kept = [c for c in result.chunks if c.in_context]
    assert sum(c.tokens for c in kept) <= budget
    sims = [c.score for c in result.chunks if c.in_context or c.dropped.startswith("over budget")]
    assert sims == sorted(sims, reverse=True)
    assert result.context == "--New Chunk--\n".join(index.chunk_by_id[c.id].text for c in kept)
    if kept:
        assert result.messages and result.context in result.messages[0]["content"]
