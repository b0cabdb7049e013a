"""Start ``streamlit run`` on 127.0.0.1 and drive Debian's chromium with every non-local request blocked."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
EXTERNAL = re.compile(r"^(?!https?://(127\.0\.0\.1|localhost)(:\d+)?/)(https?|wss?)://", re.I)
IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
SCREENSHOTS = ROOT / "docs" / "screenshots"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_app(env: dict[str, str] | None = None, home: Path | None = None):
    """Yield the base URL of a fresh app server (``python -m graphrag_ui.cli.serve``) on a free loopback port."""
    port = int(os.environ.get("GRAPHRAG_UI_TEST_APP_PORT") or 0) or free_port()  # a fixed one when asked
    environment = {**os.environ, **(env or {})}
    if home is not None:  # conftest sets a default home for the whole run: an explicit one wins
        environment["GRAPHRAG_UI_HOME"] = str(home)
    environment.setdefault("GRAPHRAG_UI_HOME", str(ROOT / ".pytest_cache" / "browser_home"))
    environment["STREAMLIT_BROWSER_GATHER_USAGE_STATS"] = "false"
    proc = subprocess.Popen(
        [  # as `make run` starts it: with the start-up preload
            sys.executable,
            "-m",
            "graphrag_ui.cli.serve",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.3)
        else:
            raise RuntimeError("streamlit did not start: " + proc.stderr.read().decode()[-2000:])
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def new_page(browser, blocked: list[str]):
    page = browser.new_page(viewport={"width": 1500, "height": 1100})

    def block(route):
        blocked.append(route.request.url)
        route.abort()

    page.route(EXTERNAL, block)
    return page


def wait_idle(page, timeout: int = 60_000) -> None:
    page.wait_for_timeout(400)
    page.wait_for_function(IDLE, timeout=timeout)


# the vis-network container of the clickable graph component (inside its shadow root)
GRAPH_BOX_JS = """() => {
  for (const host of document.querySelectorAll('[data-testid^="stBidiComponent"]')) {
    const roots = [host.shadowRoot, ...[...host.querySelectorAll('*')].map((e) => e.shadowRoot)].filter(Boolean);
    for (const root of roots) { const box = root.querySelector('.net'); if (box) return box; }
  }
  return null;
}"""


def wait_graph_painted(page, timeout: int = 60_000) -> float:
    """Wait until the clickable graph drew its first frame; returns its layout+paint time in ms."""
    handle = page.wait_for_function(
        f"() => {{ const box = ({GRAPH_BOX_JS})(); return box && box.dataset.painted; }}", timeout=timeout
    )
    return float(handle.json_value())


def node_screen_position(page, node_id: str, timeout: int = 30_000) -> dict[str, float]:
    """Page coordinates of a node of the clickable graph (to click or hover it), once it is drawn and inside the
    window: a graph below the fold is scrolled to the middle first (a click outside the window reaches nothing)."""
    handle = page.wait_for_function(
        f"""(id) => {{ const box = ({GRAPH_BOX_JS})(); const net = box && box.__network;
            if (!net || !box.dataset.painted) return null;
            const at = net.getPositions([id])[id]; if (!at) return null;
            const p = net.canvasToDOM(at); const r = box.getBoundingClientRect();
            const x = r.left + p.x, y = r.top + p.y;
            if (y < 0 || y > window.innerHeight || x < 0 || x > window.innerWidth) {{
              box.scrollIntoView({{ block: "center" }}); return null; }}
            return {{ x, y }}; }}""",
        arg=node_id,
        timeout=timeout,
    )
    return handle.json_value()


def wait_until(page, predicate, timeout_s: float = 60.0, what: str = "condition"):
    """Poll ``predicate()`` (which reads the page) until it returns a truthy value."""
    deadline = time.time() + timeout_s
    last = None
    while time.time() < deadline:
        try:
            last = predicate()
        except Exception as exc:  # the element may be re-rendering between polls
            last = exc
        if last and not isinstance(last, Exception):
            return last
        page.wait_for_timeout(100)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


VIEW_SWITCH = '[data-testid="stButtonGroup"] [role="radio"]'


def tab_counts(page) -> dict[str, int]:
    """View name -> count for the Entities/Relations/... views of the first result (a map-reduce mode's
    "Map-reduce: 3 batches, 2 points" as ``Batches`` and ``Points``)."""
    out: dict[str, int] = {}
    for text in page.locator(VIEW_SWITCH).all_inner_texts():
        text = text.strip()
        match = re.match(r"^(.+?) \((\d+)\)$", text)
        stages = re.match(r"^\D+?(\d+)\D+(\d+)\D*$", text)
        if match and match.group(1) not in out:
            out[match.group(1)] = int(match.group(2))
        elif stages and "Batches" not in out:
            out["Batches"], out["Points"] = int(stages.group(1)), int(stages.group(2))
    return out


def choose_option(page, label: str, option: str) -> None:
    """Pick ``option`` in the selectbox labelled ``label``."""
    page.get_by_test_id("stSelectbox").filter(has_text=label).first.click()
    page.get_by_role("option", name=option, exact=True).first.click()


def settle(page, timeout_s: float = 60.0) -> None:
    """Wait until the script run an action started is over (no "Running…" widget for ~0.4 s)."""
    page.wait_for_timeout(250)
    deadline = time.time() + timeout_s
    quiet = 0
    while time.time() < deadline and quiet < 4:
        quiet = quiet + 1 if page.get_by_test_id("stStatusWidget").count() == 0 else 0
        page.wait_for_timeout(100)


def open_results(page, url: str) -> None:
    """Go to an Explore link and wait until its result views are drawn and the page is still."""
    page.goto(url)
    wait_until(page, lambda: tab_counts(page), timeout_s=180, what="the result views")
    settle(page)
