"""The SQL entity catalog behind seed 003's ILIKE recall.

Seed 003 recalls entities with ``name ILIKE %q% OR aliases::text ILIKE %q%``. The catalog is a
table ``entities(row, entity_id, name, aliases, type, occurrence_count, name_folded,
aliases_folded)`` written and queried through SQLAlchemy Core, so any database SQLAlchemy
speaks can hold it; an index keeps it in ``catalog.sqlite`` (``open_catalog`` also takes an
SQLAlchemy URL, e.g. ``postgresql+psycopg://…``, and ``write_catalog`` exports to one).

A team's server. With ``GRAPHRAG_UI_CATALOG_URL`` set (an SQLAlchemy URL; its password stays in the
environment), saving an index also writes its catalog into a table of that database named
``gri_<folder>_<random>``, recorded in the manifest; every app instance with the variable set then
runs the recall there (``for_index``), and one without it uses the index's own ``catalog.sqlite``.
Names compare in code-point order on both backends (PostgreSQL with ``COLLATE "C"``), so a server
returns the same hits in the same order as SQLite.

Case. SQLite's LIKE folds only ASCII and PostgreSQL's LIKE folds nothing, so matching runs on
``*_folded`` columns holding ``casefold(NFKC(text))`` and the user text is folded the same way:
"ÉCOLE" finds "école" and a full-width "ＡＩ" finds "AI" on every backend. ``%``, ``_`` and ``\\``
in the user text are escaped, so they match themselves.

Whole questions. A question rarely sits inside an entity name, but names often sit inside the
question ("what did 张三 do in 北京?"). So besides the seed's forward match the catalog also
reports entities whose name or alias occurs in the text ("name in query", "alias in query"),
found by looking every substring of the text (up to the longest name) up in a map built once per
catalog; quotes around a name are ignored there (nano-graphrag keeps ``"ALICE"`` with its quotes).
Names under 2 characters are not looked up that way (they would match nearly every question), and a
name must not continue a word of the text ("ART" is not in "start"); CJK needs no word boundary.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy.pool import QueuePool, StaticPool

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.file_version import version
from graphrag_ui.base.i18n import msg
from graphrag_ui.index import cache as index_cache
from graphrag_ui.index import validate
from graphrag_ui.index.model import Entity, Index
from graphrag_ui.index.servers import server_timeouts
from graphrag_ui.index.servers.catalog_server import URL_ENV, new_table_name, server_url_from_env, shown_url  # noqa: F401

CATALOG_FILE = "catalog.sqlite"
ALIAS_SEP = "\n"
MIN_REVERSE_LEN = 2
QUOTES = "\"'“”‘’「」『』"
KINDS = ("name", "alias", "name in query", "alias in query")  # best first


def fold(text: str) -> str:
    """Case- and width-insensitive form used on both sides of every comparison."""
    return unicodedata.normalize("NFKC", text).casefold()


def _table(name: str = "entities") -> tuple[sa.MetaData, sa.Table]:
    meta = sa.MetaData()
    columns = [sa.Column("row", sa.Integer, primary_key=True, autoincrement=False)]
    for column in ("entity_id", "name", "aliases", "type", "occurrence_count", "name_folded", "aliases_folded"):
        columns.append(sa.Column(column, sa.Integer if column == "occurrence_count" else sa.Text, nullable=False))
    return meta, sa.Table(name, meta, *columns)


def _rows(entities: Iterable[Entity]) -> Iterable[dict[str, Any]]:
    for i, e in enumerate(entities):
        aliases = ALIAS_SEP.join(a for a in (e.aliases or []) if a)
        yield {
            "row": i,
            "entity_id": e.id,
            "name": e.name,
            "aliases": aliases,
            "type": e.type or "",
            "occurrence_count": int(e.occurrence or 0),
            "name_folded": fold(e.name),
            "aliases_folded": fold(aliases),
        }


def _engine_for(target: str | Path, read_only: bool) -> sa.Engine:
    text = str(target)
    if "://" in text:  # the team's server: every connection and statement bounded in time
        return sa.create_engine(text, connect_args=server_timeouts.connect_args(text))
    path = Path(text)
    if read_only:
        uri = f"file:{quote(str(path.resolve()))}?mode=ro"
        # an explicit QueuePool: for a "sqlite://" URL SQLAlchemy would pick SingletonThreadPool,
        # which closes connections still in use by other threads (crashes under concurrent queries)
        return sa.create_engine(
            "sqlite://",
            creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=validate.LOCK_WAIT),
            poolclass=QueuePool,
        )
    return sa.create_engine(f"sqlite:///{path}")


def drop_table(url: str, table_name: str) -> None:
    """Drop a catalog table on the team server (a replaced or unfinished save's); a missing one is fine."""
    engine = _engine_for(url, read_only=False)
    try:
        with engine.begin() as conn:
            sa.Table(table_name, sa.MetaData()).drop(conn, checkfirst=True)
    finally:
        engine.dispose()


def write_catalog(entities: list[Entity], target: str | Path, table_name: str = "entities") -> int:
    """(Re)create the catalog table at ``target`` (a SQLite file path or an SQLAlchemy URL)."""
    meta, table = _table(table_name)
    engine = _engine_for(target, read_only=False)
    try:
        with engine.begin() as conn:
            meta.drop_all(conn)
            meta.create_all(conn)
            batch: list[dict[str, Any]] = []
            for row in _rows(entities):
                batch.append(row)
                if len(batch) == 5000:
                    conn.execute(table.insert(), batch)
                    batch = []
            if batch:
                conn.execute(table.insert(), batch)
    finally:
        engine.dispose()  # release the file before the index folder is renamed
    return len(entities)


class Catalog:
    """An open catalog: one engine (thread-safe pool) and the reverse-lookup map, built lazily."""

    def __init__(
        self, engine: sa.Engine, table_name: str = "entities", where: str = "", serialize: bool = False
    ) -> None:
        self.engine, self.where = engine, where
        self.source: object = None  # the entity list an in-memory catalog was made from
        self.source_rows = 0
        self._serialize = serialize  # one shared connection (in-memory SQLite): one query at a time
        self.table = _table(table_name)[1]
        self._lock = threading.Lock()
        self._query_lock = threading.Lock()
        self._reverse: dict[str, list[tuple[dict[str, Any], str]]] | None = None
        self._lengths: list[int] = []
        self._longest = 0

    def count(self) -> int:
        with self._connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(self.table)).scalar_one())

    def forward(self, text: str, limit: int) -> list[dict[str, Any]]:
        """The seed's ``name ILIKE %text% OR aliases ILIKE %text%``, name hits first."""
        if "\x00" in text:  # no name holds a NUL (PostgreSQL cannot store one): nothing matches, as in SQLite
            return []
        t = self.table
        escaped = fold(text).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        pattern = f"%{escaped}%"
        name_hit = t.c.name_folded.like(pattern, escape="\\")
        alias_hit = t.c.aliases_folded.like(pattern, escape="\\")
        kind = sa.case((name_hit, 0), else_=1).label("kind")
        query = (
            sa.select(t.c.entity_id, t.c.name, t.c.aliases, t.c.type, t.c.occurrence_count, kind)
            .where(sa.or_(name_hit, alias_hit))
            .order_by(kind, t.c.occurrence_count.desc(), self._codepoints(t.c.name), self._codepoints(t.c.entity_id))
            .limit(limit)
        )
        with self._connect() as conn:
            rows = conn.execute(query).mappings().all()
        out = []
        needle = fold(text)
        for r in rows:
            matched_text = r["name"]
            if r["kind"] == 1:
                matched_text = next((a for a in r["aliases"].split(ALIAS_SEP) if needle in fold(a)), r["aliases"])
            out.append(_hit(r, KINDS[r["kind"]], matched_text))
        return out

    def _codepoints(self, column: sa.ColumnElement) -> sa.ColumnElement:
        """``column`` ordered by code point, as SQLite and Python do (PostgreSQL's default follows the locale)."""
        return column.collate("C") if self.engine.dialect.name == "postgresql" else column

    def _guard(self):
        return self._query_lock if self._serialize else _NoLock()

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sa.Connection]:
        """A connection; a damaged or locked database file becomes one ``IndexFormatError`` naming it."""
        with self._guard(), validate.reading(Path(self.where or "in-memory catalog")):
            try:
                with self.engine.connect() as conn:
                    yield conn
            except sa.exc.DBAPIError as exc:
                if isinstance(exc.orig, sqlite3.Error):
                    raise exc.orig from None
                detail = " ".join(str(exc.orig).split())[:160]
                raise IndexFormatError(
                    msg("the catalog database failed ({detail})", detail=detail), where=self.where
                ) from None

    def _reverse_map(self) -> dict[str, list[tuple[tuple, str]]]:
        """bare name/alias -> [(row, kind)], rows as (entity_id, name, aliases, type, occurrence)."""
        with self._lock:
            if self._reverse is None:
                t = self.table
                reverse: dict[str, list[tuple[tuple, str]]] = {}
                longest = 0
                query = sa.select(t.c.entity_id, t.c.name, t.c.aliases, t.c.type, t.c.occurrence_count).order_by(
                    t.c.row
                )
                with self._connect() as conn:
                    rows = conn.execute(query).all()
                for row in rows:
                    row = tuple(row)
                    key = _bare(row[1])
                    longest = max(longest, len(fold(row[1])))
                    reverse.setdefault(key, []).append((row, "name in query"))
                    for alias in row[2].split(ALIAS_SEP) if row[2] else []:
                        longest = max(longest, len(fold(alias)))
                        reverse.setdefault(_bare(alias), []).append((row, "alias in query"))
                self._longest = longest
                self._reverse = {k: v for k, v in reverse.items() if len(k) >= MIN_REVERSE_LEN and k.strip()}
                self._lengths = sorted({len(k) for k in self._reverse})
            return self._reverse

    def could_contain(self, text: str) -> bool:
        """False when ``text`` is longer than every name and alias: the forward ILIKE cannot match."""
        self._reverse_map()
        needle = fold(text)
        return len(needle) <= self._longest or ALIAS_SEP in needle

    def contained(self, text: str) -> list[dict[str, Any]]:
        """Entities whose folded name or alias occurs in ``text`` at word boundaries."""
        reverse = self._reverse_map()
        folded = fold(text)
        found: dict[str, dict[str, Any]] = {}
        n = len(folded)
        for start in range(n):
            if start and _wordish(folded[start]) and _wordish(folded[start - 1]):
                continue
            for length in self._lengths:
                end = start + length
                if end > n:
                    break
                hits = reverse.get(folded[start:end])
                if not hits or (end < n and _wordish(folded[end - 1]) and _wordish(folded[end])):
                    continue
                for row, kind in hits:
                    old = found.get(row[0])
                    if old is None or KINDS.index(kind) < KINDS.index(old["matched"]):
                        matched = row[1] if kind == "name in query" else _original_alias(row[2], folded[start:end])
                        found[row[0]] = _hit(dict(zip(_ROW_KEYS, row, strict=True)), kind, matched)
        return list(found.values())


