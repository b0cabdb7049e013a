"""Ways to damage a copy of an index folder, each with the file the error must name.

A fault is ``(name, damage, names)``: ``damage(folder, stack)`` breaks the copy at ``folder`` (a lock
holder registers its release on ``stack``), ``names`` is the file name the ``IndexFormatError``
must mention. Copies are hard-linked (cheap), so every damage writes a fresh file (``replace``)
instead of editing one in place, which would change the bundled sample through the link.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

Damage = Callable[[Path, contextlib.ExitStack], None]


def copy_index(source: Path, target: Path) -> Path:
    """Hard-linked copy; the SQLite stores and every chroma file are real copies (readers may create
    journals beside them, and a chroma client opening the copy rewrites its index files in place)."""
    shutil.copytree(source, target, copy_function=os.link)
    chroma = [p for p in (target / "chroma").rglob("*") if p.is_file()] if (target / "chroma").is_dir() else []
    for db in (target / "catalog.sqlite", *chroma):
        own(db)
    return target


def own(path: Path) -> None:
    """Replace a hard link by a private copy of its content."""
    data = path.read_bytes()
    replace(path, data)


def replace(path: Path, data: bytes) -> None:
    path.unlink(missing_ok=True)
    path.write_bytes(data)


def _manifest(edit: Callable[[dict], object]) -> Damage:
    def damage(folder: Path, _stack: contextlib.ExitStack) -> None:
        data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        result = edit(data)
        data = data if result is None else result
        replace(folder / "manifest.json", json.dumps(data).encode())

    return damage


def _bytes(relative: str, make: Callable[[bytes], bytes]) -> Damage:
    def damage(folder: Path, _stack: contextlib.ExitStack) -> None:
        path = folder / relative
        replace(path, make(path.read_bytes()))

    return damage


def _missing(relative: str) -> Damage:
    return lambda folder, _stack: (folder / relative).unlink()


def _directory(relative: str) -> Damage:
    def damage(folder: Path, _stack: contextlib.ExitStack) -> None:
        (folder / relative).unlink()
        (folder / relative).mkdir()

    return damage


def _parquet(relative: str, edit: Callable[[pa.Table], pa.Table]) -> Damage:
    def damage(folder: Path, _stack: contextlib.ExitStack) -> None:
        path = folder / relative
        table = edit(pq.read_table(path))
        path.unlink()
        pq.write_table(table, path)

    return damage


def _column(name: str, values: Callable[[pa.Table], pa.Array]) -> Callable[[pa.Table], pa.Table]:
    return lambda t: t.set_column(t.column_names.index(name), name, values(t))


def _vectors(relative: str, edit: Callable[[np.ndarray], np.ndarray]) -> Damage:
    def damage(folder: Path, _stack: contextlib.ExitStack) -> None:
        path = folder / relative
        matrix = edit(np.load(path).copy())
        path.unlink()
        np.save(path, matrix)

    return damage


def _nan(matrix: np.ndarray) -> np.ndarray:
    matrix[1, 3] = np.nan
    return matrix


def _inf(matrix: np.ndarray) -> np.ndarray:
    matrix[0, 0] = np.inf
    return matrix


def _locked(relative: str) -> Damage:
    def damage(folder: Path, stack: contextlib.ExitStack) -> None:
        holder = sqlite3.connect(folder / relative, isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN EXCLUSIVE")
        stack.callback(holder.close)

    return damage


def _sql(relative: str, statement: str) -> Damage:
    def damage(folder: Path, _stack: contextlib.ExitStack) -> None:
        db = sqlite3.connect(folder / relative)
        db.execute(statement)
        db.commit()
        db.close()

    return damage


def _half(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _garbage(_data: bytes) -> bytes:
    return b"this is not what the index wrote\x00\xff" * 64


def _empty(_data: bytes) -> bytes:
    return b""


def _set(path: str, value: object) -> Callable[[dict], None]:
    def edit(data: dict) -> None:
        *parents, last = path.split(".")
        node = data
        for key in parents:
            node = node[key]
        node[last] = value

    return edit


FAULTS: list[tuple[str, Damage, str]] = [
    # the manifest
    ("manifest missing", _missing("manifest.json"), "manifest.json"),
    ("manifest 0 bytes", _bytes("manifest.json", _empty), "manifest.json"),
    ("manifest truncated", _bytes("manifest.json", _half), "manifest.json"),
    ("manifest a list", _manifest(lambda d: [d]), "manifest.json"),
    (
        "manifest count a string",
        _manifest(lambda d: d["counts"].update(entities=str(d["counts"]["entities"]))),
        "manifest.json",
    ),
    ("manifest counts null", _manifest(_set("counts", None)), "manifest.json"),
    ("manifest dimension a string", _manifest(_set("dimension", "512")), "manifest.json"),
    ("manifest tables null", _manifest(_set("storage.tables", None)), "manifest.json"),
    ("manifest path escape", _manifest(_set("storage.tables.entities", "../../../etc/passwd")), "manifest.json"),
    ("manifest absolute path", _manifest(_set("storage.tables.chunks", "/etc/passwd")), "manifest.json"),
    (
        "manifest vector rows a string",
        _manifest(lambda d: d["storage"]["vectors"]["entities"].update(rows="70")),
        "manifest.json",
    ),
    ("manifest storage a string", _manifest(_set("storage", "x")), "manifest.json"),
    # the Parquet tables
    ("entities table missing", _missing("entities.parquet"), "entities.parquet"),
    ("entities table 0 bytes", _bytes("entities.parquet", _empty), "entities.parquet"),
    ("entities table truncated", _bytes("entities.parquet", _half), "entities.parquet"),
    ("entities table a folder", _directory("entities.parquet"), "entities.parquet"),
    ("documents table garbage", _bytes("documents.parquet", _garbage), "documents.parquet"),
    (
        "entities names null",
        _parquet("entities.parquet", _column("name", lambda t: pa.nulls(t.num_rows, pa.string()))),
        "entities.parquet",
    ),
    (
        "relations weight strings",
        _parquet("relations.parquet", _column("weight", lambda t: pa.array(["heavy"] * t.num_rows))),
        "relations.parquet",
    ),
    (
        "chunks tokens strings",
        _parquet("chunks.parquet", _column("tokens", lambda t: pa.array(["x"] * t.num_rows))),
        "chunks.parquet",
    ),
    (
        "relation source null",
        _parquet(
            "relations.parquet",
            _column("source", lambda t: pa.array([None] + t.column("source").to_pylist()[1:], pa.string())),
        ),
        "relations.parquet",
    ),
    (
        "entity alias a null item",
        _parquet(
            "entities.parquet",
            _column(
                "aliases", lambda t: pa.array([[None], *t.column("aliases").to_pylist()[1:]], pa.list_(pa.string()))
            ),
        ),
        "entities.parquet",
    ),
    (
        "communities column dropped",
        _parquet("communities.parquet", lambda t: t.drop(["report"])),
        "communities.parquet",
    ),
    ("chunks rows dropped", _parquet("chunks.parquet", lambda t: t.slice(1)), "chunks.parquet"),
    # vectors
    ("entity vectors 0 bytes", _bytes("vectors/entities.npy", _empty), "entities.npy"),
    ("entity vectors truncated", _bytes("vectors/entities.npy", _half), "entities.npy"),
    ("entity vectors NaN", _vectors("vectors/entities.npy", _nan), "entities.npy"),
    ("chunk vectors infinite", _vectors("vectors/chunks.npy", _inf), "chunks.npy"),
    ("relation vectors float64", _vectors("vectors/relations.npy", lambda m: m.astype(np.float64)), "relations.npy"),
    ("entity ids not JSON", _bytes("vectors/entities.ids.json", _half), "entities.ids.json"),
    ("entity ids an object", _bytes("vectors/entities.ids.json", lambda _d: b'{"a": 1}'), "entities.ids.json"),
    ("entity ids missing", _missing("vectors/entities.ids.json"), "entities.ids.json"),
    # the SQLite catalog and chroma
    ("catalog missing", _missing("catalog.sqlite"), "catalog.sqlite"),
    ("catalog 0 bytes", _bytes("catalog.sqlite", _empty), "catalog.sqlite"),
    ("catalog garbage", _bytes("catalog.sqlite", _garbage), "catalog.sqlite"),
    ("catalog without its table", _sql("catalog.sqlite", "DROP TABLE entities"), "catalog.sqlite"),
    ("catalog locked", _locked("catalog.sqlite"), "catalog.sqlite"),
    ("chroma garbage", _bytes("chroma/chroma.sqlite3", _garbage), "chroma.sqlite3"),
    ("chroma 0 bytes", _bytes("chroma/chroma.sqlite3", _empty), "chroma.sqlite3"),
    ("chroma missing", _missing("chroma/chroma.sqlite3"), "chroma.sqlite3"),
    ("chroma locked", _locked("chroma/chroma.sqlite3"), "chroma.sqlite3"),
]
