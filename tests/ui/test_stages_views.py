"""The views of a map-reduce mode: Batches, Points, the stage calls in Trace, the reduce context, the
staged answer with its progress bar — headless (AppTest) with the test-local ``test.global`` mode on the
English sample, without a model and through the real OpenAI-compatible test server."""

from __future__ import annotations

import pytest

from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.retrieval.core.stages import Batch, ModelCall, Point, Rating, Stages
from graphrag_ui.ui.answer import stage_tables
from tests.support import staged_mode
from tests.support.llm_server import serve_fixture
from tests.support.ui_fixtures import TITLE
from tests.ui import test_app

MODE = staged_mode.NAME
evil = test_app.evil  # test_app's malicious-index fixture (the headless `app` fixture is conftest's)
RAW_TAG, tab_counts, open_view, view_labels = (
    test_app.RAW_TAG,
    test_app.tab_counts,
    test_app.open_view,
    test_app.view_labels,
)


@pytest.fixture(autouse=True)
def _mode(monkeypatch):
    staged_mode.register(monkeypatch)


@pytest.fixture()
def model(monkeypatch, no_network):
    gen = serve_fixture()
    url, script = next(gen)()
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    yield script
    gen.close()


def chats(script) -> int:
    return sum(1 for r in script.requests if r["path"].endswith("/chat/completions"))


def frames_with(at, column: str) -> list:
    return [df.value for df in at.dataframe if column in df.value.columns]


# --- the tables, pure ------------------------------------------------------------------------------


def run_result() -> Retrieval:
    batches = [Batch(0, ["c1", "c2"], "ctx0", 900, 1000, []), Batch(1, ["c3"], "ctx1", 300, 1000, [])]
    calls = [
        ModelCall("map", "batch 0", 500, 40, 120.0, 0.001, parsed=[{}, {}]),
        ModelCall("map", "batch 1", 200, 10, 80.0, None, ok=False, error="not JSON"),
        ModelCall("reduce", "answer", 300, 90, 400.0, 0.002, cached=True),
    ]
    points = [
        Point(0, "alpha", 80, ["c1", "c2"], True, "score 80, #1 of 2", tokens=5),
        Point(0, "beta", 0, ["c1", "c2"], dropped="score 0"),
        Point(1, "gamma", 30, ["c3"], True, "score 30, #2 of 2", tokens=4),
    ]
    ratings = [Rating("c1", 0, 4.0, True, "rated 4 ≥ 1: kept"), Rating("c9", 0, None, False, "no rating: pruned")]
    communities = [Candidate(c, f"Title {c}", {}, i, "in batch") for i, c in enumerate(["c1", "c2", "c3"])]
    stages = Stages("done", "ran", batches, ratings, calls, points, "reduce ctx", [])
    return Retrieval("ms.global", "q", {}, communities=communities, stages=stages)


def test_stage_tables_say_where_each_point_came_from_and_why():
    result = run_result()
    batches = stage_tables.batches_frame(result)
    assert list(batches["fill"]) == [0.9, 0.3] and list(batches["points"]) == [2, 1] and list(batches["kept"]) == [1, 1]
    assert batches["report ids"][0] == "c1 Title c1; c2 Title c2" and batches["map"][1] == "not JSON"
    kept, dropped = stage_tables.points_frames(result)
    assert list(kept["description"]) == ["alpha", "gamma"] and list(kept["reports"]) == [
        "c1 Title c1; c2 Title c2",
        "c3 Title c3",
    ]
    assert list(dropped.columns)[0] == "why dropped" and list(dropped["why dropped"]) == ["score 0"]
    calls = stage_tables.calls_frame(result.stages)
    assert list(calls["stage"]) == ["map", "map", "reduce"] and list(calls["cached"]) == [False, False, True]
    ratings = stage_tables.ratings_frame(result)
    assert list(ratings["kept"]) == [True, False] and ratings["title"][0] == "Title c1"


# --- the pages ---------------------------------------------------------------------------------------


def test_without_a_model_batches_and_prompts_show_and_the_need_is_said(app):
    at = app(index="sample:en", mode=MODE)
    assert not at.exception and not at.error
    counts = tab_counts(at)
    assert counts["Batches"] >= 2 and counts["Points"] == 0
    batches = frames_with(at, "report ids")[0]
    assert list(batches["batch"]) == list(range(counts["Batches"]))
    assert any("need a language model" in info.value for info in at.info)
    assert sum(1 for e in at.expander if e.label.startswith("Map prompt · batch ")) == counts["Batches"]
    open_view(at, "trace")
    assert not frames_with(at, "prompt tokens")  # no model call was made or invented
    open_view(at, "points")  # no answer button without a model: the Points view says what the map stage needs
    assert any("need a language model" in info.value for info in at.info)
    assert not any("ask for an answer" in info.value for info in at.info)