_ROW_KEYS = ("entity_id", "name", "aliases", "type", "occurrence_count")


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _bare(name: str) -> str:
    """Folded name without surrounding quotes (nano-graphrag stores ``"ALICE"`` with its quotes)."""
    return fold(name).strip(QUOTES).strip()


def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return 0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF


def _wordish(ch: str) -> bool:
    return (ch.isalnum() or ch == "_") and not _is_cjk(ch)


def _original_alias(aliases: str, bare_alias: str) -> str:
    return next((a for a in aliases.split(ALIAS_SEP) if _bare(a) == bare_alias), bare_alias)


def _hit(row: Any, kind: str, matched_text: str) -> dict[str, Any]:
    return {
        "entity_id": row["entity_id"],
        "name": row["name"],
        "type": row["type"],
        "occurrence_count": int(row["occurrence_count"]),
        "matched": kind,
        "matched_text": matched_text,
    }


def _order(hit: dict[str, Any]) -> tuple:
    return (KINDS.index(hit["matched"]), -hit["occurrence_count"], hit["name"], hit["entity_id"])


def find_entities_by_name_or_alias(
    catalog: Catalog | Index | str | Path, text: str, limit: int
) -> list[dict[str, Any]]:
    """Seed 003's ILIKE recall plus names found inside ``text``, best first, at most ``limit``.

    Each hit: ``entity_id, name, type, occurrence_count, matched`` (one of ``KINDS``: the best
    way this entity matched) and ``matched_text`` (the name or alias that matched). Order: match
    kind, then occurrence count (high first), then name, then id.
    """
    if not isinstance(catalog, Catalog):
        catalog = for_index(catalog) if isinstance(catalog, Index) else open_catalog(catalog)
    text = (text or "").strip()
    if limit <= 0 or not text:
        return []
    best: dict[str, dict[str, Any]] = {}
    forward = catalog.forward(text, limit) if catalog.could_contain(text) else []  # skip a useless scan
    for hit in forward + catalog.contained(text):
        old = best.get(hit["entity_id"])
        if old is None or _order(hit) < _order(old):
            best[hit["entity_id"]] = hit
    return sorted(best.values(), key=_order)[:limit]


