"""Text is data in chromium (issue 21, deliver 2): hostile Markdown in index text, model answers, model
errors and link values makes the browser fetch nothing.

A local pixel server counts every request it gets. The pixel index (``pixel_fixtures``) and a model
server answering with the same payloads point every image, reference image, ``<img>`` and link at it;
the app is opened on every page, every mode's views, an answer, a map-reduce run and a model error, and
the pixel server must have counted 0 requests while the payload text is visible on the page as text.
"""

from __future__ import annotations

import shutil
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.browser_support import CHROMIUM, new_page, settle, streamlit_app, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)

from graphrag_ui.ui.shell.state import register_index  # noqa: E402
from tests.faults.test_fault_text_is_data import hostile  # noqa: E402
from tests.support.llm_server import start_server  # noqa: E402
from tests.support.pixel_fixtures import AUTOLINKS, payload, save_pixel_index  # noqa: E402


class PixelServer:
    """Answers every request with a 1-byte body and remembers its path."""

    def __init__(self) -> None:
        hits = self.hits = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", "1")
                self.end_headers()
                self.wfile.write(b"x")

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def pixel_server():
    server = PixelServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def setup(pixel_server, tmp_path_factory):
    """The app with the pixel index registered and a model that answers with payloads."""
    import os

    from tests.faults import test_fault_text_is_data as text_tests

    text_tests.PORT = pixel_server.port  # the model's payloads point at the pixel server too
    home = tmp_path_factory.mktemp("home")
    old = os.environ.get("GRAPHRAG_UI_HOME")
    os.environ["GRAPHRAG_UI_HOME"] = str(home)
    try:
        key = register_index("pixels", save_pixel_index(tmp_path_factory.mktemp("idx"), pixel_server.port))
    finally:
        if old is None:
            os.environ.pop("GRAPHRAG_UI_HOME", None)
        else:
            os.environ["GRAPHRAG_UI_HOME"] = old
    url, stop = start_server(hostile)
    env = {"GRAPHRAG_UI_LLM_MODEL": "openai/gpt-4o-mini", "GRAPHRAG_UI_LLM_API_BASE": url}
    try:
        with streamlit_app(env=env, home=home) as app_url:
            yield app_url, key
    finally:
        stop()


def visit(page, url: str, expect: str = "") -> str:
    page.goto(url)
    page.wait_for_selector('[data-testid="stMain"]', timeout=60_000)
    if expect:
        wait_until(page, lambda: expect in page.inner_text("body"), 120, expect)
    settle(page, 120)
    return page.inner_text("body")


def link(base: str, path: str = "/", **params: str) -> str:
    return base + path + "?" + urllib.parse.urlencode(params)


MODES = ("nano.local", "lightrag.hybrid", "ms.local", "ms.global", "nano.global")
VIEWS = ("Entities", "Relations", "Chunks", "Communities", "Graph", "Context")


def drift_run(page, base: str, key: str, question: str) -> int:
    """ms.drift with the hostile model: its questions, answers (a picked question's) and the reduce answer
    on the page (issue 27: a DRIFT question loaded a remote image). Returns the page states seen."""
    query = {"index": key, "mode": "ms.drift", "q": question, "drift_k_followups": "2", "n_depth": "1"}
    visit(page, link(base, **query) + "&primer_folds=1")
    page.get_by_role("button", name="Run DRIFT with the model").click()
    settle(page, 120)
    picker = page.get_by_test_id("stSelectbox").filter(has_text="Local retrieval of the question").first
    wait_until(page, lambda: picker.count() > 0, 120, "the DRIFT tree and its question picker")
    options = page.get_by_role("option")

    def listed() -> bool:
        if options.count() < 2:  # the run finishing redraws the picker and closes it
            picker.click()
            page.wait_for_timeout(300)
        return options.count() >= 2

    wait_until(page, listed, 60, "the questions a round ran")
    options.last.click()
    settle(page, 60)
    wait_until(page, lambda: "img-model" in page.inner_text("body"), 60, "a question's answer (payload as text)")
    return 2


def test_no_payload_reaches_the_pixel_server(setup, browser, pixel_server, capsys):
    base, key = setup
    blocked: list[str] = []
    page = new_page(browser, blocked)
    port = pixel_server.port
    question = "MARA QUAY " + payload(port, "q")
    states = anchors = 0
    for mode in MODES:
        url = link(base, index=key, mode=mode, q=question, ll=payload(port, "ll"), hl=payload(port, "hl"))
        text = visit(page, url, "duplicate id")
        states += 1
        assert "duplicate id" in text and "img-" in text, text[:500]  # the payloads are on the page, as text
        for view in VIEWS:
            radio = page.get_by_role("radio", name=view).first
            if radio.count():
                radio.click()
                settle(page, 60)
                states += 1
        page.get_by_role("button", name="Generate answer").first.click()
        wait_until(page, lambda: "img-answer" in page.inner_text("body"), 120, "the answer")
        settle(page, 60)
        states += 1
        anchors += page.locator(AUTOLINKS).count()  # www.pixel-… / mail-…@pixel.example as live links
    states += drift_run(page, base, key, question)
    anchors += page.locator(AUTOLINKS).count()
    for path, params in (
        ("/graph", {"index": key}),
        ("/recall", {"index": key, "rq": question}),
        ("/index", {"index": key}),
        ("/compare", {"index": key, "cq": question}),
        ("/settings", {"index": key}),
        ("/", {"index": f"![x](http://127.0.0.1:{port}/i.png)", "mode": f"![m](http://127.0.0.1:{port}/m.png)"}),
    ):
        visit(page, link(base, path, **params))
        states += 1
        anchors += page.locator(AUTOLINKS).count()
    page.close()
    with capsys.disabled():
        print(
            f"\n[pixels] {states} page states, {len(pixel_server.hits)} requests to the pixel server, {anchors} autolinks"
        )
    assert pixel_server.hits == [], pixel_server.hits[:5]
    assert anchors == 0
    assert blocked == [], blocked[:5]
