"""The server boundary in Debian's chromium against ``streamlit run`` (issue 27): what an outsider with a
browser can make the server read, write, replace or log in to, every non-local request blocked.

One server with the operator's setting (one allowed source folder holding a copy of a golden source
and the samples; no trusted database host) and the server's own PostgreSQL password in its
environment; a second one with write actions off. Each case reads what the page shows: one alert, no
traceback, and the same words whether a path exists or not.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.support.browser_support import CHROMIUM, ROOT, new_page, settle, streamlit_app, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)

from tests.support.pg_stub import password_stub  # noqa: E402

SERVER_PW = "srv-PGPW-browser-61"
VISITOR_PW = "vis-PW-browser-62"
GRAPH = ROOT / "tests" / "goldens" / "lightrag-pg" / "en" / "graph_chunk_entity_relation.graphml"
DOC = "Mara Quay keeps the harbour lamp at Greywater. The Lantern Guild pays Mara Quay each winter.\n" * 3


@pytest.fixture(scope="module")
def allowed(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("allowed")
    shutil.copytree(ROOT / "tests" / "goldens" / "nano" / "en", folder / "nano")
    shutil.copy(GRAPH, folder / "graph.graphml")
    return folder


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def app_url(allowed, home):
    roots = f"{allowed}:{ROOT / 'data' / 'sample'}"
    env = {"GRAPHRAG_UI_SOURCE_ROOTS": roots, "PGPASSWORD": SERVER_PW, "GRAPHRAG_UI_DB_HOSTS": ""}
    with streamlit_app(env=env, home=home) as url:
        yield url


@pytest.fixture()
def blocked():
    urls: list[str] = []
    yield urls
    assert urls == [], f"requests left the machine: {urls[:5]}"


@pytest.fixture()
def page(browser, app_url, blocked):
    page = new_page(browser, blocked)
    page.goto(app_url + "/index?index=sample:en")
    page.get_by_role("tab", name="Import").wait_for(timeout=60_000)
    settle(page)
    yield page
    assert page.get_by_test_id("stException").count() == 0, "a traceback reached the page"
    page.close()


def tab(page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()
    settle(page)


def fill(page, label: str, value: str) -> None:
    box = page.locator(f'input[aria-label="{label}"]:visible').first
    box.fill(value)
    box.press("Enter")
    settle(page)


def click(page, name: str) -> None:
    page.locator("button:visible").filter(has_text=re.compile(rf"^{re.escape(name)}$")).first.click()
    settle(page)


def alerts(page) -> list[str]:
    return [t.strip() for t in page.locator('[data-testid="stAlert"]:visible').all_inner_texts()]


LAST_JOB = re.compile(r"^(Import into \S+ failed: |Building \S+ failed: |\S+ was (imported|built) on the server: )")


def one_alert(page, containing: str) -> str:
    """The one alert holding ``containing``; beside it at most the end of the last import or build, which runs
    as the server's job and is shown to every tab (issue 29)."""
    shown = wait_until(page, lambda: [a for a in alerts(page) if containing in a], what=containing)
    rest = [a for a in alerts(page) if a not in shown and not LAST_JOB.match(a)]
    assert len(shown) == 1 and rest == [], alerts(page)
    return shown[0]


@pytest.mark.parametrize("tab_name", ["Import", "Open folder"])
def test_a_path_outside_the_roots_reads_the_same_whether_it_exists(page, tab_name):
    field, button = (
        ("Source folder (working dir / GraphRAG output)", "Import")
        if tab_name == "Import"
        else ("Index folder (made by build, import or reembed)", "Open")
    )
    seen = []
    for path in ("/etc", "/etc/no-such-folder-here", "/etc/shadow", "/nonexistent/shadow"):
        tab(page, tab_name)
        fill(page, field, path)
        click(page, button)
        seen.append(one_alert(page, "does not let the browser read").replace(repr(path), "PATH"))
    assert len(set(seen)) == 1 and "PATH" in seen[0], seen


def test_the_servers_password_never_reaches_a_host_typed_in_the_browser(page, allowed):
    with password_stub() as (port, seen):
        tab(page, "Import")
        fill(page, "Source folder (working dir / GraphRAG output)", f"postgresql://app@127.0.0.1:{port}/lightrag?"
             f"workspace=w&graph={allowed / 'graph.graphml'}")  # fmt: skip
        click(page, "Import")
        text = one_alert(page, "cannot connect to PostgreSQL")
    assert seen.connections and seen.passwords == [], seen.connections
    assert SERVER_PW not in text


