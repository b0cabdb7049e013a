"""Where nodes sit: no two labels overlap, the same input gives the same picture, placed nodes stay put."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.services.query import run_query
from graphrag_ui.ui.graph import graph_layout, graph_view
from tests.ui.test_graph_view import star_index  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "sample"
QUESTIONS = {"en": "How did the city respond to the flood?", "zh": "跑步数据和睡眠有什么关系？"}


def boxes_of(built: graph_view.GraphElements) -> dict[str, graph_layout.Box]:
    """The boxes the layout used (label and node size as drawn)."""
    return {
        n["id"]: graph_layout.label_box(n["label"], n["size"], n["font"]["size"], bool(n["font"]["mod"]))
        for n in built.nodes
    }


@pytest.fixture(scope="module")
def samples():
    return {lang: store.load(SAMPLES / lang / "index") for lang in QUESTIONS}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("mode", ["nano.local", "lightrag.hybrid", "ms.local"])
@pytest.mark.parametrize("around", [False, True])
def test_no_two_labels_overlap_on_the_samples(samples, lang, mode, around, ui_language):
    ui_language(lang)
    index = samples[lang]
    result = run_query(index, mode, QUESTIONS[lang])
    spec = graph_view.retrieval_subgraph(index, result, neighbourhood=around)
    built = graph_view.elements(index, spec)
    assert len(built.positions) == len(spec.nodes) > 5
    assert graph_layout.overlaps(built.positions, boxes_of(built)) == []
    # the same input draws the same picture (positions are data, not a browser simulation)
    assert graph_view.elements(index, spec).positions == built.positions


def test_label_widths_count_wide_characters_as_one_em():
    assert graph_layout.text_width("跑步数据", 16) > graph_layout.text_width("abcd", 16) * 1.5
    assert graph_layout.text_width("WWW", 16, bold=True) > graph_layout.text_width("WWW", 16)


def test_placed_nodes_stay_and_new_ones_do_not_overlap_them():
    index = star_index(60)
    first = graph_view.neighbourhood(index, ["LEAF 001"], 1)
    built = graph_view.elements(index, first)
    grown = graph_view.expand(index, first, ["HUB"], per_node=30)
    again = graph_view.elements(index, grown, known=built.positions)
    assert all(again.positions[n] == built.positions[n] for n in first.nodes)
    assert len(again.positions) == len(grown.nodes) == 32
    assert graph_layout.overlaps(again.positions, boxes_of(again)) == []
    # nodes that are all known: nothing is computed, nothing moves
    assert graph_layout.layout(first.nodes, [], boxes_of(built), built.positions) == built.positions


def test_four_hundred_nodes_around_a_hub_do_not_overlap():
    index = star_index(450)
    spec = graph_view.neighbourhood(index, ["HUB"], 1)
    built = graph_view.elements(index, spec)
    assert len(built.nodes) == 400
    assert graph_layout.overlaps(built.positions, boxes_of(built)) == []


def test_placing_walks_out_of_a_crowd():
    import numpy as np

    spans = np.array([[100.0, 40.0]] * 30)
    pos = graph_layout.place(np.zeros((30, 2)), spans, np.zeros(30, dtype=bool), list(range(30)))
    positions = {str(i): tuple(p) for i, p in enumerate(pos)}
    boxes = {str(i): graph_layout.Box(0.0, 100.0, 40.0 - graph_layout.LABEL_PAD) for i in range(30)}
    assert graph_layout.overlaps(positions, {k: b for k, b in boxes.items()}) == []
