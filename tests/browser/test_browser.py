"""End to end in Debian's chromium against ``streamlit run``, with every non-localhost request blocked.

One app server for the module (LLM = the local OpenAI-compatible test server, so answers stream over
real HTTP). Screenshots land in docs/screenshots/ (the README shows the main ones).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from graphrag_ui.base.i18n import t
from graphrag_ui.retrieval.registry import mode_names
from tests.support.browser_support import (
    CHROMIUM,
    SCREENSHOTS,
    VIEW_SWITCH,
    choose_option,
    new_page,
    node_screen_position,
    settle,
    streamlit_app,
    tab_counts,
    wait_graph_painted,
    wait_until,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)

TESTS = Path(__file__).resolve().parents[1]
from tests.support.llm_server import Script, default_reply, start_server  # noqa: E402
from tests.support.ui_fixtures import IMG_DESC, SCRIPT_NAME, SVG_NAME, save_evil_index  # noqa: E402
from tests.support.zh_catalogue import GRID_REASON_TEXT, VISIBLE_UI_TEXT, allowed_names, reason_headers, untranslated  # noqa: E402

KINDS = ("Entities", "Relations", "Communities", "Chunks")


@pytest.fixture(scope="module")
def llm():
    script = Script(default_reply)
    base, stop = start_server(script)
    yield base, script
    stop()


@pytest.fixture(scope="module")
def app_url(tmp_path_factory, llm):
    """``streamlit run app.py`` with the test LLM configured and the malicious index registered."""
    home = tmp_path_factory.mktemp("home")
    evil = save_evil_index(tmp_path_factory.mktemp("evil"))
    broken = tmp_path_factory.mktemp("broken")
    (broken / "manifest.json").write_text("{not json", encoding="utf-8")
    (home / "indexes.json").write_text(json.dumps({"evil": str(evil), "broken": str(broken)}), encoding="utf-8")
    base, _ = llm
    env = {
        "GRAPHRAG_UI_LLM_MODEL": "openai/test-model",
        "GRAPHRAG_UI_LLM_API_BASE": base,
        "OPENAI_API_KEY": "sk-test-browser",
    }
    with streamlit_app(env=env, home=home) as url:
        yield url


@pytest.fixture()
def blocked():
    """Every request that tried to leave the machine; each test asserts it stayed empty."""
    urls: list[str] = []
    yield urls
    assert urls == [], f"requests left the machine: {urls[:5]}"


GRIDS_DRAWN = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
    .filter((e) => e.offsetParent !== null).every((e) => e.getBoundingClientRect().width > 150)"""


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    settle(page)
    try:  # data grids size themselves a moment after they are attached
        page.wait_for_function(GRIDS_DRAWN, timeout=5_000)
    except playwright.TimeoutError:
        pass
    page.wait_for_timeout(400)  # let charts and the canvas finish their last frame
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def counts_when(page, predicate, what: str) -> dict[str, int]:
    return wait_until(page, lambda: (c := tab_counts(page)) and predicate(c) and c, what=what)


def open_tab(page, name: str) -> None:
    """Open a result view (``Entities``, ``Graph``, … or a map-reduce mode's ``Batches`` / ``Points``) and
    wait until it is selected through a quiet spell (a view, once chosen, survives every rerun)."""
    selected = "aria-checked"
    if name in ("Batches", "Points"):
        open_tab(page, "Map-reduce")
        switch = page.locator('[data-testid="stButtonGroup"]').filter(has_text=name).last
        view = switch.get_by_role("radio", name=re.compile(rf"^{name}")).first
    elif page.locator(VIEW_SWITCH).filter(has_text=re.compile(rf"^{name}")).count():
        view = page.locator(VIEW_SWITCH).filter(has_text=re.compile(rf"^{name}")).first
    else:  # a page's own tabs (the Index page)
        view, selected = page.get_by_role("tab", name=re.compile(rf"^{name}")).first, "aria-selected"
    streak = 0

    def stays_open() -> bool:
        nonlocal streak
        settle(page)
        if view.get_attribute(selected) == "true":
            streak += 1
        else:
            streak = 0
            view.click()
        page.wait_for_timeout(300)
        return streak >= 2

    wait_until(page, stays_open, timeout_s=120, what=f"the {name} view open")


