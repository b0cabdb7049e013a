"""AppTest drives every page headless: mode switch, sliders, URL state, compare, recall, graph, import, build."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from graphrag_ui.base.errors import UserError
from graphrag_ui.retrieval.registry import mode_names
from graphrag_ui.ui.graph.graph_view import remote_references
from graphrag_ui.ui.shell.frame import PAGES
from graphrag_ui.ui.shell.labels import PAGE_TITLES
from graphrag_ui.ui.shell.state import register_index
from graphrag_ui.ui.widgets.index_ops import MAX_UPLOAD_BYTES, check_uploads
from tests.support.ui_fixtures import IMG_DESC, PAYLOAD_MARKERS, SCRIPT_NAME, SVG_NAME, plain, save_evil_index  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
COUNT = re.compile(r"\((\d+)\)$")
RAW_TAG = re.compile(r"(?<!\\)<(script|img|svg)", re.I)


@pytest.fixture(autouse=True)
def allowed_sources(monkeypatch, tmp_path):
    """The operator lets the browser read the test goldens and the test's own folder (graphrag_ui.base.access)."""
    monkeypatch.setenv("GRAPHRAG_UI_SOURCE_ROOTS", f"{ROOT / 'tests'}:{tmp_path}")


STAGES = re.compile(r"(\d+)\D+(\d+)")  # "Map-reduce: 3 batches, 2 points" (any language)


def view_labels(at: AppTest, key: str = "main") -> list[str]:
    """The labels of a result's view switch (``Entities (12)``, ``Graph``, …)."""
    return [label for group in at.get("button_group") if group.key == f"{key}_show" for label in group.options]


def tab_counts(at: AppTest, key: str = "main") -> dict[str, int]:
    """View name -> items it holds; a map-reduce mode's stages as ``Batches`` and ``Points``."""
    out = {}
    for label in view_labels(at, key):
        match = COUNT.search(label)
        if match:
            out[label.split(" (")[0]] = int(match.group(1))
        elif (stages := STAGES.search(label)) is not None:
            out["Batches"], out["Points"] = int(stages.group(1)), int(stages.group(2))
    return out


def open_view(at: AppTest, view: str, key: str = "main") -> None:
    """Switch a result to ``view`` (entities … context, or a map-reduce mode's batches / points) and rerun."""
    if view in ("batches", "points"):
        at.session_state[f"{key}_show"] = "map-reduce"
        at.session_state[f"{key}_stage"] = view
    else:
        at.session_state[f"{key}_show"] = view
    at.run()


def test_explore_runs_every_mode_without_errors(app):
    at = app(index="sample:en")
    counts = tab_counts(at)
    assert counts["Entities"] > 0 and counts["Chunks"] > 0 and counts["Relations"] > 0
    for mode in mode_names():
        at.selectbox(key="mode").set_value(mode).run()
        assert not at.exception, (mode, [e.value for e in at.exception])
        if mode == "lightrag.bypass":  # retrieves nothing by design, and says so
            assert sum(tab_counts(at).values()) == 0 and any("bypass" in w.value for w in at.warning), mode
        else:
            assert sum(tab_counts(at).values()) > 0, mode


def test_slider_change_and_url_state(app):
    at = app(index="sample:en", mode="nano.local")
    before = tab_counts(at)["Entities"]
    at.slider(key="nano_top_k").set_value(2).run()
    after = tab_counts(at)["Entities"]
    assert after <= 2 < before
    shared = app(index="sample:en", mode="nano.local", nano_top_k="2")
    assert tab_counts(shared)["Entities"] == after
    assert shared.slider(key="nano_top_k").value == 2


def test_lightrag_keywords_are_editable(app):
    at = app(index="sample:en", mode="lightrag.local")
    assert any("offline" in w.value for w in at.warning)
    entity = at.text_area(key="q").value.split()[0]
    at.text_input(key="ll").set_value(entity).run()
    assert not any("offline" in w.value for w in at.warning)


