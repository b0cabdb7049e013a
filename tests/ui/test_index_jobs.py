"""Import and build run as server jobs (issue 29, item 8): independent of the tab that started them, shown to
whoever opens the Index page, one job per folder at a time, and their end (done, failed) said in each page.

Each job here is held (``held``) until the test has looked at it running: a real import of a golden folder
may end before the next click.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.index.importers import command
from graphrag_ui.services import jobs
from graphrag_ui.ui.shell.escape import live_markup
from graphrag_ui.ui.shell.state import registered_indexes
from tests.conftest import ROOT
from tests.support.ui_fixtures import plain
from tests.ui.test_app import finish_jobs, wait_for_jobs

NANO = ROOT / "tests" / "goldens" / "nano" / "en"
DOC = "Mara Quay keeps the harbour lamp at Greywater. The Lantern Guild pays Mara Quay each winter.\n" * 3
HOSTILE = "<img src=x onerror=alert(1)> [run](javascript:alert(1)) **bold** ![i](http://evil.example/x.png)"


@pytest.fixture()
def held(monkeypatch):
    """Imports wait for ``release`` after their first progress report (then run for real)."""
    release, real = threading.Event(), command.import_source

    def import_source(kind, src, out, embedder=None, progress=None, **kwargs):
        progress("reading the source", 1, 4)
        if not release.wait(60):
            raise TimeoutError("the test never released the import")
        return real(kind, src, out, embedder, progress, **kwargs)

    monkeypatch.setattr(command, "import_source", import_source)
    yield release
    release.set()


@pytest.fixture()
def allowed(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHRAG_UI_SOURCE_ROOTS", f"{ROOT / 'tests'}:{tmp_path}")
    return tmp_path


def start_import(at, src: Path | str, name: str) -> None:
    at.text_input(key="imp_src").set_value(str(src)).run()
    at.text_input(key="imp_name").set_value(name).run()
    at.selectbox(key="imp_emb").set_value("hash").run()
    at.button(key="imp_btn").click().run()


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def test_an_import_outlives_its_tab_and_another_page_opens_it(app, allowed, held):
    """Started in one session, seen running from a second one (another tab, or the analyst back after
    closing the first), which sees it done and opens the new index with a button; the first session, back,
    opens it by itself once."""
    first = app("pages/index.py", index="sample:en")
    start_import(first, NANO, "golden-nano")
    assert not first.error, texts(first.error)
    assert [(s.label, s.state) for s in first.status] == [("Importing golden-nano…", "running")]
    second = app("pages/index.py", index="sample:en")  # the first tab may be gone: the job is the server's
    assert [(s.label, s.state) for s in second.status] == [("Importing golden-nano…", "running")]
    assert any("closing the tab does not stop it" in c for c in texts(second.caption)), texts(second.caption)
    assert any(p.proto.text.startswith("reading the source: 1/4") for p in second.get("progress"))
    held.set()
    finish_jobs(second)
    assert not second.status and not second.error, texts(second.error)
    done = texts(second.success)
    assert any(s.startswith("golden-nano was imported on the server: detected nano · ") for s in done), done
    assert any("It is listed in the sidebar picker." in s for s in done)
    assert registered_indexes()["golden-nano"].endswith("/indexes/golden-nano")  # the job registered it
    second.button(key=f"open_job_{jobs.recent('import')[0].id}").click().run()
    assert second.query_params["index"] in ("path:golden-nano", ["path:golden-nano"])
    assert any("Ready: golden-nano is open now" in s for s in texts(second.success))
    assert not any("was imported on the server" in s for s in texts(second.success))  # opened: not offered again
    first.run()  # the analyst who started it comes back: it opens by itself, as it did in the page
    assert first.query_params["index"] in ("path:golden-nano", ["path:golden-nano"])
    assert any("Ready: golden-nano is open now" in s for s in texts(first.success))
    first.run()
    assert not any("golden-nano" in s for s in texts(first.success))  # once


def test_a_second_start_on_the_same_folder_is_refused_by_name_whatever_the_job(app, allowed, held, tmp_path):
    """The same import twice, then a build of the same name: refused naming the folder and the running job;
    the folder gets only the first job's index."""
    first = app("pages/index.py", index="sample:en")
    start_import(first, NANO, "team")
    second = app("pages/index.py", index="sample:en")
    start_import(second, NANO, "team")
    (refused,) = texts(second.error)
    folder = tmp_path / "home" / "indexes" / "team"
    assert plain(refused).startswith(f"a job is already writing {folder}: import, started ")
    second.file_uploader(key="b_files").set_value([("a.txt", DOC.encode(), "text/plain")]).run()
    second.text_input(key="b_name").set_value("team").run()
    second.text_input(key="b_emb").set_value("hash").run()
    second.button(key="b_btn").click().run()
    (refused,) = texts(second.error)
    assert plain(refused).startswith(f"a job is already writing {folder}: import, ") and "wait for it" in refused
    assert [j.kind for j in jobs._JOBS] == ["import"]
    held.set()
    finish_jobs(first)
    assert not first.error, texts(first.error)
    second.run()  # after the first ended, the build may start (it asks before replacing the new index)
    second.checkbox(key="b_replace").check().run()
    second.button(key="b_btn").click().run()
    finish_jobs(second)
    assert not second.error, texts(second.error)
    assert any("Ready: team is open now" in s for s in texts(second.success))


