"""The server's start-up preload takes the first page run's imports and script compiling off the visitor."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner.script_cache import ScriptCache

from graphrag_ui.cli import serve

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "pages").glob("*.py"))


def test_page_imports_are_each_top_level_import_of_a_page_read_not_run(tmp_path):
    script = tmp_path / "page.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, json as js
            from graphrag_ui.ui.results import gold_view, mode_marks
            from . import sibling
            raise SystemExit("never run")

            def later():
                import this_is_imported_only_when_called
            """
        ),
        encoding="utf-8",
    )
    assert serve.page_imports(script) == [
        ("os", []),
        ("json", []),
        ("graphrag_ui.ui.results", ["gold_view", "mode_marks"]),
    ]
    explore = serve.page_imports(serve.START_PAGE)
    assert ("graphrag_ui.ui.results", ["gold_view", "mode_marks"]) in explore
    assert serve.START_PAGE in PAGES and len(PAGES) >= 7


def test_after_the_preload_imports_the_start_pages_run_imports_nothing_new():
    """In a fresh interpreter: after ``_import_pages`` the start page's own import statements find every
    module loaded already (on main the first Explore run imported gold_view, eval_set, metrics, layout, ...)."""
    child = textwrap.dedent(
        """
        import ast, sys
        from pathlib import Path
        from graphrag_ui.cli import serve

        serve._import_pages()
        before = set(sys.modules)
        tree = ast.parse(Path("pages/explore.py").read_text(encoding="utf-8"))
        code = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        exec(compile(ast.Module(body=code, type_ignores=[]), "explore.py", "exec"), {})
        print(sorted(set(sys.modules) - before), "litellm" in sys.modules)
        """
    )
    done = subprocess.run([sys.executable, "-c", child], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[] False"  # and no model client imported for it


def test_the_scripts_are_compiled_into_streamlits_own_cache(monkeypatch):
    cache = ScriptCache()
    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: True))
    monkeypatch.setattr(Runtime, "instance", classmethod(lambda cls: type("R", (), {"_script_cache": cache})()))
    serve._compile_scripts(wait_s=0)
    assert set(cache._cache) == {str(serve.APP), *map(str, PAGES)}
    assert cache.get_bytecode(str(serve.START_PAGE)) is cache._cache[str(serve.START_PAGE)]  # served, not redone


def test_without_a_runtime_or_its_cache_compiling_is_left_to_the_first_run(monkeypatch):
    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: False))
    serve._compile_scripts(wait_s=0)  # no server: returns at once
    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: True))
    monkeypatch.setattr(Runtime, "instance", classmethod(lambda cls: object()))
    serve._compile_scripts(wait_s=0)  # a Streamlit release without ``_script_cache``: nothing to warm


def test_the_start_indexs_readiness_and_its_first_questions_retrieval_are_done_before_the_first_view(monkeypatch):
    """Issue 29 (a fresh server's first view): the import report and each mode's readiness are kept on the
    start index (the page's first run asked for them, importing the importers), and the start question's
    retrieval ran once (the index's lazy tables and the question's vector)."""
    from graphrag_ui.index import store
    from graphrag_ui.services import query, readiness

    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    asked: list[tuple[str, str]] = []
    real = query.run_query
    monkeypatch.setattr(
        query, "run_query", lambda ix, mode, q, values: asked.append((mode, q)) or real(ix, mode, q, values)
    )
    serve._warm_first_view(index, "sample:en")
    from graphrag_ui.retrieval.registry import mode_names
    from graphrag_ui.ui.shell import state

    assert asked == [(mode_names()[0], state.suggested_questions("sample:en")[0])]
    monkeypatch.setattr(readiness, "_readiness", lambda ix: (_ for _ in ()).throw(AssertionError("worked out again")))
    facts, modes = readiness.kept_readiness(index)  # kept from the preload: not worked out on the visitor's time
    assert facts.counts and len(modes) == len(mode_names())


def test_a_failing_preload_says_one_line_without_a_traceback_or_a_key(monkeypatch, caplog):
    """The terminal gets what failed in one line (no traceback), with a key in the error's text redacted."""
    from graphrag_ui.ui.shell import state

    secret = "sk-" + "a1b2c3d4e5f6" * 4
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setattr(state, "index_choices", lambda: (_ for _ in ()).throw(OSError(f"boom {secret}")))
    with caplog.at_level("WARNING", logger="graphrag_ui.cli.serve"):
        serve.preload()
    (record,) = [r for r in caplog.records if r.name == "graphrag_ui.cli.serve"]
    assert "preloading failed (OSError: boom" in record.getMessage()
    assert secret not in record.getMessage() and record.exc_info is None


