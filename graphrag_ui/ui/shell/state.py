"""Shared app state: which index is open, the UI language, cached read-only resources.

The index and the embedder are loaded once per process (``st.cache_resource``) and never mutated,
so one session's import or build cannot disturb another session's query: new indexes are written
atomically to new folders and only then listed.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import uuid
from pathlib import Path

import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.file_version import Version, version
from graphrag_ui.index.cache import KEPT_INDEXES
from graphrag_ui.index.model import Index
from graphrag_ui.ui.shell.escape import md_escape, shown_error
from graphrag_ui.ui.shell.language import t

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = {"sample:en": ROOT / "data" / "sample" / "en", "sample:zh": ROOT / "data" / "sample" / "zh"}


def app_home() -> Path:
    """Where the app keeps its own files (registered indexes, answer cache); never inside an index."""
    home = Path(os.environ.get("GRAPHRAG_UI_HOME", Path.home() / ".graphrag_ui"))
    home.mkdir(parents=True, exist_ok=True)
    return home


def _registry_file() -> Path:
    return app_home() / "indexes.json"


def registered_indexes() -> dict[str, str]:
    """User-added index folders: label -> path."""
    try:
        data = json.loads(_registry_file().read_text(encoding="utf-8"))
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def register_index(label: str, path: str | Path) -> str:
    """Add an index folder to the picker.

    Read, change and rewrite happen under an exclusive ``flock`` on ``indexes.json.lock`` (sessions are
    threads of one server, and several app processes may share a home), and the new file replaces the
    old one atomically from a private temporary name: without the lock, 83 of 300 concurrent
    registrations were lost (each rewrote the list it had read before the others wrote theirs). A label
    that already names another folder is never re-pointed (another analyst's index): ``label-2`` is used."""
    registry = _registry_file()
    fd = os.open(registry.with_name(registry.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        entries = registered_indexes()
        folder, base, n = str(Path(path).resolve()), label, 1
        while entries.get(label, folder) != folder:  # the label names another folder: never re-point it
            n += 1
            label = f"{base}-{n}"
        key = f"path:{label}"
        entries[label] = folder
        tmp = registry.with_name(f".{registry.name}.{uuid.uuid4().hex[:8]}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(entries, ensure_ascii=False, indent=2))
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(registry)
    finally:
        os.close(fd)  # releases the lock
    return key


def index_choices() -> dict[str, Path]:
    """Picker key -> index folder (bundled samples first)."""
    choices = {key: folder / "index" for key, folder in SAMPLES.items() if (folder / "index").is_dir()}
    for label, path in registered_indexes().items():
        choices[f"path:{label}"] = Path(path)
    return choices


def choice_label(key: str) -> str:
    if key == "sample:en":
        return t("Sample · English")
    if key == "sample:zh":
        return t("Sample · 中文（跑步与睡眠）")
    return key.split(":", 1)[1]


# the caller shows the spinner in the UI language; an index the cache lets go forgets its per-index caches
_LOADED: set[tuple[str, float, str]] = set()  # what ``_load`` holds now (a spinner only for the others)


def _released(index: Index) -> None:
    """The cache let ``index`` go: close it, and its next load shows the spinner again."""
    _LOADED.difference_update({key for key in _LOADED if key[0] == index.path})
    index.close()


@st.cache_resource(max_entries=KEPT_INDEXES, show_spinner=False, on_release=_released)
def _load(path: str, stamp: float, vectors: str = "local") -> Index:
    from graphrag_ui.retrieval.prepare import open_index

    index = open_index(path, vectors)  # prepared: the first question then costs what the next ones do
    _LOADED.add((path, stamp, vectors))
    return index


def on_chroma_server(path: str | Path) -> bool:
    """Whether the index's manifest names chroma server collections (then its vectors can be searched there).
    Read once per version of the manifest: Explore asks on every move."""
    manifest = Path(path) / "manifest.json"
    seen = version(manifest)
    return seen is not None and _names_chroma_server(str(manifest), seen)


@functools.lru_cache(maxsize=64)
def _names_chroma_server(manifest: str, seen: Version) -> bool:
    """``on_chroma_server`` for one version of a manifest (``base.file_version``: the cache's key)."""
    try:
        storage = json.loads(Path(manifest).read_text(encoding="utf-8")).get("storage", {})
    except (OSError, ValueError, AttributeError):
        return False
    chroma = storage.get("chroma") if isinstance(storage, dict) else None
    return isinstance(chroma, dict) and chroma.get("mode") == "server" and bool(chroma.get("collections"))


def index_version(path: str | Path) -> float:
    """When the index at ``path`` was last written (its manifest is written last, atomically)."""
    manifest = Path(path) / "manifest.json"
    return manifest.stat().st_mtime if manifest.exists() else 0.0


def vectors_engine(path: Path) -> str:
    """``server`` when Explore's vector-search choice (``?vectors=server``) asks for it and the index has
    server collections: the frame then opens the index without reading its vector matrices at all."""
    wanted = st.session_state.get("vectors") or st.query_params.get("vectors")
    return "server" if wanted == "server" and on_chroma_server(path) else "local"


def load_index(path: Path, vectors: str = "local") -> Index:
    """The index at ``path``, loaded once per process, per on-disk version and per vector engine; the
    spinner only while one loads (a spinner starts a timer thread on every full run, 10-20 ms on a busy
    machine, for an index the cache already holds)."""
    key = (str(path), index_version(path), vectors)
    if key in _LOADED:
        return _load(*key)
    with st.spinner(t("Loading index…")):
        return _load(*key)


def seed_widget(key: str, value: str) -> None:
    """Start a URL-bound text widget at ``value`` without making it the widget default.

    A bound widget leaves its default out of the URL, and a page opened from a URL that lacks the
    key showed an empty box while the script still used the default. Seeding the session instead
    keeps the value in the URL, so a shared link always carries the question.
    """
    if key not in st.session_state and key not in st.query_params:
        st.session_state[key] = value


def open_index_next_run(key: str, message: str) -> None:
    """Select ``key`` in the picker on the next run (a widget's value cannot change after it is drawn)."""
    st.session_state["_pending_index"] = key
    st.session_state["_flash"] = message


def pop_flash() -> str | None:
    return st.session_state.pop("_flash", None)


def sidebar_frame() -> tuple[Index | None, str]:
    """Language switch and index picker (both in the URL); returns (index or None, index key).

    Before any widget draws, the link's values are kept (``url_notices.remember_url``): a language or
    index the app does not have becomes a notice above the page, naming it and what was opened instead.
    Then the question follows the analyst across pages (``question.follow``).
    """
    from graphrag_ui.ui.shell.language_picker import language_picker
    from graphrag_ui.ui.widgets import question, url_notices

    url_notices.remember_url()
    pending = st.session_state.pop("_pending_index", None)
    if pending:
        st.session_state["index"] = pending
    with st.sidebar:
        language_picker()
        choices = index_choices()
        if not choices:
            st.error(t("No index found: build one on the Index page."))
            return None, ""
        key = st.selectbox(
            t("Index"), list(choices), key="index", bind="query-params", placeholder=t("Choose an option")
        )
        st.caption(md_escape(choice_label(key)))
    url_notices.check_frame(list(choices), choice_label(key))
    url_notices.show(url_notices.frame_notices())
    index = _open(choices[key], key)
    question.follow(key, index, choice_label(key), suggested_questions(key))
    return index, key


def _open(path: Path, key: str) -> Index | None:
    """The picked index, or None after one error line in the main area saying what to do."""
    if key.startswith("path:") and not path.exists():
        st.error(
            t(
                "The index {label} is registered at {path}, which does not exist on this machine (a folder of "
                "another machine, or a disk that is not mounted): copy or mount it at that path, or pick "
                "another index in the sidebar.",
                label=md_escape(choice_label(key)),
                path=md_escape(str(path)),
            ),
            icon=":material/folder_off:",
        )
        return None
    try:
        return load_index(path, vectors_engine(path))
    except UserError as exc:
        st.error(shown_error(exc))
    except Exception as exc:  # a damaged folder must not take the page down
        st.error(
            t(
                "Could not open the index at {path}: {error}",
                path=md_escape(path),
                error=md_escape(f"{type(exc).__name__}: {exc}"),  # an unexpected fault: Python's own words, as data
            )
        )
    return None


def questions_for(index_key: str) -> list[dict]:
    folder = SAMPLES.get(index_key)
    path = folder / "questions.json" if folder else None
    if path is None or not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return []
    return data if isinstance(data, list) else data.get("questions", [])


def suggested_questions(index_key: str) -> list[str]:
    """The question texts of a sample's questions.json (none for other indexes)."""
    return [q.get("question", "") for q in questions_for(index_key) if isinstance(q, dict)]
