"""The Graph page's entity search: ranked on the server over names and aliases, a few matches at a time."""

from __future__ import annotations

import time

from graphrag_ui.index.model import Entity, Index, Manifest, Relation
from graphrag_ui.ui.graph import graph_search

NAMES = {
    "Jasper Quell": ["JQ", "Old Jasper"],
    "Quell Harbour": [],
    "Jasperine Dock": [],
    "The Jasper Lantern": [],
    "Lantern Wardens": ["Wardens of the Lantern"],
    "跑步数据": ["跑步记录"],
    "ＡＢＣ Ｃｏ": [],  # full-width letters
    "Bare": [],
}


def make_index(names: dict[str, list[str]] = NAMES, hub: str = "Quell Harbour") -> Index:
    entities = [Entity(f"e{i}", n, "THING", "", aliases=a) for i, (n, a) in enumerate(names.items())]
    relations = [Relation(f"r{i}", hub, n, "") for i, n in enumerate(names) if n != hub]
    return Index(Manifest(source="build", embedder="hash", dimension=8), [], [], entities, relations, [])


def names(matches) -> list[str]:
    return [m.name for m in matches]


def test_ranking_whole_name_then_alias_then_prefix_word_and_substring():
    index = make_index()
    matches, found = graph_search.search(index, "jasper")
    assert names(matches) == ["Jasper Quell", "Jasperine Dock", "The Jasper Lantern"]  # same tier: shorter first
    assert [m.tier for m in matches] == [graph_search.PREFIX, graph_search.PREFIX, graph_search.WORD]
    assert found == 3
    # a name that is exactly the text beats every prefix; an alias exactly the text beats prefixes too
    assert names(graph_search.search(index, "jasper quell")[0]) == ["Jasper Quell"]
    exact_alias, _ = graph_search.search(index, "jq")
    assert exact_alias[0].name == "Jasper Quell" and exact_alias[0].alias == "JQ"
    assert exact_alias[0].tier == graph_search.ALIAS_EXACT


def test_within_a_tier_the_best_connected_come_first():
    index = make_index()
    matches, _ = graph_search.search(index, "quell")
    # both start with or contain "quell": the hub (prefix) first, then the name with the word
    assert names(matches) == ["Quell Harbour", "Jasper Quell"]
    hubbed = make_index(hub="Jasperine Dock")
    assert names(graph_search.search(hubbed, "jasper")[0])[0] == "Jasperine Dock"
    flat = make_index(hub="Bare")
    tied, _ = graph_search.search(flat, "jasper")
    assert names(tied)[:2] == ["Jasper Quell", "Jasperine Dock"]  # equal degree: shorter name first


def test_aliases_case_width_and_spaces_do_not_matter():
    index = make_index()
    assert names(graph_search.search(index, "  WARDENS   of ")[0]) == ["Lantern Wardens"]
    assert graph_search.search(index, "wardens of")[0][0].alias == "Wardens of the Lantern"
    assert names(graph_search.search(index, "abc co")[0]) == ["ＡＢＣ Ｃｏ"]
    chinese, _ = graph_search.search(index, "跑步记录")
    assert chinese[0].name == "跑步数据" and chinese[0].alias == "跑步记录"
    assert names(graph_search.search(index, "跑步")[0]) == ["跑步数据"]  # one entity, matched by name first
    assert graph_search.search(index, "no such thing") == ([], 0)


def test_empty_text_lists_the_best_connected():
    index = make_index()
    matches, found = graph_search.search(index, "", limit=2)
    assert names(matches)[0] == "Quell Harbour" and len(matches) == 2 and found == len(NAMES)


def test_only_a_few_matches_travel_and_a_big_index_answers_fast():
    many = {f"ENTITY {i:06d}": ([f"alias {i}"] if i % 3 == 0 else []) for i in range(100_000)}
    index = make_index(many, hub="ENTITY 000042")
    graph_search.search(index, "warm up")  # builds the table once
    started = time.perf_counter()
    matches, found = graph_search.search(index, "entity 0", limit=12)
    elapsed = time.perf_counter() - started
    assert len(matches) == 12 and found == 100_000
    assert matches[0].name == "ENTITY 000042"  # the hub: same tier, best connected
    assert elapsed < 2.0, elapsed  # ~20 ms here; generous for a loaded machine
    assert graph_search.search(index, "alias 99999")[0][0].name == "ENTITY 099999"
