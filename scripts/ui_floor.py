"""Streamlit's own floor for bench_ui: a bare app (one slider, one 60-row ``st.dataframe``, one caption)
served by ``streamlit run`` on this machine, and the time from a slider key press to its caption.

What our Explore page costs above this floor is ours; the floor itself (websocket round trip, script
rerun, React render of a grid) is Streamlit's and the browser's. bench_ui measures it in the same run
as our own numbers, so the ratios compare like with like on a noisy machine.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.browser_support import free_port, new_page, settle  # noqa: E402

APP = """
import pandas as pd
import streamlit as st

k = st.slider("top_k", 1, 200, 100, key="top_k")
st.dataframe(pd.DataFrame({"id": range(60), "label": [f"item {i * k}" for i in range(60)], "score": [i / k for i in range(60)]}))
st.caption(f"run: top_k={k} · 60 rows")
"""
CAPTION_JS = """(t) => [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
    .some((e) => e.innerText.startsWith('run:') && e.innerText.includes(t))"""


@contextlib.contextmanager
def floor_app(code: str = APP):
    """Yield the URL of the bare app (or of another bare Streamlit script, ``code``), served like ours
    (headless, no file watcher, loopback)."""
    with tempfile.TemporaryDirectory(prefix="ui-floor-") as tmp:
        script = Path(tmp) / "floor.py"
        script.write_text(code, encoding="utf-8")
        port = free_port()
        env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        args = ["--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true"]
        args += ["--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script), *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.time() + 60
            while time.time() < deadline:
                try:
                    if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read() == b"ok":
                        break
                except OSError:
                    time.sleep(0.2)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def floor_first_view(browser, after: float = 0.0) -> float:
    """Seconds from navigation to the bare app's caption on a server started for this one view, ``after``
    seconds after it answers its health check: the floor under our "first view, fresh server"."""
    with floor_app() as url:
        time.sleep(after)
        blocked: list[str] = []
        page = new_page(browser, blocked)
        page.set_viewport_size({"width": 1280, "height": 800})
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_function(CAPTION_JS, arg="top_k=100 ", timeout=120_000, polling=10)
        took = time.perf_counter() - start
        page.close()
    assert not blocked, blocked
    return took


CPU: dict[str, list[float]] = {}  # label -> Chrome main-thread CPU seconds per action (``cpu_of``)


def thread_time(page) -> float:
    """Chrome's main-thread CPU time of ``page`` so far (seconds): unlike wall time, a loaded machine barely
    inflates it, so per-action differences of it are the steadier evidence (bench_ui prints both)."""
    if not hasattr(page, "_cpu_session"):
        page._cpu_session = page.context.new_cdp_session(page)
        page._cpu_session.send("Performance.enable")
    metrics = page._cpu_session.send("Performance.getMetrics")["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "ThreadTime")


def cpu_of(label: str, page, before: float) -> None:
    """Record the main-thread CPU spent since ``before`` (an action and its drawing, once settled)."""
    CPU.setdefault(label, []).append(thread_time(page) - before)


def floor_runs(browser, url: str, runs: int, label: str | None = "floor") -> list[float]:
    """Seconds from each ArrowLeft on a bare app's top_k slider to its new caption (and its CPU, in
    ``CPU[label]``; ``label`` None: not recorded). The floor app's, or another bare script's with a top_k
    slider and a ``run: top_k=N`` caption (``ui_required_floor``)."""
    blocked: list[str] = []
    page = new_page(browser, blocked)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(url)
    page.wait_for_function(CAPTION_JS, arg="top_k=100 ", timeout=120_000)
    settle(page)
    slider = page.get_by_test_id("stSlider").filter(has_text="top_k").first.get_by_role("slider")
    value, times = 100, []
    for _ in range(runs):
        value -= 1
        slider.focus()
        cpu = thread_time(page)
        start = time.perf_counter()
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(CAPTION_JS, arg=f"top_k={value} ", timeout=60_000, polling=10)
        times.append(time.perf_counter() - start)
        settle(page)
        if label:
            cpu_of(label, page, cpu)
    page.close()
    assert not blocked, blocked
    return times