def test_language_switch(app):
    at = app(index="sample:zh", lang="zh")
    assert at.title[0].value == "检索探索"
    assert "实体" in " ".join(view_labels(at))


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_opens_inside_the_frame(app, name):
    """AppTest runs every page as Streamlit's legacy ``pages/`` app would; the frame must still run."""
    at = app(f"pages/{name}.py", index="sample:zh")
    assert at.selectbox(key="index").value == "sample:zh"
    assert at.selectbox(key="lang").value == "en"
    assert [title.value for title in at.title] == [PAGE_TITLES[name]]


def test_compare_page_shows_overlap(app):
    at = app("pages/compare.py", index="sample:en")
    frames = [df.value for df in at.dataframe]
    assert any("jaccard" in frame.columns for frame in frames)
    overlap = next(frame for frame in frames if "jaccard" in frame.columns)
    assert list(overlap["kind"]) == ["Entities", "Relations", "Communities", "Chunks"]
    assert overlap["jaccard"].between(0, 1).all()


def test_recall_page_seed_003(app):
    at = app("pages/recall.py", index="sample:zh")
    at.text_input(key="rq").set_value("跑步数据").run()
    assert not at.exception
    names = {frame.value.columns.tolist().__str__() for frame in at.dataframe}
    assert any("sim term" in n for n in names)
    at.slider(key="w_sim").set_value(0.0).run()
    merged = next(df.value for df in at.dataframe if "sim term" in df.value.columns)
    assert (merged["sim term"] == 0).all()


def iframes(at: AppTest) -> list:
    return [el for el in at.main if el.type == "iframe"]


def components(at: AppTest) -> list:
    return [el for el in at.main if el.type == "bidi_component"]


def test_graph_page_clickable_and_standalone_views(app):
    at = app("pages/graph.py", index="sample:en")
    # default: the clickable vis-network component, fed with the same node/edge data as the pyvis page
    (component,) = components(at)
    data = json.loads(component.proto.json)
    assert data["nodes"] and data["edges"] and "vis.Network" not in json.dumps(data["options"])
    assert "vis" in data["vislib"][:2000] and remote_references(data["vislib"]) == []
    # a click (the component's trigger value, as the frontend sends it) opens the details panel
    first = data["nodes"][0]["id"]
    at.session_state["g_graph"] = {"node_click": first}
    at.run()
    assert not at.exception
    assert at.selectbox(key="g_node").value == first
    assert any(first in md.value for md in at.markdown)
    # clicking a node that is not drawn (stale click) changes nothing
    at.session_state["g_graph"] = {"node_click": "no such node"}
    at.run()
    assert at.selectbox(key="g_node").value == first
    # the standalone pyvis page: inlined, no remote tags, same node ids
    at.session_state["g_view"] = "standalone"
    at.run()
    (frame,) = iframes(at)
    html = frame.proto.srcdoc
    assert "vis.Network" in html and remote_references(html) == []
    assert json.dumps(first)[1:-1] in html or first in html


@pytest.fixture()
def evil(tmp_path, monkeypatch):
    """The malicious index, registered in the app's home like a user-added folder."""
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    folder = save_evil_index(tmp_path)
    return register_index("evil", folder)


def test_graph_page_cannot_run_injected_script(app, evil):
    at = app("pages/graph.py", index=evil)
    assert not at.error, [e.value for e in at.error]
    # interactive view: texts travel as JSON data only (rendered by vis DataSet / textContent)
    (component,) = components(at)
    data = json.loads(component.proto.json)
    names = {n["id"] for n in data["nodes"]}
    assert SCRIPT_NAME in names and SVG_NAME in names
    # the details panel shows the payloads as plain text, never as markup
    at.session_state["g_node"] = SCRIPT_NAME
    at.run()
    assert any(IMG_DESC in txt.value for txt in at.text)
    for md in at.markdown:  # Markdown never gets a live tag: every "<" from the index is escaped
        assert not RAW_TAG.search(md.value), md.value
    # standalone pyvis page: no injected tag survives; the payload is there, but escaped as data
    at.session_state["g_view"] = "standalone"
    at.run()
    (frame,) = iframes(at)
    html = frame.proto.srcdoc
    for marker in PAYLOAD_MARKERS:
        assert marker not in html, marker
    assert "\\u003c/script\\u003e\\u003cscript\\u003ewindow.__pwned" in html
    assert remote_references(html) == []