def test_explore_ask_tune_share_and_answer(browser, app_url, blocked, llm):
    page = new_page(browser, blocked)
    page.goto(app_url + "/?index=sample:en&mode=nano.local&q=Lantern+Festival")
    counts_when(page, lambda c: c.get("Entities", 0) > 0, "the first tables")
    # ask a suggested question: it replaces the question and the four tables refill
    questions = json.loads((TESTS.parent / "data/sample/en/questions.json").read_text(encoding="utf-8"))
    chosen = questions[0]["question"]
    choose_option(page, "Suggested questions", chosen)
    settle(page)
    wait_until(page, lambda: page.get_by_test_id("stTextArea").locator("textarea").input_value() == chosen)
    counts = counts_when(page, lambda c: all(c.get(k, 0) > 0 for k in KINDS), "tables for the suggested question")
    entities = counts["Entities"]
    open_tab(page, "Graph")
    wait_graph_painted(page)  # the clickable graph of the retrieved subgraph
    shot(page, "explore-graph")

    # top_k down with the keyboard: fewer entities, and the URL carries the new value
    slider = page.get_by_test_id("stSlider").filter(has_text="top_k").get_by_role("slider")
    slider.focus()
    for _ in range(17):
        page.keyboard.press("ArrowLeft")
    counts_when(page, lambda c: c["Entities"] < entities, "fewer entities after top_k down")
    wait_until(page, lambda: "nano_top_k=3" in page.url, what="top_k in the URL")
    # each key press reruns; read the count only once the run of the last one (top_k=3) has drawn
    final_run = page.get_by_text(re.compile(r"^run: nano\.local · .*\btop_k=3 · "))
    wait_until(page, lambda: final_run.count() > 0, timeout_s=120, what="the top_k=3 run")
    settle(page)
    fewer = tab_counts(page)["Entities"]
    open_tab(page, "Entities")
    page.get_by_test_id("stDataFrame").first.wait_for()

    # the shared URL reproduces the view in a fresh page
    other = new_page(browser, blocked)
    other.goto(page.url)
    shared = counts_when(other, lambda c: c.get("Entities") is not None, "the shared view")
    assert shared["Entities"] == fewer
    question = other.get_by_test_id("stTextArea").locator("textarea")
    wait_until(other, lambda: question.input_value() == chosen, what="the shared question in its box")
    other.close()

    # the answer streams from the local LLM server, beside the context it was built from
    _, script = llm
    before = len(script.requests)
    page.get_by_role("button", name="Generate answer").click()
    caption = page.get_by_text(re.compile(r"prompt \+ \d+ answer tokens"))
    caption.first.wait_for(timeout=60_000)
    assert page.get_by_text("According to the retrieved context").first.is_visible()
    chats = [r["body"] for r in script.requests[before:] if r["path"].rstrip("/").endswith("/chat/completions")]
    assert any(body.get("stream") is True for body in chats), "the answer was not requested as a stream"
    assert tab_counts(page)["Entities"] == fewer  # the context stays beside the answer
    shot(page, "explore-answer")
    page.close()


def test_modes_compare_and_language(browser, app_url, blocked):
    page = new_page(browser, blocked)
    page.goto(app_url + "/?index=sample:en&mode=nano.local")
    counts_when(page, lambda c: c.get("Entities", 0) > 0, "nano.local tables")
    for mode in ("lightrag.hybrid", "ms.local"):
        if mode not in mode_names():
            pytest.skip(f"{mode} is not in the registry yet (another engineer is finishing it): step not run")
        choose_option(page, "Retrieval mode", mode)
        settle(page)
        wait_until(page, lambda m=mode: f"mode={m}" in page.url, what=f"{mode} in the URL")
        # the tables of the previous mode stay on the page until the new run has drawn its own (with the
        # test LLM configured, LightRAG's first run also waits for litellm's import and the keywords call)
        wait_until(
            page, lambda m=mode: page.get_by_text(f"run: {m} ·").count() > 0, timeout_s=120, what=f"the {mode} run"
        )
        counts_when(page, lambda c: sum(c.get(k, 0) for k in KINDS) > 0, f"{mode} tables")
        if mode == "ms.local":
            open_tab(page, "Trace")
            page.get_by_test_id("stDataFrame").first.wait_for()
        else:
            open_tab(page, "Budget")
            page.get_by_test_id("stMetric").first.wait_for()  # the budget's totals, above its table
            page.get_by_test_id("stDataFrame").first.wait_for()
        shot(page, f"explore-{mode}")

    page.goto(app_url + "/compare?index=sample:en&a_mode=nano.local&b_mode=ms.local")
    page.get_by_text("jaccard").first.wait_for(state="attached", timeout=60_000)
    wait_until(page, lambda: len(tab_counts(page)) == 4, what="compare tables")
    shot(page, "compare")

    page.goto(app_url + "/?index=sample:zh&lang=zh&mode=lightrag.hybrid")
    wait_until(page, lambda: tab_counts(page).get("实体", 0) > 0, what="Chinese sample tables")
    shot(page, "explore-zh")
    # the Chinese screenshot carries no untranslated UI string: page text, the grids' headers and the
    # reasons in view (other grid cells and code blocks are data)
    page.get_by_test_id("stDataFrame").first.wait_for()
    grids = page.evaluate(GRID_REASON_TEXT, reason_headers("zh"))
    assert grids["reasons"], grids  # the reason cells were read, not only the headers
    missing = untranslated(page.evaluate(VISIBLE_UI_TEXT) + grids["headers"] + grids["reasons"], allowed_names())
    assert not missing, missing
    page.close()