def test_the_default_index_is_warmed_only_while_no_session_opens_another(monkeypatch, tmp_path):
    """A session that opens another index first (a 100k-entity one) keeps the cores: the preload still opens
    the default index but leaves its first view and the other samples to a session that asks for them."""
    from graphrag_ui.index import store_load
    from graphrag_ui.ui.shell import state

    default, zh, other = tmp_path / "default", tmp_path / "zh", tmp_path / "other"
    warmed: list[str] = []
    monkeypatch.setattr(state, "index_choices", lambda: {"sample:en": default, "sample:zh": zh, "path:other": other})
    monkeypatch.setattr(state, "index_version", lambda path: 0.0)
    monkeypatch.setattr(state, "_load", lambda path, stamp, vectors: store_load._BEGUN.add(path) or _Opened())
    monkeypatch.setattr(serve, "_warm_embedder_of", lambda folder: warmed.append(f"embedder {folder.name}"))
    monkeypatch.setattr(serve, "_warm_first_view", lambda index, key: warmed.append(f"first view {key}"))
    monkeypatch.setattr(serve, "_import_pages", lambda: warmed.append("pages"))
    monkeypatch.setattr(serve, "_compile_scripts", lambda: warmed.append("scripts"))
    monkeypatch.setattr(serve, "_after_first_views", lambda: warmed.append("quiet"))
    monkeypatch.setattr(serve, "_import_later_views", lambda: warmed.append("later views"))
    monkeypatch.setattr(store_load, "_BEGUN", set())
    serve.preload()
    assert warmed == [
        "embedder default",
        "pages",
        "first view sample:en",
        "scripts",
        "quiet",
        "first view sample:zh",
        "later views",
    ]

    warmed.clear()
    monkeypatch.setattr(store_load, "_BEGUN", {str(other.absolute())})  # a session began to open the other one
    serve.preload()
    assert warmed == ["embedder default", "pages", "scripts", "quiet", "later views"]  # every first view's needs


class _Opened:
    class manifest:  # noqa: N801 - the one attribute the preload reads
        embedder = "hash"


def test_the_first_views_needs_are_met_before_modules_only_later_views_import():
    """Issue 29 (a fresh server's first view, opened at once): in a fresh interpreter the preload opens the
    start index, imports the start page and retrieves its start question with altair not yet imported (the
    Budget and Sweep charts' ~0.3 s, which on main came first and held the GIL while the first view waited),
    then, once no page has run for a while, opens the Chinese sample as well and imports altair."""
    child = textwrap.dedent(
        """
        import sys
        from graphrag_ui.cli import serve
        from graphrag_ui.ui.shell import state

        seen = []
        real_load, real_warm, real_pages = state._load, serve._warm_first_view, serve._import_pages

        def load(path, *rest):
            seen.append(("open " + path.split("/")[-2], "altair" in sys.modules))
            return real_load(path, *rest)

        def warm(index, key):
            seen.append(("first view " + key, "altair" in sys.modules))
            return real_warm(index, key)

        def pages():
            seen.append(("pages", "altair" in sys.modules))
            return real_pages()

        state._load, serve._warm_first_view, serve._import_pages = load, warm, pages
        serve._compile_scripts = lambda: None  # no server here: nothing to compile into
        serve._after_first_views = lambda: seen.append(("quiet", "altair" in sys.modules))
        serve.preload()
        print(seen, "altair" in sys.modules)
        """
    )
    done = subprocess.run([sys.executable, "-c", child], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (
        done.stdout.strip().splitlines()[-1]
        == str(
            [
                ("open en", False),
                ("pages", False),
                ("first view sample:en", False),
                ("quiet", False),
                ("open zh", False),
                ("first view sample:zh", False),
            ]
        )
        + " True"
    )


def test_the_later_views_wait_for_a_page_run_in_progress_to_end(monkeypatch):
    """``_after_first_views`` returns only once the page run that began before it ended (and was quiet)."""
    import threading

    from graphrag_ui.ui.shell import activity

    events: list[str] = []
    running, release = threading.Event(), threading.Event()

    def page() -> None:
        with activity.page_run():
            running.set()
            release.wait(30)
            events.append("page run ended")

    thread = threading.Thread(target=page)
    thread.start()
    running.wait(30)
    threading.Timer(0.3, release.set).start()
    serve._after_first_views(quiet_s=0.05, most_s=30)
    events.append("later views")
    thread.join()
    assert events == ["page run ended", "later views"]


def test_the_start_page_imports_no_answer_module_before_there_is_an_answer():
    """A first view has no answer: the start page's imports leave the answer's citation tracing and model
    call modules (~40 ms, more on a loaded machine, on the way to a first view opened at once) to the
    first answer, which imports them where it shows one."""
    child = textwrap.dedent(
        """
        import sys
        from graphrag_ui.cli import serve

        serve._import_pages()
        print(sorted(m for m in sys.modules if m.startswith(("graphrag_ui.citations", "graphrag_ui.model_calls"))))
        """
    )
    done = subprocess.run([sys.executable, "-c", child], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_page_run_through_the_frame_is_counted_for_the_preloads_wait(app):
    """The frame counts each page run (``activity.page_run``): the preload's wait for quiet starts again
    from the end of a run that ended after its mark, and no run is left counted as in progress."""
    from graphrag_ui.base.timing import elapsed_s, now
    from graphrag_ui.ui.shell import activity

    mark = now()
    app(index="sample:en", mode="nano.local")
    since_mark = elapsed_s(mark)  # read before: uncounted, the quiet would be at least this long
    assert 0.0 < activity.quiet_since(mark) < since_mark  # counted from the run's end, after the mark
