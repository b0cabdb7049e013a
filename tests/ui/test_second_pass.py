"""What a new analyst tripped on (issue 29), headless: stale notices, advice that must work, links that
keep their question, English left in the Chinese UI, wording."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.llm_server import Script, start_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def model(monkeypatch, tmp_path):
    url, stop = start_server(Script())
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-second-pass")
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path))
    monkeypatch.chdir(ROOT)
    yield
    stop()


def test_drift_says_it_needs_a_model_only_until_the_model_ran(model):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update({"index": "sample:en", "mode": "ms.drift", "q": "Who directs the research station?"})
    at.query_params.update({"drift_k_followups": "3", "primer_folds": "1", "n_depth": "1"})
    at.run()
    assert any(w.value.startswith("DRIFT needs a model from here on") for w in at.warning)
    next(b for b in at.button if b.label == "Run DRIFT with the model").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("depth" in list(d.value.columns) for d in at.dataframe)  # the model ran: the tree is shown
    assert not any(w.value.startswith("DRIFT needs a model from here on") for w in at.warning)


def test_a_drift_local_steps_dropped_rows_point_to_the_csv_below_its_table(model, monkeypatch):
    """A DRIFT local step's section has its CSV below its own table (not in the Context view, which holds the
    DRIFT run's sections): the dropped list's caption says so, and that button is there."""
    from streamlit.testing.v1 import AppTest

    from graphrag_ui.retrieval.core.result import KINDS
    from graphrag_ui.ui.results import kind_table

    monkeypatch.setattr(kind_table, "DROPPED_SHOWN", 0)  # every dropped list is "the first 0 of n"
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update({"index": "sample:en", "mode": "ms.drift", "q": "Who directs the research station?"})
    at.query_params.update({"drift_k_followups": "3", "primer_folds": "1", "n_depth": "1"})
    for node in range(20):  # every local section's dropped list open, as its link opens it
        for kind in KINDS:
            at.query_params[kind_table.dropped_key(f"main_drift_{node}", kind)] = kind_table.OPEN
    at.run()
    next(b for b in at.button if b.label == "Run DRIFT with the model").click().run()
    node = next(s for s in at.selectbox if s.key == "main_drift_node").value
    assert not at.exception, [e.value for e in at.exception]
    opened = [c.value for c in at.caption if c.value.startswith("The first 0 of ")]
    assert opened and all(c.endswith("the CSV below holds every row.") for c in opened), opened
    buttons = {b.key for b in at.get("download_button")}
    assert {f"main_drift_{node}_{kind}_csv" for kind in KINDS} & buttons


ILIKE_ADVICE = "with recall = ilike it runs without an embedder (entities by name)"
GOLD_QUESTION = "How is the Tidewater Institute related to Kelp Bay?"


def test_the_ilike_advice_works_in_every_mode_it_is_offered_for(app, tmp_path):
    """The import report and Explore offer recall = ilike on an index whose embedder is unknown: following
    it runs the mode (LightRAG's too: what needs the question's vector is skipped and said), and no
    warning then tells the analyst to switch to ilike or to fix the embedder on the command line."""
    from graphrag_ui.index import store
    from graphrag_ui.index.importers.command import import_source
    from graphrag_ui.retrieval.registry import mode_names
    from graphrag_ui.services.query import run_query
    from graphrag_ui.services.readiness import mode_readiness
    from graphrag_ui.ui.shell.state import register_index

    out = tmp_path / "gr2"
    import_source("auto", ROOT / "tests" / "goldens" / "graphrag-2" / "en", out)  # the embedder left unknown
    index = store.load(out)
    offered = [m for m in mode_names() if ILIKE_ADVICE in [str(r) for r in mode_readiness(index, m).reasons]]
    assert {"lightrag.local", "lightrag.hybrid", "ms.local", "nano.local"} <= set(offered)
    key = register_index("gr2", out)
    for mode in offered:
        result = run_query(index, mode, GOLD_QUESTION, {"recall": "ilike"})
        assert result.selected_ids("entities"), mode
        at = app(index=key, mode=mode, q=GOLD_QUESTION, **{f"{mode.split('.')[0]}_recall": "ilike"})
        assert not at.error, (mode, [e.value for e in at.error])
        shown = [w.value for w in at.warning]
        assert not any("recall = ilike it runs" in w or "--embedder" in w for w in shown), (mode, shown)
        assert any(t.startswith("run:") and "recall=ilike" in t for t in (c.value for c in at.caption)), mode
    off_topic = run_query(index, "nano.local", "萧炎是谁？", {"recall": "ilike"})
    assert not any("recall = ilike" in str(w) or "embeds the question" in str(w) for w in off_topic.warnings)


def test_the_unknown_embedder_error_names_the_way_in_the_app():
    from graphrag_ui.base.errors import EmbedderMismatchError
    from graphrag_ui.embedding.embed import check_compatible

    with pytest.raises(EmbedderMismatchError) as caught:
        check_compatible("unknown", "use-m3")
    assert "Index page, Re-embed" in str(caught.value.fix) and "recall = ilike" in str(caught.value.fix)


def test_lightrag_lists_its_near_misses_with_their_score_against_the_threshold():
    """Entities the local path's vector search found within top_k but cut by cosine_better_than_threshold are
    dropped rows (as nano.local lists its own); the context stays the release's (the goldens check it)."""
    import re

    from graphrag_ui.index import store
    from graphrag_ui.services.query import run_query

    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    question = "How did the city respond to the flood?"
    result = run_query(index, "lightrag.local", question, {})
    open_run = run_query(index, "lightrag.local", question, {"cosine_better_than_threshold": -1.0})
    assert open_run.context != result.context
    found_open = {c.id for c in open_run.entities if c.data.get("path") == "local"}
    listed = {c.id for c in result.entities}
    near = [c for c in result.entities if c.dropped.startswith("below cosine_better_than_threshold")]
    assert near and {c.id for c in near} == found_open - {c.id for c in result.entities if c.in_context}
    assert listed >= found_open
    for c in near:
        sim, threshold = map(float, re.search(r"sim ([\d.-]+) < ([\d.-]+)", c.dropped).groups())
        assert c.score == pytest.approx(sim, abs=5e-4) and sim < threshold == 0.2 and not c.in_context