def test_explore_on_the_malicious_index(app, evil):
    at = app(index=evil, mode="nano.local", q="MARA QUAY " + IMG_DESC)
    assert not at.error, [e.value for e in at.error]
    assert tab_counts(at)["Entities"] == 3
    open_view(at, "graph")
    at.run()
    (component,) = components(at)  # the interactive graph: the payloads travel as JSON data only
    assert SCRIPT_NAME in {n["id"] for n in json.loads(component.proto.json)["nodes"]}
    at.session_state["main_view"] = "standalone"
    at.run()
    assert iframes(at), "the standalone pyvis page of the retrieved subgraph"
    for frame in iframes(at):
        for marker in PAYLOAD_MARKERS:
            assert marker not in frame.proto.srcdoc, marker


def test_index_page_imports_a_golden_directory(app, tmp_path):
    at = app("pages/index.py", index="sample:en")
    at.text_input(key="imp_src").set_value(str(ROOT / "tests" / "goldens" / "nano" / "en")).run()
    at.text_input(key="imp_name").set_value("golden-nano").run()
    at.selectbox(key="imp_emb").set_value("hash").run()
    at.button(key="imp_btn").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    finish_jobs(at)  # the import runs on the server (issue 29): the page opens it once it sees it done
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Ready: golden-nano is open now" in s.value for s in at.success)
    assert at.query_params["index"] in ("path:golden-nano", ["path:golden-nano"])
    assert (tmp_path / "home" / "indexes" / "golden-nano" / "manifest.json").is_file()