def test_index_page_in_zh_relabels_the_uploader(browser, app_url, blocked):
    """Streamlit draws the uploader's button and limit line in English; in zh the style draws ours."""
    page = new_page(browser, blocked)
    page.goto(app_url + "/index?index=sample:zh&lang=zh")
    open_tab(page, t("Build from documents", "zh"))
    page.get_by_test_id("stFileUploaderDropzone").wait_for()
    settle(page)
    seen = page.evaluate(VISIBLE_UI_TEXT)
    assert t("Upload", "zh") in seen, seen
    assert any(text.startswith("单个文件不超过 5 MB") for text in seen), seen
    assert not any("per file" in text or text == "Upload" for text in seen), seen
    missing = untranslated(seen, allowed_names())
    assert not missing, missing
    shot(page, "index-build-zh")
    page.close()


def test_graph_page_click_shows_details(browser, app_url, blocked):
    page = new_page(browser, blocked)
    page.goto(app_url + "/graph?index=sample:en")
    wait_graph_painted(page)
    target = "Jasper Quell"
    pos = node_screen_position(page, target)
    page.mouse.click(pos["x"], pos["y"])
    details = page.get_by_role("heading", name=target)
    details.wait_for(timeout=30_000)
    page.get_by_text("Description").first.wait_for()
    page.mouse.move(5, 5)  # hide the hover tooltip for the screenshot
    shot(page, "graph-details")
    page.close()


def test_injected_script_never_runs(browser, app_url, blocked):
    """Names/descriptions with </script><script>…, <img onerror=…>, <svg onload=…> stay text everywhere."""
    page = new_page(browser, blocked)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(app_url + "/graph?index=path:evil")
    wait_graph_painted(page)
    # hover (tooltip = the title as text) and click (details panel) the malicious node
    pos = node_screen_position(page, SCRIPT_NAME)
    page.mouse.move(pos["x"], pos["y"])
    page.wait_for_timeout(600)
    page.mouse.click(pos["x"], pos["y"])
    page.get_by_text(IMG_DESC).first.wait_for(timeout=30_000)
    page.get_by_text(SVG_NAME).first.wait_for(state="attached")
    shot(page, "safety-graph")
    # the standalone pyvis page: hover there too
    page.get_by_test_id("stButtonGroup").get_by_text("Standalone").click()
    frame = page.frame_locator('[data-testid="stIFrame"]').first
    frame.locator("#mynetwork canvas").wait_for(timeout=60_000)
    wait_until(page, lambda: frame.locator("body[data-painted]").count() == 1, what="pyvis first paint")
    box = page.locator('[data-testid="stIFrame"]').first.bounding_box()
    for dx in range(0, int(box["width"]), 60):
        page.mouse.move(box["x"] + dx, box["y"] + box["height"] / 2)
    # Explore on the same index: tables, context and graph of the payloads
    page.goto(app_url + "/?index=path:evil&mode=nano.local&q=" + "MARA QUAY harbour keeper".replace(" ", "+"))
    counts_when(page, lambda c: c.get("Entities", 0) > 0, "tables of the malicious index")
    open_tab(page, "Context")
    page.get_by_test_id("stDownloadButton").filter(has_text="Download context").first.wait_for()
    page.wait_for_timeout(500)
    flags = [page.evaluate("() => window.__pwned")]
    for frame in page.frames:
        flags.append(frame.evaluate("() => window.__pwned"))
    assert dialogs == [] and all(f is None for f in flags), (dialogs, flags)
    page.close()


def test_broken_index_is_one_clear_line(browser, app_url, blocked):
    """A registered folder whose manifest is damaged: one st.error saying what to do, never a traceback."""
    page = new_page(browser, blocked)
    page.goto(app_url + "/?index=path:broken")
    alert = page.get_by_test_id("stAlert").filter(has_text="manifest")
    alert.first.wait_for(timeout=60_000)
    assert page.get_by_test_id("stException").count() == 0
    page.close()