KEPT_CATALOGS = 16  # open catalogs (engines) kept at once; the least recently opened is let go first
_cache: OrderedDict[tuple, Catalog] = OrderedDict()
_cache_lock = threading.Lock()


def _keep(key: tuple, catalog: Catalog) -> None:
    """Remember ``catalog``; let go of (dispose) the same file's older saves and the least recently used."""
    for old in [k for k in _cache if len(key) > 2 and k[:2] == key[:2] and k != key]:
        _cache.pop(old).engine.dispose()  # a query still running finishes on its own connection
    _cache[key] = catalog
    while len(_cache) > KEPT_CATALOGS:
        _cache.popitem(last=False)[1].engine.dispose()


def open_catalog(source: str | Path, table_name: str = "entities") -> Catalog:
    """Catalog of an index folder, a SQLite file or an SQLAlchemy URL; cached while the file is unchanged."""
    text = str(source)
    if "://" in text:
        key: tuple = (text, table_name)
    else:
        path = Path(text)
        if path.is_dir():
            path = path / CATALOG_FILE
        seen = version(path)
        if seen is None:
            raise IndexFormatError(
                msg("the entity catalog is missing"), where=str(path), fix=msg("re-save or rebuild the index")
            )
        key = (str(path.resolve()), table_name, seen)
        text = str(path)
    with _cache_lock:
        catalog = _cache.get(key)
        if catalog is None:
            engine = _engine_for(text, read_only="://" not in text)
            where = shown_url(text) if "://" in text else text
            catalog = Catalog(engine, table_name, where=where)
            _keep(key, catalog)
        else:
            _cache.move_to_end(key)
        return catalog