def test_an_empty_lightrag_context_offers_the_threshold_fix(app):
    at = app(
        index="sample:en",
        mode="lightrag.local",
        q="How did the city respond to the flood?",
        lightrag_cosine_better_than_threshold="0.9",
    )
    assert any("The best candidate scores" in i.value for i in at.info), [i.value for i in at.info]
    fix = next(b for b in at.button if b.label.startswith("Set cosine_better_than_threshold to"))
    fix.click().run()
    assert not at.exception
    line = next(c.value for c in at.caption if c.value.startswith("run:"))
    assert "cosine_better_than_threshold=0.9 " not in line
    assert "in the context: 0 Entities" not in line


def test_an_empty_context_without_any_candidate_does_not_point_at_empty_tabs(app):
    at = app(index="sample:en", mode="nano.local", q="zzqx vvrk", nano_recall="ilike")
    shown = [i.value for i in at.info]
    assert not any("dropped rows in each tab" in s for s in shown), shown
    assert any("considered no entity, relation, community or chunk at all" in s for s in shown), shown


def test_wording_one_batch_script_names_and_cli_help(app, capsys):
    """Issue 29's wording: "1 map batches", "written in Cjk", double backticks in the CLI's help, and an
    off-topic question offered a lower threshold without a word about the index."""
    from graphrag_ui.base.i18n import translate
    from graphrag_ui.cli import main
    from graphrag_ui.index import store
    from graphrag_ui.services.query import question_warnings

    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    (note,) = [w for w in question_warnings(index, "萧炎是谁？") if "written in" in w]
    assert "written in Chinese characters," in note and "汉字" in translate(note, "zh")
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "``" not in capsys.readouterr().out
    at = app(index="sample:en", mode="nano.global", q="How did the city respond to the flood?")
    shown = " ".join(i.value for i in at.info) + " ".join(c.value for c in at.caption)
    assert "The map batch and its exact prompt are ready" in shown and "1 map batches" not in shown
    at = app(index="sample:en", mode="nano.local", q="萧炎是谁？")
    assert any("may not be about the question" in c.value for c in at.caption)


def test_the_import_tab_says_where_the_imported_index_is_written(app, tmp_path):
    at = app("pages/index.py", index="sample:en")
    shown = [c.value for c in at.caption]
    assert any("The imported index is written to" in c and "indexes" in c for c in shown), shown


