"""Issue 28 in the app (headless): after an answer from the citing test server, the grids mark the rows it
cites, the run line and the budget say what it used, citations open their rows, Chinese is translated,
and hostile markers stay text."""

from __future__ import annotations

import re

import pytest

from tests.support.citing_replies import citing_reply
from tests.support.llm_server import Reply, serve_fixture
from tests.ui import test_app

open_view = test_app.open_view
QUESTION = "Who founded the Guild of Tidewrights, and what did he build?"


def _model(monkeypatch, replies):
    gen = serve_fixture()
    url, script = next(gen)(replies)
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    return gen, script


@pytest.fixture()
def citing(monkeypatch, no_network):
    gen, script = _model(monkeypatch, citing_reply)
    yield script
    gen.close()


def answered(app, mode: str, lang: str = "en"):
    at = app(index="sample:en", mode=mode, q=QUESTION, lang=lang)
    button = next(b for b in at.button if b.key == "main_ask")
    button.click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def captions(at) -> list[str]:
    return [c.value for c in at.caption]


def grid(at, column: str):
    return next(df.value for df in at.dataframe if column in df.value.columns)


def test_ms_local_answer_marks_cited_rows_and_says_what_it_used(app, citing):
    at = answered(app, "ms.local")
    lines = [c for c in captions(at) if c.startswith("answer cites ")]
    assert lines and "1 citations not in the context" in lines[0] and "% of the context tokens never used" in lines[0]
    open_view(at, "entities")
    entities = grid(at, "cited")
    marked = entities[entities["cited"].str.startswith("✓")]
    assert len(marked) == 2  # the citing server cites the first two rows of each table
    assert all("The context answers the question from its tables" in text for text in marked["cited"])
    open_view(at, "budget")
    assert any(c.startswith("What the answer used of each section") for c in captions(at))
    assert sum(1 for c in captions(at) if c.startswith("answer cites ")) == 2  # under the answer and on the run line


def test_a_citation_opens_its_rows_and_an_invented_one_says_not_in_the_context(app, citing):
    at = answered(app, "ms.local")
    pills = next(p for p in at.get("button_group") if p.key == "main_citation")
    invented = next(i for i, label in enumerate(pills.options) if label.startswith("✗"))
    at.session_state["main_citation"] = invented
    at.run()
    rows = grid(at, "status")
    assert list(rows["status"]) == ["✗ not in the context"] and list(rows["note"]) == ["not in the Entities table"]
    at.session_state["main_citation"] = 0
    at.run()
    rows = grid(at, "status")
    assert set(rows["status"]) == {"✓ in the context"} and rows["row"].str.len().min() > 0


def test_nano_local_support_is_an_estimate_in_its_own_column(app, citing):
    at = answered(app, "nano.local")
    assert any("asks for no citations" in c for c in captions(at))
    marked = 0
    for view in ("entities", "relations", "chunks"):
        open_view(at, view)
        rows = grid(at, "estimated")
        assert "cited" not in rows.columns
        marked += int(rows["estimated"].str.startswith("≈").sum())
    assert 1 <= marked <= 3  # the answer's one sentence, its best three items


def test_chinese_page_shows_the_trace_in_chinese(app, citing):
    at = answered(app, "ms.local", lang="zh")
    assert any(c.startswith("回答引用了") and "处引用不在上下文中" in c for c in captions(at))
    open_view(at, "entities")
    assert "cited" in grid(at, "cited").columns


def test_hostile_citation_text_stays_text(app, monkeypatch, no_network):
    hostile = (
        "A claim [Data: Entities (<img src=x onerror=alert(1)>, 0)] and [1](javascript:alert(1)) ![p](http://x/p.png)."
    )
    gen, _ = _model(monkeypatch, [Reply(text=hostile)])
    try:
        at = answered(app, "ms.local")
        assert not any(test_app.RAW_TAG.search(md.value) for md in at.markdown)
        assert not any(test_app.RAW_TAG.search(c) for c in captions(at))
        pills = next(p for p in at.get("button_group") if p.key == "main_citation")
        assert any("img" in label for label in pills.options)
        assert not any(test_app.RAW_TAG.search(label) for label in pills.options)
    finally:
        gen.close()


