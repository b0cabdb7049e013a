"""What the graph draws: the retrieved subgraph first, marks for what changed, neighbourhoods, caps, filters."""

from __future__ import annotations

import pytest

from graphrag_ui.index.model import Community, Entity, Index, Manifest, Relation
from graphrag_ui.retrieval.core.change import diff
from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.ui.graph import graph_select, graph_view
from graphrag_ui.ui.graph.graph_panel import left_out
from tests.ui.test_graph_view import star_index  # noqa: E402


def chain_index() -> Index:
    """A — B — C — D — E in a row, plus F hanging off B and G off D; types alternate, two communities."""
    names = list("ABCDEFG")
    entities = [
        Entity(
            f"id-{n}", n, "PERSON" if i % 2 else "PLACE", f"about {n}", communities=[(0, "c0" if n in "ABF" else "c1")]
        )
        for i, n in enumerate(names)
    ]
    pairs = [("A", "B"), ("B", "C"), ("C", "D"), ("D", "E"), ("B", "F"), ("D", "G")]
    relations = [Relation(f"r-{a}{b}", a, b, f"{a} and {b}", weight=1.0) for a, b in pairs]
    communities = [
        Community("c0", 0, None, "west", "", None, ["A", "B", "F"]),
        Community("c1", 0, None, "east", "", None, ["C", "D", "E", "G"]),
    ]
    return Index(Manifest(source="build", embedder="hash", dimension=8), [], [], entities, relations, communities)


def retrieval(entities: list[tuple[str, bool]], relations: list[tuple[str, bool]]) -> Retrieval:
    """Entity candidates by entity id (as the modes give them), relation candidates by relation id."""
    result = Retrieval(mode="nano.local", query="q", params={})
    result.entities = [
        Candidate(f"id-{n}", n, {}, i, why=f"entity #{i}", in_context=kept, dropped="" if kept else "budget")
        for i, (n, kept) in enumerate(entities)
    ]
    result.relations = [
        Candidate(f"r-{r}", r, {}, i, why="edge", in_context=kept, dropped="" if kept else "budget")
        for i, (r, kept) in enumerate(relations)
    ]
    return result


def test_the_retrieved_subgraph_comes_first_and_the_neighbourhood_only_on_demand():
    index = chain_index()
    result = retrieval([("B", True), ("E", False)], [("BC", True), ("DE", False)])
    spec = graph_view.retrieval_subgraph(index, result)
    assert spec.roles == {"B": "seed", "E": "dropped", "C": "context", "D": "dropped_endpoint"}
    assert spec.nodes == ["B", "C", "E", "D"]  # in context first, then what was dropped
    assert spec.context_edges == {("B", "C")} and spec.dropped_edges == {("D", "E")}
    assert spec.hidden == 3 and not spec.capped  # A, F and G are the 1-hop neighbours, not drawn
    around = graph_view.retrieval_subgraph(index, result, neighbourhood=True)
    assert around.nodes[:4] == spec.nodes and set(around.nodes[4:]) == {"A", "F", "G"}
    assert around.hidden == 0 and {around.roles[n] for n in "AFG"} == {"neighbour"}
    kept_only = graph_view.retrieval_subgraph(index, result, dropped=False)
    assert kept_only.nodes == ["B", "C"] and not kept_only.dropped_edges


def test_a_relation_in_the_context_wins_over_a_dropped_one_for_its_endpoint():
    index = chain_index()
    spec = graph_view.retrieval_subgraph(index, retrieval([], [("CD", False), ("BC", True)]))
    assert spec.roles["C"] == "context" and spec.roles["D"] == "dropped_endpoint"


def test_selected_is_bold_and_dropped_is_faint():
    index = chain_index()
    spec = graph_view.retrieval_subgraph(index, retrieval([("B", True), ("E", False)], [("BC", True), ("DE", False)]))
    built = {n["id"]: n for n in graph_view.elements(index, spec).nodes}
    edges = {(e["from"], e["to"]): e for e in graph_view.elements(index, spec).edges}
    assert built["B"]["shape"] == "star" and built["B"]["font"]["mod"] == "bold" and built["B"]["opacity"] == 1.0
    assert built["C"]["opacity"] == 1.0 and built["C"]["font"]["size"] > built["E"]["font"]["size"]
    assert built["E"]["shape"] == "diamond" and built["E"]["opacity"] < 0.6 and built["D"]["opacity"] < 0.6
    assert edges[("B", "C")]["width"] > edges[("D", "E")]["width"]
    assert edges[("D", "E")]["color"]["opacity"] < 0.5 <= edges[("B", "C")]["color"]["opacity"]


def test_marks_show_what_entered_and_ghosts_what_left():
    index = chain_index()
    before = retrieval([("A", True), ("B", True)], [("AB", True)])
    after = retrieval([("B", True), ("E", True)], [("DE", True)])
    change = diff(before, after)
    assert change.entered("entities") == {"id-E"}  # entity candidate ids are entity ids, not names
    spec = graph_view.retrieval_subgraph(index, after, change)
    assert spec.marks and spec.entered == {"E"} and spec.left == {"A"}
    assert spec.roles["A"] == "left" and "A" in spec.nodes  # drawn as a ghost where nothing else draws it
    assert spec.entered_edges == {("D", "E")} and spec.left_edges == {("A", "B")}
    built = graph_view.elements(index, spec)
    nodes = {n["id"]: n for n in built.nodes}
    edges = {(e["from"], e["to"]): e for e in built.edges}
    assert nodes["E"]["color"]["border"] == "#2ca02c" and nodes["E"]["shadow"]["enabled"]
    assert nodes["A"]["shapeProperties"]["borderDashes"] and nodes["A"]["color"]["border"] == "#9aa0a6"
    assert "shadow" not in nodes["B"] and "shapeProperties" not in nodes["B"]  # stayed: no mark
    assert edges[("A", "B")]["dashes"] and edges[("D", "E")]["color"]["color"] == "#2ca02c"
    assert any("green" in k for k in built.keys) and any("dashed grey" in k for k in built.keys)
    assert "Entered the context since the previous run" in nodes["E"]["title"]


