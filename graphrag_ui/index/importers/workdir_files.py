"""Readers of the files nano-graphrag and LightRAG both write (they share their storage code).

``kv_store_*.json`` key-value stores and ``graph_chunk_entity_relation.graphml`` written by
networkx. Each reader validates as it goes and raises ``IndexFormatError`` naming the file and the
problem, so an importer can promise "nothing written unless everything parsed".
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg

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
            raise IndexFormatError(
                msg("file is missing"), where=str(path), fix=msg("point at the complete working directory")
            )
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise IndexFormatError(
            msg(
                "not valid JSON ({msg} at line {lineno}, column {colno}); the file looks truncated or corrupt",
                msg=exc.msg,
                lineno=exc.lineno,
                colno=exc.colno,
            ),
            where=str(path),
        ) from None
    except UnicodeDecodeError:
        raise IndexFormatError(msg("not UTF-8 text"), where=str(path)) from None
    except RecursionError:
        raise IndexFormatError(
            msg("its JSON is nested too deeply to read (deeper than Python's recursion limit)"), where=str(path)
        ) from None


def read_kv(path: Path, required: bool = True) -> dict[str, dict]:
    data = read_json(path, required)
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise IndexFormatError(msg("expected a JSON object of id -> record objects"), where=str(path))
    return data


def read_graphml(path: Path) -> tuple[list[tuple[str, dict]], list[tuple[str, str, dict]]]:
    """Nodes and edges in FILE order (networkx's edge iteration order differs from the file's).

    Attribute values are typed from the ``<key>`` declarations exactly as ``networkx.read_graphml``
    types them; a repeated undirected edge updates the first one's attributes, as networkx does.
    """
    if not path.is_file():
        raise IndexFormatError(
            msg("file is missing"), where=str(path), fix=msg("point at the working directory that holds it")
        )
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise IndexFormatError(msg("not valid GraphML/XML ({error})", error=str(exc)), where=str(path)) from None
    graph = root.find(f"{NS}graph")
    if root.tag != f"{NS}graphml" or graph is None:
        raise IndexFormatError(msg("no <graphml><graph> element: this is not a GraphML graph"), where=str(path))
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
                    msg(
                        "{what}: attribute {name} is not a number: {text}",
                        what=what,
                        name=repr(name),
                        text=repr(data.text),
                    ),
                    where=str(path),
                ) from None
        return out

    nodes: list[tuple[str, dict]] = []
    seen_nodes: set[str] = set()
    for node in graph.findall(f"{NS}node"):
        node_id = node.get("id")
        if node_id is None:
            raise IndexFormatError(msg("a <node> has no id"), where=str(path))
        if node_id not in seen_nodes:
            seen_nodes.add(node_id)
            nodes.append((node_id, attrs(node, msg("node {node_id}", node_id=repr(node_id)))))
    edges: list[tuple[str, str, dict]] = []
    position: dict[frozenset, int] = {}
    for edge in graph.findall(f"{NS}edge"):
        src, tgt = edge.get("source"), edge.get("target")
        if src is None or tgt is None:
            raise IndexFormatError(msg("an <edge> lacks source or target"), where=str(path))
        for end in (src, tgt):
            if end not in seen_nodes:  # networkx adds such nodes silently; keep them, without data
                seen_nodes.add(end)
                nodes.append((end, {}))
        data = attrs(edge, msg("edge {src}-{tgt}", src=repr(src), tgt=repr(tgt)))
        key = frozenset((src, tgt))
        if key in position:
            edges[position[key]][2].update(data)
        else:
            position[key] = len(edges)
            edges.append((src, tgt, data))
    return nodes, edges


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """What nano-vectordb does to every matrix it loads (float32 row / its norm; zero rows stay zero).

    nano-graphrag and LightRAG both search through nano-vectordb, which re-normalises the stored
    (already unit) rows when it opens a file; that moves some values by an ulp, and with them the
    exact ties whose order its argsort decides. Doing the same gives the same scores bit for bit.
    """
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    safe = np.where(norms == 0, np.float32(1), norms)
    return (matrix / safe).astype(np.float32)