def test_row_marks_hook_is_general_and_keeps_empty_grids_whole():
    import pandas as pd

    from graphrag_ui.ui.answer.citation_marks import cited_mark, estimated_mark
    from graphrag_ui.ui.results import (
        retrieval_view,  # noqa: F401  (retrieval_view brings the cited marks)
        row_marks,  # noqa: F401  (retrieval_view brings the cited marks)
    )

    assert row_marks.PROVIDERS[:2] == [cited_mark, estimated_mark]
    row_marks.register(cited_mark)
    assert row_marks.PROVIDERS.count(cited_mark) == 1
    gold = row_marks.RowMark("gold", "gold", "help", {"b": "★"})
    frame = row_marks.add_columns(pd.DataFrame({"id": ["a", "b"], "label": ["A", "B"]}), [gold])
    assert list(frame["gold"]) == ["", "★"]
    empty = row_marks.add_columns(pd.DataFrame(columns=["id", "label"]), [gold])
    assert list(empty.columns) == ["id", "label", "gold"] and empty.empty


def test_the_graph_rings_cited_entities_in_orange():
    from graphrag_ui.citations import trace_answer
    from graphrag_ui.index import store
    from graphrag_ui.services.query import run_query
    from graphrag_ui.ui.graph import graph_style, graph_view
    from graphrag_ui.ui.graph.graph_panel import cited_in_graph

    index = store.load(test_app.ROOT / "data" / "sample" / "en" / "index")
    result = run_query(index, "ms.local", QUESTION)
    first = next(c for c in result.entities if c.in_context)
    trace = trace_answer(f"He founded it [Data: Entities ({first.data['short_id']}, 99999)].", result)
    spec = graph_view.retrieval_subgraph(index, result, None)
    cited_in_graph(index, result, spec, trace)
    assert spec.cited == {first.label}
    built = graph_view.elements(index, spec)
    node = next(n for n in built.nodes if n["id"] == first.label)
    assert node["color"]["border"] == graph_style.CITED and "Cited by the answer" in node["title"]
    others = [n for n in built.nodes if n["id"] != first.label]
    assert all(n["color"]["border"] != graph_style.CITED for n in others)
    assert "orange ring / edge: cited by the answer" in graph_style.keys(spec)


def test_ms_global_lists_each_map_points_citations_by_point(app, citing):
    at = app(index="sample:en", mode="ms.global", q=QUESTION)
    next(b for b in at.button if b.key == "main_ask").click().run()
    assert not at.exception and not at.error
    pills = next(p for p in at.get("button_group") if p.key == "main_citation")
    points = [label for label in pills.options if label.startswith("point ")]
    assert points and all(re.match(r"^point \d+ · Reports \(\d+\)$", label) for label in points)
    assert "✗ Reports (99999)" in pills.options  # the reduce answer's invented report
    open_view(at, "communities")
    reports = grid(at, "cited")
    assert reports["cited"].str.contains("point 1: The reports describe the guilds", regex=False).any()


def test_compare_shows_both_sides_numbers(app, citing):
    at = app("pages/compare.py", index="sample:en", a_mode="ms.local", b_mode="nano.local", q=QUESTION)
    for side in ("cmp_a", "cmp_b"):
        next(b for b in at.button if b.key == f"{side}_ask").click().run()
        assert not at.exception and not at.error
    lines = captions(at)
    assert any(c.startswith("answer cites ") and "1 citations not in the context" in c for c in lines)
    assert any(c.startswith("answer cites nothing (the prompt asks for no citations)") for c in lines)


def test_the_judge_shows_its_price_then_its_verdicts(app, monkeypatch, no_network):
    import json

    def reply(body):
        if '"verdict"' in body["messages"][0]["content"]:
            return Reply(text=json.dumps({"verdict": "partly", "reason": "only <b>some</b> of it"}))
        return citing_reply(body)

    gen, script = _model(monkeypatch, reply)
    try:
        at = answered(app, "ms.local")
        sent = len(script.requests)
        price = [c for c in captions(at) if c.startswith("1 calls to openai/gpt-4o-mini, about ")]
        assert price and "estimated cost $" in price[0] and len(script.requests) == sent  # priced, nothing sent
        assert price[0].endswith("2 sentences without rows are not sent")  # the invented one, the closing one
        next(b for b in at.button if b.key == "main_judge").click().run()
        assert not at.exception and not at.error
        rows = grid(at, "verdict")
        assert list(rows["verdict"]) == ["≈ partly"] and list(rows["reason"]) == ["only <b>some</b> of it"]
        assert len(script.requests) == sent + 1
    finally:
        gen.close()


def test_lightrag_references_are_buttons_without_their_bullets(app, citing):
    at = answered(app, "lightrag.hybrid")
    pills = next(p for p in at.get("button_group") if p.key == "main_citation")
    assert any(re.fullmatch(r"\\\[1\\\] \S+\.md", label) for label in pills.options), pills.options
    assert "✗ \\[99\\] invented-document.md" in pills.options
