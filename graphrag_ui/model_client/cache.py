"""Answer and keyword cache: a hash of everything that shapes a model call -> its stored reply.

Like LightRAG's LLM cache, the key hashes the mode, the query, the response type, top_k, chunk_top_k,
the token budgets, the keywords, the user prompt and the model. Unlike LightRAG it also hashes the
exact messages sent, so a rebuilt index or an edited prompt never returns a stale answer.
The cache is one SQLite file beside the app's settings (``$GRAPHRAG_UI_HOME`` or ``~/.graphrag_ui``),
never inside an index; it stores reply texts and token counts, never a key or a settings object.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from graphrag_ui.base.i18n import msg

CACHE_FILE = "llm_cache.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def app_home() -> Path:
    """Folder for the app's own files: ``$GRAPHRAG_UI_HOME`` or ``~/.graphrag_ui``."""
    home = os.environ.get("GRAPHRAG_UI_HOME", "").strip()
    return Path(home).expanduser() if home else Path.home() / ".graphrag_ui"


def args_hash(**fields: Any) -> str:
    """Stable sha256 of keyword fields (order-independent, unicode kept)."""
    text = json.dumps(fields, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class LLMCache:
    """A small key -> JSON store in SQLite; safe to share between Streamlit's threads."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else app_home() / CACHE_FILE
        self._lock = threading.Lock()
        self._ready = False

    def _connect(self) -> sqlite3.Connection:
        from graphrag_ui.base.errors import UserError

        try:
            if not self._ready:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=10)
            if not self._ready:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(_SCHEMA)
                conn.commit()
                self._ready = True
            return conn
        except (OSError, sqlite3.Error) as exc:
            raise UserError(
                msg("cannot open the answer cache ({error})", error=str(exc)),
                str(self.path),
                msg("set GRAPHRAG_UI_HOME to a writable folder, or turn the cache off"),
            ) from None

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            conn = self._connect()
            try:
                row = conn.execute("SELECT value FROM llm_cache WHERE key = ?", (key,)).fetchone()
            finally:
                conn.close()
        if row is None:
            return None
        try:
            value = json.loads(row[0])
        except json.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, kind: str, model: str, value: dict[str, Any]) -> None:
        data = json.dumps(value, ensure_ascii=False)
        with self._lock:
            conn = self._connect()
            try:
                conn.execute(
                    "INSERT OR REPLACE INTO llm_cache (key, kind, model, value, created) VALUES (?, ?, ?, ?, ?)",
                    (key, kind, model, data, time.time()),
                )
                conn.commit()
            finally:
                conn.close()

    def delete(self, keys: list[str]) -> None:
        """Forget these entries (absent ones are ignored)."""
        if not keys:
            return
        with self._lock:
            conn = self._connect()
            try:
                conn.executemany("DELETE FROM llm_cache WHERE key = ?", [(k,) for k in keys])
                conn.commit()
            finally:
                conn.close()

    def clear(self, kind: str | None = None) -> int:
        """Delete entries (all, or one kind); returns how many were removed."""
        with self._lock:
            conn = self._connect()
            try:
                if kind:
                    cur = conn.execute("DELETE FROM llm_cache WHERE kind = ?", (kind,))
                else:
                    cur = conn.execute("DELETE FROM llm_cache")
                conn.commit()
                return cur.rowcount
            finally:
                conn.close()

    def stats(self) -> dict[str, int]:
        with self._lock:
            conn = self._connect()
            try:
                rows = conn.execute("SELECT kind, COUNT(*) FROM llm_cache GROUP BY kind").fetchall()
            finally:
                conn.close()
        return {kind: n for kind, n in rows}


_caches: dict[Path, LLMCache] = {}


def default_cache() -> LLMCache:
    """The cache at the current ``app_home()`` (re-read each call so tests can move it)."""
    path = app_home() / CACHE_FILE
    if path not in _caches:
        _caches[path] = LLMCache(path)
    return _caches[path]