def test_index_page_reports_a_bad_source_clearly(app, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    at = app("pages/index.py", index="sample:en")
    at.text_input(key="imp_src").set_value(str(empty)).run()
    at.text_input(key="imp_name").set_value("bad").run()
    at.button(key="imp_btn").click().run()
    finish_jobs(at)  # the import runs on the server (issue 29): its failure shows when the page looks again
    assert not at.exception
    assert at.error and at.error[0].value.startswith("Import into bad failed: ") and "empty" in at.error[0].value
    assert not (tmp_path / "home" / "indexes" / "bad").exists()
    # the progress box goes with the import: no "Importing…" spinner running over the red error
    assert not at.status


def wait_for_jobs(timeout: float = 120.0) -> None:
    import time

    from graphrag_ui.services import jobs

    deadline = time.time() + timeout
    while any(j.state == jobs.RUNNING for j in jobs._JOBS) and time.time() < deadline:
        time.sleep(0.1)


def finish_jobs(at: AppTest) -> None:
    """Wait for the server's jobs, then run the page again: what the analyst sees on coming back."""
    wait_for_jobs()
    at.run()


def test_index_page_reembed_shows_the_new_embedder_at_once(app):
    at = app("pages/index.py", index="sample:en")
    at.text_input(key="imp_src").set_value(str(ROOT / "tests" / "goldens" / "nano" / "en")).run()
    at.text_input(key="imp_name").set_value("unknown-nano").run()
    at.button(key="imp_btn").click().run()  # the embedder left "unknown"
    finish_jobs(at)
    assert not at.exception and not at.error
    assert "**unknown (256)**" in [m.value for m in at.markdown]
    ready = next(d.value for d in at.dataframe if list(d.value.columns) == ["mode", "status", "why"])
    cannot = set(ready[ready["status"] == "cannot run"]["mode"])
    assert "nano.naive" in cannot and "nano.global" not in cannot  # a mode that never embeds the question runs
    at.text_input(key="re_emb").set_value("hash").run()
    at.button(key="re_btn").click().run()
    assert not at.exception and not at.error
    wait_for_jobs()  # it runs on the server (issue 29): the page shows it when the analyst looks again
    at.run()
    assert "**hash (256)**" in [m.value for m in at.markdown]  # not the old embedder until the page is left
    assert any("The last re-embed of this index finished (hash)" in s.value for s in at.success)


def test_index_page_refuses_a_blank_litellm_model_with_the_valid_names(app, tmp_path):
    at = app("pages/index.py", index="sample:en")
    at.text_input(key="imp_src").set_value(str(ROOT / "tests" / "goldens" / "nano" / "en")).run()
    at.selectbox(key="imp_emb").set_value("litellm").run()
    at.text_input(key="imp_emb_model").set_value("   ").run()
    at.button(key="imp_btn").click().run()
    assert not at.exception and not at.success
    assert at.error and "use-m3, chroma-minilm, litellm:<model>, hash" in at.error[0].value
    assert not (tmp_path / "home" / "indexes" / "en").exists()


def test_empty_result_has_a_clear_empty_state(app, evil):
    at = app(index=evil, mode="nano.local", q="Who keeps the harbour lamp?")
    assert not at.exception and not at.error
    assert tab_counts(at)["Entities"] == 0
    assert any("found nothing" in info.value for info in at.info), [i.value for i in at.info]


DOC_A = "Mara Quay keeps the harbour lamp at Greywater. The Lantern Guild pays Mara Quay each winter.\n" * 3
DOC_B = "The Lantern Guild built the Greywater lighthouse in 377. Tobias Fenn repaired its lens.\n" * 3


def test_index_page_builds_from_two_small_documents(app, tmp_path):
    at = app("pages/index.py", index="sample:en")
    at.file_uploader(key="b_files").set_value(
        [("harbour.txt", DOC_A.encode(), "text/plain"), ("guild.md", DOC_B.encode(), "text/markdown")]
    ).run()
    at.text_input(key="b_name").set_value("two docs").run()
    at.text_input(key="b_emb").set_value("hash").run()
    assert at.radio(key="b_extractor").value == "offline"
    at.button(key="b_btn").click().run()
    finish_jobs(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Ready" in s.value for s in at.success)
    built = tmp_path / "home" / "indexes" / "two-docs"
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["documents"] == 2 and manifest["counts"]["entities"] > 0
    # the new index is registered and opens in the sidebar picker
    at.switch_page("pages/explore.py").run()
    assert "path:two-docs" in at.selectbox(key="index").options


def test_index_page_in_chinese_says_the_build_warnings_in_chinese(app):
    """A skipped duplicate is a build warning: shown with the result, in the UI language."""
    at = app("pages/index.py", index="sample:en", lang="zh")
    docs = [("harbour.txt", DOC_A), ("copy.txt", DOC_A), ("guild.md", DOC_B)]
    at.file_uploader(key="b_files").set_value([(n, d.encode(), "text/plain") for n, d in docs]).run()
    at.text_input(key="b_name").set_value("dup").run()
    at.text_input(key="b_emb").set_value("hash").run()
    at.button(key="b_btn").click().run()
    finish_jobs(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = " ".join(s.value for s in at.success)
    assert "内容相同（已跳过）" in shown and "same text" not in shown, shown


def test_index_page_rejects_bad_uploads_with_a_clear_error(app, tmp_path):
    at = app("pages/index.py", index="sample:en")
    at.file_uploader(key="b_files").set_value([("notes.txt", b"caf\xe9 au lait", "text/plain")]).run()
    at.text_input(key="b_name").set_value("latin1").run()
    at.button(key="b_btn").click().run()
    assert not at.exception
    assert at.error and "notes.txt" in at.error[0].value and "UTF-8" in at.error[0].value
    assert not (tmp_path / "home" / "indexes" / "latin1").exists()


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ([], "no documents uploaded"),
        ([("a.pdf", b"%PDF-1.4")], "a.pdf: only .txt and .md"),
        ([("big.txt", b"x" * (MAX_UPLOAD_BYTES + 1))], "big.txt: file is larger than 5 MB"),
        ([("bin.txt", b"ab\x00cd")], "bin.txt: this looks like a binary file"),
        ([("latin.md", b"\xff\xfe text")], "latin.md: not UTF-8 text (byte 0)"),
        ([("blank.txt", b"  \n ")], "blank.txt: the file is empty"),
        ([("ok.txt", b"fine"), ("bad.txt", b"\xff")], "bad.txt: not UTF-8"),
    ],
)
def test_check_uploads_names_the_bad_file(files, expected):
    with pytest.raises(UserError) as caught:
        check_uploads(files)
    assert str(caught.value).startswith(expected)


def test_check_uploads_accepts_text_up_to_the_limit():
    data = ("é" * (MAX_UPLOAD_BYTES // 2)).encode("utf-8")
    assert len(data) == MAX_UPLOAD_BYTES
    assert check_uploads([("dir/notes.md", data), ("b.TXT", "中文".encode())]) == [
        ("notes.md", data.decode("utf-8")),
        ("b.TXT", "中文"),
    ]


def test_unexpected_errors_become_one_line_not_a_traceback(app, monkeypatch):
    from graphrag_ui.ui.results import derived

    def broken(*args, **kwargs):
        raise RuntimeError("simulated failure\nsecond line")

    monkeypatch.setattr(derived, "counts", broken)  # every run asks (the result's memo sits behind it)
    at = app(index="sample:en", mode="nano.local")
    assert not at.exception
    (error,) = at.error
    assert "RuntimeError: simulated failure" in plain(error.value) and "second line" not in error.value
    assert "Try again" in error.value


def test_budget_tab_totals_and_downloads(app):
    at = app(index="sample:en", mode="lightrag.hybrid")
    open_view(at, "budget")
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    from graphrag_ui.services.query import run_query
    from graphrag_ui.ui.shell.state import index_choices, load_index

    result = run_query(load_index(index_choices()["sample:en"]), "lightrag.hybrid", at.text_area(key="q").value, {})
    total = next(b for b in result.budgets if b.section == "total")
    assert metrics["Tokens in the context"] == f"{total.used:,}"
    assert metrics["Headroom under the limits"] == f"{total.limit - total.used:,}"
    # context tab: copyable code block and both downloads
    open_view(at, "context")
    shown = [code.value for code in at.code if code.language == "plaintext"]
    assert [text.rstrip() for text in shown] == [result.context.rstrip()]  # st.code trims the last newline
    labels = {b.label for b in at.get("download_button")}
    assert {"Download context", "Download Retrieval JSON"} <= labels


def test_section_csvs_are_in_the_context_view_not_below_each_grid(app):
    """A download button is a new element on every run (Streamlit gives its file a new id), one more for the
    browser to redraw on each slider move: the sections' CSVs sit with the other downloads instead."""
    at = app(index="sample:en", mode="nano.local")
    open_view(at, "entities")
    assert not at.exception and not at.error
    assert at.dataframe and not at.get("download_button")
    open_view(at, "context")
    labels = [b.label for b in at.get("download_button")]
    assert labels == [
        "Download context",
        "Download Retrieval JSON",
        "Entities as CSV",
        "Relations as CSV",
        "Communities as CSV",
        "Chunks as CSV",
    ]


def test_lightrag_version_is_picked_beside_the_mode(app):
    """Sample indexes default to 1.4.7; picking 1.5.7 switches the context to 1.5.7's JSON lines and the
    sidebar to 1.5.7's schema; other families show no version picker."""
    at = app(index="sample:en", mode="lightrag.local")
    assert at.selectbox(key="lightrag_version").value == "1.4.7"
    open_view(at, "context")
    (before,) = [code.value for code in at.code if code.language == "plaintext"]
    assert before.startswith("-----Entities(KG)-----")
    at.selectbox(key="lightrag_version").set_value("1.5.7").run()
    assert not at.exception and not at.error
    (after,) = [code.value for code in at.code if code.language == "plaintext"]
    assert after.lstrip("\n").startswith("Knowledge Graph Data (Entity):") and "Reference Document List" in after
    assert "200-token buffer" in at.select_slider(key="lightrag_max_total_tokens").help  # a log-scale budget
    shared = app(index="sample:en", mode="lightrag.local", lightrag_version="1.5.7")
    assert shared.selectbox(key="lightrag_version").value == "1.5.7"
    other = app(index="sample:en", mode="nano.local")
    assert not [s for s in other.selectbox if s.key == "lightrag_version"]