def test_chinese_labels(app):
    at = app(index="sample:en", mode=MODE, lang="zh")
    labels = view_labels(at)
    assert labels[0].startswith("映射-归约") and tab_counts(at)["Batches"] > 0
    batches = next(d.value for d in at.dataframe if len(d.value.columns) == 9)  # no model: no map call, no count
    assert not batches.isna().any().any() and set(batches["points"]) == set(batches["kept"]) == {"—"}


def test_the_answer_runs_map_then_reduce_and_fills_points_and_trace(app, model):
    at = app(index="sample:en", mode=MODE)
    button = next(b for b in at.button if b.label.startswith("Generate answer ("))
    button.click().run()
    assert not at.exception and not at.error
    n = tab_counts(at)["Batches"]
    assert chats(model) == n + 1  # every map call, then the reduce call
    assert tab_counts(at)["Points"] == n  # the test server gives one scored point per batch (and one score 0)
    assert any(md.value.startswith("The retrieved context") for md in at.markdown)
    batches = frames_with(at, "report ids")[0]
    assert list(batches["map"]) == ["ok"] * n and list(batches["kept"]) == [1] * n
    open_view(at, "points")
    kept = frames_with(at, "why")[0]
    dropped = frames_with(at, "why dropped")[0]
    assert len(kept) == n and list(kept["score"]) == sorted(kept["score"], reverse=True)
    assert set(dropped["why dropped"]) == {"score 0"}
    open_view(at, "trace")
    calls = frames_with(at, "prompt tokens")[0]
    assert list(calls["stage"]) == ["map"] * n + ["reduce"] and (calls["ms"] > 0).all()
    open_view(at, "context")
    assert any(code.value.startswith("----Analyst ") for code in at.code)
    # asking again costs nothing: every call comes from the cache
    next(b for b in at.button if b.label.startswith("Generate answer (")).click().run()
    assert chats(model) == n + 1
    assert any(f"{n + 1} calls ({n + 1} from the cache)" in c.value for c in at.caption)


def test_compare_puts_ms_global_beside_ms_local_with_report_overlap(app):
    at = app("pages/compare.py", index="sample:en", a_mode="ms.local", b_mode="ms.global")
    assert not at.exception and not at.error
    overlap = next(f for f in frames_with(at, "jaccard"))
    reports = overlap[overlap["kind"] == "Communities"].iloc[0]
    # global search batches every report of the level, so each report local search used is shared
    assert 0 < reports["left"] == reports["shared"] < reports["right"]
    assert reports["jaccard"] == round(reports["shared"] / reports["right"], 3)
    assert [bool(tab_counts(at, side).get("Batches")) for side in ("cmp_a", "cmp_b")] == [False, True]  # global only


def test_report_text_with_markup_stays_text(app, evil):
    at = app(index=evil, mode=MODE, q="Who keeps the harbour?")
    assert not at.exception
    batches = frames_with(at, "report ids")[0]
    assert TITLE in batches["report ids"][0]  # shown as a cell, verbatim
    assert not any(RAW_TAG.search(md.value) for md in at.markdown)


def test_a_failed_map_call_is_one_clear_error_and_no_answer(app, monkeypatch, no_network):
    from tests.support.llm_server import Reply

    gen = serve_fixture()
    url, script = next(gen)([Reply(text="down", status=500)])
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MAX_RETRIES", "0")
    at = app(index="sample:en", mode=MODE)
    next(b for b in at.button if b.label.startswith("Generate answer (")).click().run()
    gen.close()
    assert not at.exception
    (error,) = at.error
    assert "map call(s) failed" in error.value and "status 500" in error.value and "did not run" in error.value
    assert tab_counts(at)["Points"] == 0 and not any(md.value.startswith("The retrieved") for md in at.markdown)


def test_dynamic_selection_ratings_show_in_batches(app, model):
    at = app(index="sample:en", mode="ms.global", ms_dynamic_community_selection="true")
    assert not at.exception and not at.error
    ratings = frames_with(at, "rating")[0]
    assert len(ratings) > 0 and set(ratings["kept"]) <= {True, False} and ratings["reason"].str.len().min() > 0
    batched = set().union(*(set(ids.split("; ")) for ids in frames_with(at, "report ids")[0]["report ids"]))
    kept = set(ratings[ratings["kept"]]["community"])
    assert {entry.split(" ", 1)[0] for entry in batched} <= kept
    assert chats(model) == len(ratings)  # only the rating calls so far: the map waits for the button
