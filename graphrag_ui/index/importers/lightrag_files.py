"""Readers for the files of a LightRAG working directory (1.4.x and 1.5.x layouts).

Each reader validates as it goes and raises ``IndexFormatError`` naming the file and the problem,
so the importer can promise "nothing written unless everything parsed".
"""

from __future__ import annotations

import base64
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np

from graphrag_ui.errors import IndexFormatError

GRAPHML = "graph_chunk_entity_relation.graphml"
NS = "{http://graphml.graphdrawing.org/xmlns}"
_CASTS = {
    "double": float,
    "float": float,
    "long": int,
    "int": int,
    "boolean": lambda v: v.strip().lower() in {"true", "1"},
    "string": str,
}


def read_json(path: Path, required: bool = True) -> Any:
    """Parsed JSON, ``None`` for an absent optional file, a clear error otherwise."""
    if not path.is_file():
        if required:
            raise IndexFormatError("file is missing", where=str(path), fix="point at a complete LightRAG working_dir")
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise IndexFormatError(
            f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); the file looks truncated or corrupt",
            where=str(path),
        ) from None
    except UnicodeDecodeError:
        raise IndexFormatError("not UTF-8 text", where=str(path)) from None


def read_kv(path: Path, required: bool = True) -> dict[str, dict]:
    data = read_json(path, required)
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise IndexFormatError("expected a JSON object of id -> record objects", where=str(path))
    return data


def read_graphml(path: Path) -> tuple[list[tuple[str, dict]], list[tuple[str, str, dict]]]:
    """Nodes and edges in FILE order (networkx's edge iteration order differs from the file's).

    Attribute values are typed from the ``<key>`` declarations exactly as ``networkx.read_graphml``
    types them; a repeated undirected edge updates the first one's attributes, as networkx does.
    """
    if not path.is_file():
        raise IndexFormatError("file is missing", where=str(path), fix="point at a LightRAG working_dir")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise IndexFormatError(f"not valid GraphML/XML ({exc})", where=str(path)) from None
    graph = root.find(f"{NS}graph")
    if root.tag != f"{NS}graphml" or graph is None:
        raise IndexFormatError("no <graphml><graph> element: this is not a GraphML graph", where=str(path))
    keys: dict[str, tuple[str, Any]] = {}
    for key in root.findall(f"{NS}key"):
        keys[key.get("id", "")] = (
            key.get("attr.name", key.get("id", "")),
            _CASTS.get(key.get("attr.type", "string"), str),
        )

    def attrs(elem: ET.Element, what: str) -> dict:
        out = {}
        for data in elem.findall(f"{NS}data"):
            name, cast = keys.get(data.get("key", ""), (data.get("key", ""), str))
            try:
                out[name] = cast(data.text or "")
            except ValueError:
                raise IndexFormatError(
                    f"{what}: attribute {name!r} has a bad value {data.text!r}", where=str(path)
                ) from None
        return out

    nodes: list[tuple[str, dict]] = []
    seen_nodes: set[str] = set()
    for node in graph.findall(f"{NS}node"):
        node_id = node.get("id")
        if node_id is None:
            raise IndexFormatError("a <node> has no id", where=str(path))
        if node_id not in seen_nodes:
            seen_nodes.add(node_id)
            nodes.append((node_id, attrs(node, f"node {node_id!r}")))
    edges: list[tuple[str, str, dict]] = []
    position: dict[frozenset, int] = {}
    for edge in graph.findall(f"{NS}edge"):
        src, tgt = edge.get("source"), edge.get("target")
        if src is None or tgt is None:
            raise IndexFormatError("an <edge> lacks source or target", where=str(path))
        for end in (src, tgt):
            if end not in seen_nodes:  # networkx adds such nodes silently; keep them, without data
                seen_nodes.add(end)
                nodes.append((end, {}))
        data = attrs(edge, f"edge {src!r}-{tgt!r}")
        key = frozenset((src, tgt))
        if key in position:
            edges[position[key]][2].update(data)
        else:
            position[key] = len(edges)
            edges.append((src, tgt, data))
    return nodes, edges


def read_vdb(path: Path, id_field: str = "__id__") -> tuple[list[dict], np.ndarray, int]:
    """Rows (without the matrix) and the float32 matrix of a nano-vectordb file, in row order."""
    data = read_json(path)
    if not isinstance(data, dict) or "data" not in data or "embedding_dim" not in data:
        raise IndexFormatError("not a nano-vectordb file (needs embedding_dim, data, matrix)", where=str(path))
    rows, dim = data["data"], data["embedding_dim"]
    if not isinstance(rows, list) or not isinstance(dim, int) or dim <= 0:
        raise IndexFormatError("data must be a list and embedding_dim a positive integer", where=str(path))
    try:
        raw = base64.b64decode(data.get("matrix") or "", validate=True)
    except (ValueError, TypeError):
        raise IndexFormatError("matrix is not valid base64", where=str(path)) from None
    if raw and (len(raw) % 4 or (len(raw) // 4) % dim):
        raise IndexFormatError(
            f"matrix of {len(raw)} bytes is not a whole number of vectors of dimension {dim} (wrong embedding_dim or a truncated file)",
            where=str(path),
        )
    matrix = np.frombuffer(raw, dtype=np.float32).reshape(-1, dim) if raw else np.zeros((0, dim), np.float32)
    if matrix.shape[0] != len(rows):
        raise IndexFormatError(
            f"matrix has {matrix.shape[0]} vectors of dimension {dim} but data has {len(rows)} rows "
            "(wrong dimension or a truncated file)",
            where=str(path),
        )
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or id_field not in row:
            raise IndexFormatError(f"row {i} has no {id_field}", where=str(path))
    return rows, matrix.copy(), dim
