"""Shared fixtures. Tests never touch the network: the offline switches are set before any import."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402

import graphrag_ui  # noqa: E402,F401  (sets the offline environment)

SAMPLES = ROOT / "data" / "sample"
GOLDENS = ROOT / "tests" / "goldens"


def numbered_cases(cases_jsonl: Path) -> list[tuple[str, dict]]:
    """Golden cases with ids ``<corpus>-<mode>-NN`` (NN counts within corpus and mode), as the
    differences docs name them."""
    import json

    cases, seen = [], {}
    for line in cases_jsonl.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        key = f"{case['corpus']}-{case['mode']}"
        seen[key] = seen.get(key, -1) + 1
        cases.append((f"{key}-{seen[key]:02d}", case))
    return cases


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture()
def no_network(monkeypatch):
    """Fail any attempt to open a non-loopback socket during the test."""
    import socket

    real_connect = socket.socket.connect

    def guarded(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and host not in {"127.0.0.1", "localhost", "::1"} and not host.startswith("/"):
            raise OSError(f"network disabled in tests: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    monkeypatch.setenv("NO_NETWORK", "1")
    yield


@pytest.fixture()
def serve(no_network):
    """The local OpenAI-compatible test server (tests/support/llm_server.py), with the network otherwise closed."""
    from tests.support.llm_server import serve_fixture

    yield from serve_fixture()


@pytest.fixture()
def fast_backoff(monkeypatch):
    """Retry back-off of the model client shortened, for modules that exercise retries (usefixtures)."""
    from graphrag_ui.model_client import client

    monkeypatch.setattr(client, "BACKOFF_BASE", 0.01)


@pytest.fixture()
def ui_language(monkeypatch):
    """``ui_language("zh")``: the UI language a UI function reads when a test calls it outside a page (the
    session's ``lang``, which the sidebar's switch sets in the app); back to English after the test."""
    import streamlit as st

    def use(lang: str) -> None:
        monkeypatch.setitem(st.session_state, "lang", lang)

    return use


# one default home per xdist worker (the controller's value is inherited: replaced unless someone chose another)
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
_SHARED_HOME = str(ROOT / ".pytest_cache" / "graphrag_ui_home")
if os.environ.get("GRAPHRAG_UI_HOME", _SHARED_HOME) == _SHARED_HOME:
    os.environ["GRAPHRAG_UI_HOME"] = _SHARED_HOME + (f"-{_WORKER}" if _WORKER else "")


@pytest.fixture()
def app(tmp_path, monkeypatch):
    """The app headless (AppTest) with a fresh home and no model configured: ``app(page=None, **url_params)``
    opens it at a URL with those query parameters (then switches to ``page``) and fails on any exception."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    for var in ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_LLM_API_BASE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(ROOT)

    def make(page: str | None = None, **params: str) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
        for key, value in params.items():
            at.query_params[key] = value
        at.run()
        if page:
            at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    yield make
    _forget_jobs()


def _forget_jobs(timeout: float = 60.0) -> None:
    """After a page test, the server's jobs (graphrag_ui.services.jobs) are waited for and forgotten: the
    next test is a fresh server, whose Index page shows no import or build of another test."""
    import time

    from graphrag_ui.services import jobs

    deadline = time.time() + timeout
    while any(j.state == jobs.RUNNING for j in jobs._JOBS) and time.time() < deadline:
        time.sleep(0.05)
    with jobs._LOCK:
        jobs._JOBS.clear()


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium through playwright, one per test module (each browser test module skips itself
    when playwright or chromium is missing, before this is asked for)."""
    from playwright.sync_api import sync_playwright

    from tests.support.browser_support import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


# ------------------------------------------------------------------ two workers for the whole suite
# `make test` (no paths given) runs on two pytest-xdist workers (pyproject: -n auto --dist loadscope): the
# browser tests as one unit on one worker, first and in file order, while the other worker runs the rest a
# file at a time (a module's fixtures start once). A run of chosen files or folders stays in one process.
BROWSER = "tests/browser/"
FRESH_SERVERS = BROWSER + "test_browser_pages.py"  # a fresh server per page and no timing: may run beside them


def _unit(nodeid: str) -> str:
    """The unit of work a test belongs to: no two browser modules at once (chromium timing checks such as
    the 100k-entity pick would share the two cores), save the fresh-server one."""
    path = nodeid.split("::", 1)[0]
    if path == FRESH_SERVERS:
        return "browser-fresh-servers"
    return "browser" if path.startswith(BROWSER) else path


def pytest_xdist_auto_num_workers(config) -> int:
    return 2 if config.args_source == pytest.Config.ArgsSource.TESTPATHS else 0


def pytest_xdist_make_scheduler(config, log):
    """xdist's loadscope with our units (its loadgroup marks no longer reach pytest 9's node ids), in the
    collection order the workers sort below (the longest unit first) rather than by test count."""
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit(nodeid)

    config.option.loadscopereorder = False
    return ByUnit(config, log)


def pytest_collection_modifyitems(config, items) -> None:
    if _WORKER:  # the browser unit first (it is the longest), then the fresh-server one, then file order
        order = {"browser": 0, "browser-fresh-servers": 1}
        items.sort(key=lambda item: order.get(_unit(item.nodeid), 2))
