"""graph_view: one node/edge builder for both views, the 400-node cap, roles, colours and safety."""

from __future__ import annotations

import json
import re

from graphrag_ui.index.model import Community, Entity, Index, Manifest, Relation
from graphrag_ui.ui.graph import graph_view
from tests.support.ui_fixtures import PAYLOAD_MARKERS, SCRIPT_NAME, evil_index  # noqa: E402


def star_index(leaves: int) -> Index:
    """A hub with ``leaves`` neighbours in two communities; relation weights 1..leaves."""
    names = ["HUB"] + [f"LEAF {i:03d}" for i in range(leaves)]
    entities = [
        Entity(f"e{i}", name, "THING", f"desc {i}", communities=[(0, "c0" if i % 2 else "c1")])
        for i, name in enumerate(names)
    ]
    relations = [Relation(f"r{i}", "HUB", n, f"hub to {n}", weight=float(i + 1)) for i, n in enumerate(names[1:])]
    communities = [
        Community("c0", 0, None, "odd", "", None, names[1::2]),
        Community("c1", 0, None, "even", "", None, names[0::2]),
    ]
    manifest = Manifest(source="build", embedder="hash", dimension=8)
    return Index(manifest, [], [], entities, relations, communities)


def test_neighbourhood_is_capped_at_400_with_the_total_kept():
    index = star_index(500)
    spec = graph_view.neighbourhood(index, ["HUB"], 1)
    assert len(spec.nodes) == graph_view.MAX_NODES == 400
    assert spec.total == 501 and spec.capped
    assert spec.nodes[0] == "HUB" and spec.roles["HUB"] == "centre"
    small = graph_view.neighbourhood(index, ["LEAF 001"], 1)
    assert small.nodes == ["LEAF 001", "HUB"] and not small.capped


def test_elements_colour_by_community_size_by_degree_and_weights_in_tooltips():
    index = star_index(6)
    built = graph_view.elements(index, graph_view.neighbourhood(index, ["HUB"], 1))
    nodes = {n["id"]: n for n in built.nodes}
    assert nodes["HUB"]["shape"] == "star" and nodes["HUB"]["size"] > nodes["LEAF 000"]["size"]
    assert nodes["LEAF 000"]["color"]["background"] != nodes["LEAF 001"]["color"]["background"]
    assert nodes["LEAF 000"]["color"]["background"] == nodes["LEAF 002"]["color"]["background"]
    # weights are in the edge tooltips, not drawn as labels (small edge labels overlapped everything)
    assert {e["title"].splitlines()[1] for e in built.edges} == {f"Weight: {w}" for w in range(1, 7)}
    assert not any("label" in e for e in built.edges)
    assert sorted((r["title"], r["nodes"]) for r in built.legend) == [("even", 4), ("odd", 3)]


def test_standalone_page_and_component_share_the_same_data():
    index = star_index(12)
    spec = graph_view.neighbourhood(index, ["HUB"], 1)
    built = graph_view.elements(index, spec)
    page, legend = graph_view.render(index, spec)
    assert legend == built.legend
    # pyvis writes our node/edge dicts as JSON into the page: every id, label, title and colour is there
    found = json.loads(re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page).group(1))
    assert [n["id"] for n in found] == [n["id"] for n in built.nodes]
    for ours, theirs in zip(built.nodes, found, strict=True):
        assert {k: theirs[k] for k in ours} == ours
    assert (
        json.loads(re.search(r"var options = (\{.*?\});\n", page).group(1))["physics"]
        == graph_view.options()["physics"]
    )
    assert graph_view.remote_references(page) == []


def test_payloads_stay_data_in_the_standalone_page():
    index = evil_index()
    page, _ = graph_view.render(index, graph_view.neighbourhood(index, [SCRIPT_NAME], 1))
    for marker in PAYLOAD_MARKERS:
        assert marker not in page
    found = json.loads(re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page).group(1))
    assert SCRIPT_NAME in {n["id"] for n in found}


def test_tooltips_and_legend_follow_the_ui_language(ui_language):
    from graphrag_ui.retrieval.core.result import Candidate, Retrieval

    index = star_index(4)
    result = Retrieval(mode="nano.local", query="q", params={})
    result.entities = [
        Candidate("e0", "HUB", {}, 0, why="top-3 by cosine similarity 0.900"),
        Candidate("e1", "LEAF 000", {}, 1, why="top-3 by cosine similarity 0.500", in_context=False, dropped="cut"),
    ]
    spec = graph_view.retrieval_subgraph(index, result)
    for lang, words in {
        "en": ("Type: THING", "recalled entity", "Weight: 1"),
        "zh": ("类型：THING", "召回的实体", "权重：1"),
    }.items():
        ui_language(lang)
        built = graph_view.elements(index, spec)
        hub = next(n for n in built.nodes if n["id"] == "HUB")
        leaf = next(n for n in built.nodes if n["id"] == "LEAF 000")
        assert words[0] in hub["title"] and words[1] in hub["title"], hub["title"]
        assert any(words[2] in e["title"] for e in built.edges)
        assert "desc 0" in hub["title"]  # index text is kept as data
        assert ("dropped: cut" if lang == "en" else "丢弃原因：cut") in leaf["title"]
        page, _ = graph_view.render(index, spec)
        assert ("bold: entity in the context" if lang == "en" else "粗体：上下文中的实体") in page
    ui_language("zh")
    zh_titles = " ".join(n["title"] for n in graph_view.elements(index, spec).nodes)
    assert not re.search(r"\b(type|degree|role|why|dropped):", zh_titles, re.I), zh_titles