@pytest.mark.parametrize("query", ["&host=10.9.9.9", f"&password={VISITOR_PW}", f"&sslpassword={VISITOR_PW}"])
def test_a_query_override_is_refused_by_name_and_masked(page, allowed, query):
    with password_stub() as (port, seen):
        tab(page, "Import")
        url = f"postgresql://app@127.0.0.1:{port}/lightrag?workspace=w&graph={allowed / 'graph.graphml'}{query}"
        fill(page, "Source folder (working dir / GraphRAG output)", url)
        click(page, "Import")
        text = one_alert(page, "is not accepted here")
    assert seen.connections == [] and VISITOR_PW not in page.locator("body").inner_text()  # the box holds it: typed
    assert query[1:].split("=")[0] in text


def test_two_uploads_of_one_name_are_refused_by_name(page, home):
    tab(page, "Build from documents")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
        [
            {"name": "notes.txt", "mimeType": "text/plain", "buffer": DOC.encode()},
            {"name": "notes.txt", "mimeType": "text/plain", "buffer": DOC.upper().encode()},
        ]
    )
    settle(page)
    fill(page, "Name of the new index", "dupes")
    fill(page, "Embedder", "hash")
    click(page, "Build from documents")
    assert "notes.txt: two uploads have this name" in one_alert(page, "two uploads")
    assert not (home / "indexes" / "dupes").exists()


def test_building_over_an_index_asks_first_and_names_it(page, home):
    tab(page, "Build from documents")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
        [{"name": "a.txt", "mimeType": "text/plain", "buffer": DOC.encode()}]
    )
    settle(page)
    fill(page, "Name of the new index", "team")
    fill(page, "Embedder", "hash")
    click(page, "Build from documents")
    wait_until(page, lambda: (home / "indexes" / "team" / "manifest.json").is_file(), what="the first build")
    page.goto(page.url.split("?")[0] + "?index=sample:en")
    settle(page)
    tab(page, "Build from documents")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
        [{"name": "b.txt", "mimeType": "text/plain", "buffer": DOC.upper().encode()}]
    )
    settle(page)
    fill(page, "Name of the new index", "team")
    fill(page, "Embedder", "hash")
    before = (home / "indexes" / "team" / "manifest.json").read_bytes()
    box = page.locator('[data-testid="stCheckbox"]:visible').filter(has_text="Replace the index already there")
    assert "team: 1 documents" in box.inner_text() and "embedder hash" in box.inner_text()
    click(page, "Build from documents")
    assert "already there" in one_alert(page, "already there")
    assert (home / "indexes" / "team" / "manifest.json").read_bytes() == before


def test_a_sample_opened_by_path_cannot_be_re_embedded(page):
    sample = ROOT / "data" / "sample" / "en" / "index"
    manifest = json.loads((sample / "manifest.json").read_text(encoding="utf-8"))
    tab(page, "Open folder")
    fill(page, "Index folder (made by build, import or reembed)", str(sample))
    click(page, "Open")
    wait_until(page, lambda: "index=path%3Aindex" in page.url or "index=path:index" in page.url, what="opened")
    tab(page, "Re-embed")
    wait_until(page, lambda: [a for a in alerts(page) if "opened by path is read-only" in a], what="read-only")
    assert page.locator("button:visible").filter(has_text=re.compile("^Re-embed$")).count() == 0
    assert json.loads((sample / "manifest.json").read_text(encoding="utf-8")) == manifest


def test_write_actions_off_draw_no_write_button(browser, blocked, tmp_path):
    env = {"GRAPHRAG_UI_WRITE_ACTIONS": "off"}
    with streamlit_app(env=env, home=tmp_path / "home") as url:
        page = new_page(browser, blocked)
        page.goto(url + "/index?index=sample:en")
        page.get_by_role("tab", name="Import").wait_for(timeout=60_000)
        settle(page)
        for name in ("Import", "Build from documents"):
            tab(page, name)
            assert "Import, build and re-embed are off" in one_alert(page, "are off")
            assert page.locator("button:visible").filter(has_text=re.compile(f"^{name}$")).count() == 0
        page.close()