def server_table(index_path: str | Path) -> str | None:
    """The catalog table the index's manifest records on the team server, if it was saved with one."""
    manifest = Path(index_path) / "manifest.json"
    try:
        storage = json.loads(manifest.read_text(encoding="utf-8")).get("storage", {})
    except (OSError, ValueError, AttributeError):
        return None
    table = storage.get("catalog", {}).get("server_table") if isinstance(storage, dict) else None
    return table if isinstance(table, str) and re.fullmatch(r"[a-z0-9_]{1,63}", table) else None


def _same_folder(index: Index) -> bool:
    """Whether the folder still holds the save ``index`` was loaded from. A save since then put another
    folder in its place, whose catalog belongs to other rows: the loaded index then answers from an
    in-memory catalog of its own entities (never a mix of two saves)."""
    from graphrag_ui.index.store_load import identity

    loaded = getattr(index, "folder_identity", None)
    return loaded is None or identity(Path(index.path)) == loaded


def for_index(index: Index) -> Catalog:
    """The catalog of a loaded index: the team server's table when configured and recorded, else its
    ``catalog.sqlite``; an in-memory one for an unsaved index."""
    url = server_url_from_env()
    same = index.path and _same_folder(index)
    table = server_table(index.path) if url and same else None
    if url and table:
        return open_catalog(url, table)
    if same and (Path(index.path) / CATALOG_FILE).is_file():
        return open_catalog(index.path)
    kept = index_cache.values(index)
    catalog = kept.get("catalog.memory")
    if catalog is None or catalog.source is not index.entities or catalog.source_rows != len(index.entities):
        engine = sa.create_engine("sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False})
        meta, table = _table()
        with engine.begin() as conn:
            meta.create_all(conn)
            rows = list(_rows(index.entities))
            if rows:
                conn.execute(table.insert(), rows)
        catalog = Catalog(engine, serialize=True)
        catalog.source, catalog.source_rows = index.entities, len(index.entities)
        kept["catalog.memory"] = catalog
    return catalog