def test_no_change_means_no_marks():
    index = chain_index()
    result = retrieval([("B", True)], [("BC", True)])
    plain = graph_view.retrieval_subgraph(index, result)
    same = graph_view.retrieval_subgraph(index, result, diff(result, result))
    assert not plain.marks and not (plain.entered or plain.left or plain.entered_edges or plain.left_edges)
    assert same.marks and same.nodes == plain.nodes and not (same.entered or same.left)
    built = graph_view.elements(index, plain)
    assert not any("shadow" in n or "shapeProperties" in n for n in built.nodes)
    assert not any("previous run" in k for k in built.keys)


def test_a_relation_that_left_brings_its_endpoints_back_as_ghosts():
    index = chain_index()
    before = retrieval([], [("CD", True)])
    after = retrieval([("A", True)], [])
    spec = graph_view.retrieval_subgraph(index, after, diff(before, after))
    assert spec.roles["C"] == spec.roles["D"] == "left" and spec.left_edges == {("C", "D")}
    assert spec.left == set()  # the entities themselves were never in the entity context


def test_the_cap_keeps_the_best_connected_and_says_how_many_were_left_out():
    index = star_index(500)
    spec = graph_view.neighbourhood(index, ["LEAF 001"], 2)
    assert spec.nodes[:2] == ["LEAF 001", "HUB"] and spec.total == 501 and len(spec.nodes) == 400
    assert spec.capped and spec.counted_all
    result = retrieval([], [])
    result.entities = [Candidate("e0", "HUB", {}, 0, why="top")]
    around = graph_view.retrieval_subgraph(index, result, neighbourhood=True, cap=50)
    assert around.nodes[0] == "HUB" and len(around.nodes) == 50 and around.total == 501


def test_a_neighbourhood_stops_counting_at_the_scan_limit(monkeypatch, ui_language):
    monkeypatch.setattr(graph_select, "SCAN_LIMIT", 100)
    spec = graph_view.neighbourhood(star_index(500), ["HUB"], 3)
    assert not spec.counted_all and len(spec.nodes) == 400 and spec.total > 100
    notes = " ".join(left_out(spec))
    assert "Drawing 400 of more than 100 entities" in notes, notes
    ui_language("zh")
    assert "超过 100 个实体" in " ".join(left_out(spec))


def test_within_a_hop_the_best_connected_come_first():
    index = chain_index()
    spec = graph_view.neighbourhood(index, ["C"], 1)
    assert spec.nodes == ["C", "B", "D"]  # B and D both degree 3: by name
    two = graph_view.neighbourhood(index, ["C"], 2)
    assert two.nodes[:3] == ["C", "B", "D"] and set(two.nodes[3:]) == {"A", "E", "F", "G"}


def test_expand_adds_a_nodes_neighbours_and_keeps_the_rest():
    index = star_index(100)
    spec = graph_view.neighbourhood(index, ["LEAF 001"], 0)
    grown = graph_view.expand(index, spec, ["LEAF 001"])
    assert grown.nodes == ["LEAF 001", "HUB"] and grown.added == {"LEAF 001": (1, 1)}
    more = graph_view.expand(index, grown, ["HUB", "not drawn"], per_node=10)
    assert more.nodes[:2] == ["LEAF 001", "HUB"] and len(more.nodes) == 12
    assert more.added["HUB"] == (10, 100) and all(more.roles[n] == "neighbour" for n in more.nodes[2:])
    assert "not drawn" not in more.added
    assert spec.nodes == ["LEAF 001"]  # the original spec is untouched


def test_filters_by_entity_type_and_community():
    index = chain_index()
    spec = graph_view.neighbourhood(index, ["C"], 3)
    types, communities = graph_view.facets(index, spec)
    assert set(types) == {"PERSON", "PLACE"} and set(communities) == {"c0", "c1"}
    people = graph_view.filtered(index, spec, types={"PERSON"})
    assert set(people.nodes) == {"B", "D", "F"} and people.filtered == 4
    east = graph_view.filtered(index, spec, communities={"c1"})
    assert set(east.nodes) == {"C", "D", "E", "G"}
    both = graph_view.filtered(index, spec, types={"PLACE"}, communities={"c1"})
    assert set(both.nodes) == {"C", "E", "G"}
    assert graph_view.filtered(index, spec) is spec


@pytest.mark.parametrize("colour_by", graph_view.COLOUR_BY)
def test_colour_by_community_or_by_type(colour_by):
    index = chain_index()
    built = graph_view.elements(index, graph_view.neighbourhood(index, ["C"], 3), colour_by=colour_by)
    colour = {n["id"]: n["color"]["background"] for n in built.nodes}
    if colour_by == "type":
        assert colour["B"] == colour["D"] != colour["C"]  # PERSON vs PLACE
        assert {r["name"] for r in built.legend} == {"PERSON", "PLACE"}
    else:
        assert colour["A"] == colour["B"] != colour["C"]  # west vs east
        assert {r["title"] for r in built.legend} == {"west", "east"}
