"""Token sliders that suit their range: round log-scale steps for wide ranges, counts bounded by the index,
and every value the reference accepts still reachable through the link."""

from __future__ import annotations

from pathlib import Path

from graphrag_ui.index import store
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.ui.widgets import ranges

SAMPLE_EN = Path(__file__).resolve().parents[2] / "data" / "sample" / "en" / "index"


def param(mode: str, name: str, version: str = ""):
    spec = get_mode(mode)
    spec = spec.for_version(version) if version else spec
    return next(p for p in spec.params if p.name == name)


def test_each_parameter_gets_the_control_its_range_needs():
    assert ranges.kind(param("nano.local", "local_max_token_for_text_unit")) == "ladder"  # 0–64,000 by 100
    assert ranges.kind(param("lightrag.local", "max_total_tokens", "1.4.7")) == "ladder"
    assert ranges.kind(param("lightrag.local", "top_k", "1.4.7")) == "ladder"  # 1–1,000
    assert ranges.kind(param("nano.local", "top_k")) == "slider"  # 1–200: every value has its position
    assert ranges.kind(param("ms.global", "random_state")) == "number"  # a seed, not a magnitude
    assert ranges.kind(param("nano.local", "query_better_than_threshold")) == "slider"


def test_the_ladder_is_round_and_keeps_the_default_and_the_current_value():
    budget = param("nano.local", "local_max_token_for_text_unit")
    steps = ranges.ladder(0, 64000, 100, keep=(budget.default, 4321))
    assert steps[:6] == [0, 100, 150, 200, 250, 300] and steps[-3:] == [50000, 60000, 64000]
    assert {4000, 4321} <= set(steps) and len(steps) < 40
    assert all(b > a for a, b in zip(steps, steps[1:], strict=False))
    ratios = [b / a for a, b in zip(steps[1:], steps[2:], strict=False)]
    assert max(ratios) <= 1.5 + 1e-9  # no jump wider than half the value
    assert ranges.ladder(1, 1000, 1)[:10] == [1, 2, 3, 4, 5, 6, 8, 10, 15, 20]


def test_counts_end_at_what_the_index_has():
    index = store.load(SAMPLE_EN)
    top_k = param("lightrag.local", "top_k", "1.4.7")
    assert ranges.index_cap(top_k, "lightrag.local", index) == max(len(index.entities), len(index.relations))
    assert ranges.index_cap(top_k, "lightrag.naive", index) == len(index.chunks)
    assert ranges.index_cap(param("ms.basic", "k"), "ms.basic", index) == len(index.chunks)
    assert ranges.index_cap(param("ms.local", "max_context_tokens"), "ms.local", index) is None
    k = param("ms.basic", "k")
    assert ranges.bounds(k, 25, keep=(10, None)) == (1, 25)
    assert ranges.bounds(k, 25, keep=(10, 300)) == (1, 300)  # a link's larger value stays reachable
    assert ranges.bounds(k, 0, keep=(10, None)) == (1, 10)  # an empty index: the default still fits


def test_the_page_uses_the_ladder_and_the_index_count(app):
    at = app(index="sample:en", mode="ms.basic")
    k = at.select_slider(key="ms_k")
    assert k.value == 10 and k.options[-1] == "25" and "10" in k.options  # 25 chunks in the sample
    budget = at.select_slider(key="ms_max_context_tokens")
    assert budget.value == 12000 and budget.options[0] == "0" and budget.options[-1] == "200000"
    assert "any whole number from 0 to 200000" in budget.help


def test_any_valid_value_in_a_link_is_reachable(app):
    at = app(index="sample:en", mode="ms.basic", ms_k="300", ms_max_context_tokens="4321")
    assert at.select_slider(key="ms_k").value == 300 and at.select_slider(key="ms_max_context_tokens").value == 4321
    # no notice about the link (300 chunks reach GraphRAG's negative scores, which the result explains)
    assert [w.value for w in at.warning if "link" in w.value] == []
    assert any("k=300" in caption.value and "max_context_tokens=4321" in caption.value for caption in at.caption)