def test_the_drift_tree_graph_colours_by_score_and_sets_unfollowed_branches_apart():
    from graphrag_ui.retrieval.core.tree import QuestionEdge, QuestionNode, QuestionTree
    from graphrag_ui.ui.graph.drift_graph import drift_elements, score_colour

    tree = QuestionTree(
        nodes=[
            QuestionNode(0, "the question", 0, score=80, round=0),
            QuestionNode(1, "followed", 1, score=20, round=1, local={}),
            QuestionNode(2, "never run", 1, score=None),
            QuestionNode(3, "its follow-up", 2, score=95, round=2, local={}),
        ],
        edges=[QuestionEdge(0, 1), QuestionEdge(0, 2), QuestionEdge(1, 3)],
    )
    built = drift_elements(tree)
    nodes = {n["id"]: n for n in built.nodes}
    assert (
        nodes["1"]["color"]["background"] == score_colour(20) != score_colour(95) == nodes["3"]["color"]["background"]
    )
    assert nodes["2"]["color"]["background"] == score_colour(None) and nodes["2"]["opacity"] < nodes["1"]["opacity"]
    assert nodes["2"]["shapeProperties"] == {"borderDashes": [4, 3]} and not nodes["1"]["shapeProperties"]
    assert {(e["from"], e["to"]): e["dashes"] for e in built.edges} == {
        ("0", "1"): False,
        ("0", "2"): True,
        ("1", "3"): False,
    }
    assert nodes["0"]["y"] < nodes["1"]["y"] < nodes["3"]["y"] and nodes["1"]["x"] != nodes["2"]["x"]
    assert "not followed" in nodes["2"]["title"] and "round: 2" in nodes["3"]["title"]


def test_a_long_job_runs_on_the_server_and_a_second_start_is_refused_by_name():
    import threading
    import time

    from graphrag_ui.base.errors import UserError
    from graphrag_ui.services import jobs

    release = threading.Event()

    def work(progress):
        progress("vectors", 1, 3)
        release.wait(30)
        progress("vectors", 3, 3)
        return "ok"

    target = "/tmp/not-an-index-second-pass"
    job = jobs.start("reembed", target, work, "hash")
    with pytest.raises(UserError, match=r"a job is already writing /tmp/not-an-index-second-pass: re-embed, .*hash"):
        jobs.start("reembed", target, work, "hash")
    assert jobs.jobs_for(target)[0] is job and job.state == jobs.RUNNING
    release.set()
    deadline = time.time() + 10
    while job.state == jobs.RUNNING and time.time() < deadline:
        time.sleep(0.02)
    assert job.state == jobs.DONE and job.result == "ok" and job.stages == {"vectors": (3, 3)}
    jobs.start("reembed", target, lambda progress: 1 / 0).finished or time.sleep(0.2)  # a new one may start
    assert jobs.jobs_for(target)[0].state == jobs.FAILED


def test_a_reembed_started_in_one_tab_is_seen_from_another(app, monkeypatch):
    """The re-embed runs on the server: a second session (another tab, or the analyst back after closing
    the first) sees it running or finished, and its own start of the same job is refused by name. The job
    is held until the second start was tried (a real re-embed of the sample may end before that click)."""
    import shutil
    import threading

    from graphrag_ui.index import reembed as reembed_module
    from graphrag_ui.services import jobs
    from graphrag_ui.ui.shell.state import app_home, register_index
    from graphrag_ui.ui.widgets.index_ops import indexes_home
    from tests.ui.test_app import wait_for_jobs

    release, real = threading.Event(), reembed_module.reembed

    def held(path, name, progress=None):
        release.wait(60)
        return real(path, name, progress=progress)

    monkeypatch.setattr(reembed_module, "reembed", held)
    folder = indexes_home(app_home()) / "copy"  # the app's own index: one opened by path is read-only
    shutil.copytree(ROOT / "data" / "sample" / "en" / "index", folder)
    key = register_index("copy", folder)
    first = app("pages/index.py", index=key)
    first.text_input(key="re_emb").set_value("hash").run()
    first.button(key="re_btn").click().run()
    try:
        second = app("pages/index.py", index=key)
        assert any("re-embed of this index" in c.value for c in second.caption), [c.value for c in second.caption]
        assert jobs.jobs_for(str(folder))[0].state == jobs.RUNNING
        second.text_input(key="re_emb").set_value("hash").run()
        second.button(key="re_btn").click().run()
        assert any("a job is already writing" in e.value for e in second.error)
    finally:
        release.set()
    wait_for_jobs()
    second.run()
    assert any("The last re-embed of this index finished (hash)" in s.value for s in second.success)