def test_two_starts_at_once_make_one_job():
    """Sixteen threads start a job on one folder at the same instant: one runs, fifteen are refused by name."""
    target, gate, release = "/tmp/graphrag-ui-two-at-once", threading.Barrier(16), threading.Event()
    started, refused = [], []

    def start(kind: str) -> None:
        gate.wait()
        try:
            started.append(jobs.start(kind, target, lambda progress: release.wait(10)))
        except UserError as exc:
            refused.append(str(exc))

    threads = [threading.Thread(target=start, args=(("import", "build", "reembed")[i % 3],)) for i in range(16)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert len(started) == 1 and len(refused) == 15
        said = jobs.KINDS[started[0].kind]  # the winner's kind as the message names it ("re-embed" for reembed)
        assert all(r.startswith(f"a job is already writing {target}: {said}, started ") for r in refused), refused
    finally:
        release.set()
        wait_for_jobs()
        jobs._JOBS.clear()


def test_a_failing_import_says_why_in_one_line_and_writes_nothing(app, allowed, monkeypatch, tmp_path):
    """A fault the importer did not foresee: one escaped line with the import's name, no traceback, no
    folder, nothing registered; the analyst may start again at once."""

    def broken(*args, **kwargs):
        raise RuntimeError("<script>alert(1)</script> disk on fire")

    monkeypatch.setattr(command, "import_source", broken)
    at = app("pages/index.py", index="sample:en")
    start_import(at, NANO, "broken")
    finish_jobs(at)
    assert not at.exception and not at.status
    (said,) = texts(at.error)
    assert plain(said) == "Import into broken failed: RuntimeError: <script>alert(1)</script> disk on fire"
    assert live_markup(said) == [] and "Traceback" not in said
    assert not (tmp_path / "home" / "indexes" / "broken").exists() and registered_indexes() == {}
    monkeypatch.undo()  # the fault is gone: the same import again works, nothing of the first stands in its way
    monkeypatch.setenv("GRAPHRAG_UI_SOURCE_ROOTS", f"{ROOT / 'tests'}:{tmp_path}")
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    at.button(key="imp_btn").click().run()
    finish_jobs(at)
    assert not at.error, texts(at.error)
    assert any("Ready: broken is open now" in s for s in texts(at.success))


def test_a_failing_build_says_the_reason_and_its_advice(app):
    """The job's own refusal (an LLM extractor with no model) is said as the page said it before."""
    at = app("pages/index.py", index="sample:en")
    at.file_uploader(key="b_files").set_value([("a.txt", DOC.encode(), "text/plain")]).run()
    at.text_input(key="b_name").set_value("no-model").run()
    at.radio(key="b_extractor").set_value("llm").run()
    at.button(key="b_btn").click().run()
    finish_jobs(at)
    (said,) = texts(at.error)
    assert said.startswith("Building no-model failed: LLM extraction needs a model — configure one"), said


def test_a_hostile_source_path_is_shown_as_data(app, allowed, held, tmp_path):
    """A folder whose name is markup, imported: the running box, the refusal of a second start and the
    end all show it as typed, never as a tag, link or image."""
    src = tmp_path / HOSTILE
    shutil.copytree(NANO, src)
    at = app("pages/index.py", index="sample:en")
    start_import(at, src, "hostile")
    other = app("pages/index.py", index="sample:en")
    start_import(other, src, "hostile")
    shown = [*texts(other.caption), *texts(other.error), *(s.label for s in other.status)]
    typed = str(src)  # as the folder is named (a path keeps one slash of "//")
    assert any(typed in plain(c).replace("`", "") for c in texts(other.caption)), texts(other.caption)
    assert any(typed in plain(e).replace("`", "") for e in texts(other.error)), texts(other.error)
    for text in shown:
        assert live_markup(text) == [], text
    held.set()
    finish_jobs(other)
    for text in [*texts(other.success), *texts(other.error), *texts(other.markdown)]:
        assert live_markup(text) == [], text


def test_the_job_is_said_in_chinese(app, allowed, held):
    at = app("pages/index.py", index="sample:en")
    start_import(at, NANO, "zh-nano")
    seen = app("pages/index.py", index="sample:en", lang="zh")
    assert [s.label for s in seen.status] == ["正在导入 zh-nano…"]
    assert any("关闭标签页不会中止它" in c for c in texts(seen.caption)), texts(seen.caption)
    held.set()
    finish_jobs(seen)
    assert any(s.startswith("zh-nano 已在服务器上导入完成：识别为 nano · ") for s in texts(seen.success))
    assert [b.label for b in seen.button if b.key and b.key.startswith("open_job_")] == ["打开 zh-nano"]
