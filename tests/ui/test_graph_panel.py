"""The graph panel in the app (AppTest): the Graph page's server-side search, Explore's retrieved subgraph,
expansions, filters, what was left out, and every word of the component in the UI language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from graphrag_ui.ui.graph import graph_component, graph_picker


def component_data(at) -> dict:
    (component,) = [el for el in at.main if el.type == "bidi_component"]
    return json.loads(component.proto.json)


def test_the_picker_searches_on_the_server_and_ships_only_a_few_names(app):
    at = app("pages/graph.py", index="sample:en")
    pick = at.pills(key="g_pick")
    assert pick.options == [pick.value] == [at.session_state["g_entity"]]  # nothing listed before typing
    at.text_input(key="g_q").set_value("quell").run()
    pick = at.pills(key="g_pick")
    assert "Jasper Quell" in pick.options and len(pick.options) <= graph_picker.SHOWN + 1
    assert any("“quell”" in c.value for c in at.caption)
    pick.set_value("Jasper Quell").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["g_entity"] == "Jasper Quell" and at.query_params["g_entity"] == "Jasper Quell"
    data = component_data(at)
    assert [n["id"] for n in data["nodes"] if n["shape"] == "star"] == ["Jasper Quell"]
    # no widget on the page lists every entity
    for box in at.selectbox:
        assert len(box.options) < 70 or box.key == "g_node", box.key


def test_an_alias_finds_its_entity_and_a_link_opens_it(app):
    at = app("pages/graph.py", index="sample:en", g_entity="Jasper Quell")
    assert at.session_state["g_entity"] == "Jasper Quell"
    at.text_input(key="g_q").set_value("no entity is called this").run()
    assert any("No entity name or alias contains" in c.value for c in at.caption)


def test_the_graph_page_says_what_the_cap_left_out(app, monkeypatch):
    from graphrag_ui.ui.graph import graph_select

    monkeypatch.setattr(graph_select, "MAX_NODES", 5)
    monkeypatch.setattr(graph_select.neighbourhood, "__defaults__", (5, 0))
    at = app("pages/graph.py", index="sample:en")
    assert len(component_data(at)["nodes"]) == 5
    assert any(re.search(r"Drawing 5 of \d+ entities: the \d+ farther", c.value) for c in at.caption)


def test_double_click_adds_neighbours_and_the_button_takes_them_away(app):
    at = app("pages/graph.py", index="sample:en", g_depth="0")
    before = {n["id"] for n in component_data(at)["nodes"]}
    centre = at.session_state["g_entity"]
    at.session_state["g_graph"] = {"node_expand": centre}  # what the component sends on a double click
    at.run()
    after = {n["id"] for n in component_data(at)["nodes"]}
    assert before == {centre} and len(after) > 1 and after > before
    assert at.selectbox(key="g_node").value == centre
    at.session_state["g_graph"] = {}
    at.button(key="g_collapse").click().run()
    assert {n["id"] for n in component_data(at)["nodes"]} == before


def test_explore_draws_the_retrieved_subgraph_first_and_the_neighbourhood_on_demand(app):
    at = app(index="sample:en", mode="nano.local", q="How did the city respond to the flood?")
    at.session_state["main_show"] = "graph"
    at.run()
    data = component_data(at)
    roles = {n["id"]: n for n in data["nodes"]}
    assert any(n["shape"] == "star" for n in data["nodes"]) and all(n["opacity"] > 0 for n in data["nodes"])
    assert any("1-hop neighbours are not drawn" in c.value for c in at.caption)
    assert all("x" in n and "y" in n for n in data["nodes"]) and data["options"]["physics"]["enabled"] is False
    at.toggle(key="main_around").set_value(True).run()
    around = component_data(at)
    assert len(around["nodes"]) > len(data["nodes"])
    # nodes already drawn keep their places when the neighbourhood is added
    moved = [
        n["id"]
        for n in around["nodes"]
        if n["id"] in roles and (n["x"], n["y"]) != (roles[n["id"]]["x"], roles[n["id"]]["y"])
    ]
    assert moved == []
    at.segmented_control(key="main_colour").set_value("type").run()
    legend = component_data(at)["legend"]
    assert legend and all(re.match(r"^[a-z]+ \(\d+\)$", row["text"]) for row in legend), legend


def test_the_filter_hides_types_and_says_so(app):
    at = app(index="sample:en", mode="nano.local", q="How did the city respond to the flood?")
    at.session_state["main_show"] = "graph"
    at.run()
    types = at.multiselect(key="main_types")
    kept = types.options[0]
    types.set_value([kept]).run()
    data = component_data(at)
    assert data["nodes"] and all(f"Type: {kept}" in n["title"] for n in data["nodes"])
    assert any("nodes hidden by the filter" in c.value for c in at.caption)


def test_every_word_of_the_component_follows_the_language(ui_language):
    from graphrag_ui.base.i18n import t

    for lang in ("en", "zh"):
        ui_language(lang)
        text = graph_component.component_text(1234)
        assert set(text) >= {"drawing", "empty", "fit", "fullscreen", "exitFullscreen", "png"}
        if lang == "zh":
            assert not any(re.search(r"[A-Za-z]{3,}", v.replace("PNG", "")) for v in text.values()), text
            assert text["drawing"] == t("Drawing {n} nodes…", "zh", n="1,234")
    js = (Path(graph_component.__file__).with_name("graph_component.js")).read_text(encoding="utf-8")
    # the script writes no words of its own: every textContent comes from data.text, data.keys or the legend
    for line in js.splitlines():
        if "textContent =" in line:
            assert re.search(r"textContent = (\"\"|data\.|\[\.\.\.data\.|full \? data\.text)", line), line
    assert "laying out" not in js and "http" not in js


def test_the_graph_page_in_chinese_hands_the_component_chinese(zh_graph_data):
    data = zh_graph_data
    assert data["text"]["fit"] == "适应窗口" and data["text"]["drawing"].startswith("正在绘制")
    assert all(not re.search(r"[A-Za-z]{4,}", k) for k in data["keys"]), data["keys"]
    assert all("类型：" in n["title"] for n in data["nodes"])


@pytest.fixture()
def zh_graph_data(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    root = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(root)
    at = AppTest.from_file(str(root / "app.py"), default_timeout=180)
    at.query_params.update({"lang": "zh", "index": "sample:zh"})
    at.run()
    at.switch_page("pages/graph.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return component_data(at)
