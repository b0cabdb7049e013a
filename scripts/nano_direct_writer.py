"""A nano-graphrag 0.0.8.2 working dir written straight to its files, byte for byte what the library writes.

    <nano venv>/bin/python scripts/nano_direct_writer.py write DUMP.json OUTDIR
    <nano venv>/bin/python scripts/nano_direct_writer.py check DUMP.json LIBRARY_WRITTEN_DIR

Why: at 300k entities the library's own writer (``bench_retrieval_reference.write_nano``) is the slow
part of a scale benchmark: its GraphML goes through networkx's ElementTree writer (no lxml in that
venv), which builds the whole 300k-node, 900k-edge tree in memory before writing a byte. Here:

* the graph is built as the library builds it (``nx.Graph``, ``add_node``/``add_edge`` in upsert order,
  so nodes, edges and their orientation come out in networkx's own order) and streamed as GraphML the
  way networkx's ``GraphMLWriter`` formats it (keys numbered in first use, listed newest first; two-space
  indent; ElementTree's escaping; an empty value as a self-closing element);
* the kv stores are ``json.dump(..., indent=2, ensure_ascii=False)`` of the same records (nano's
  ``write_json``);
* the vector store is nano-vectordb's JSON: the same ids and meta fields, the same vectors (hash or
  random, ``world_vectors``), normalised row by row with nano-vectordb's own ``normalize`` and cast to float32, base64 of the bytes.

The reference still *loads and queries* the dir with its own code; ``check`` compares every file with
one the library wrote from the same dump (bench_scale.py runs it at 10k before trusting a 300k dir).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from xml.etree.ElementTree import _escape_attrib, _escape_cdata  # ElementTree's own escaping (as networkx's)

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_retrieval_reference import nano_records, world_vectors  # noqa: E402

GRAPHML = "graph_chunk_entity_relation.graphml"
FILES = (GRAPHML, "kv_store_community_reports.json", "kv_store_full_docs.json", "kv_store_text_chunks.json")
FILES += ("vdb_entities.json",)
XML_TYPES = {str: "string", int: "long", float: "double", bool: "boolean"}  # networkx's (for these types)
HEAD = (
    "<?xml version='1.0' encoding='utf-8'?>\n"
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">'
)


def write_graphml(graph, path: Path) -> None:
    """``nx.write_graphml(graph, path)`` for a graph of str/int/float attributes, streamed."""
    keys: dict[tuple[str, str, str], str] = {}

    def key(name: str, value, scope: str) -> str:
        kind = (name, XML_TYPES[type(value)], scope)
        if kind not in keys:
            keys[kind] = f"d{len(keys)}"
        return keys[kind]

    for _, data in graph.nodes(data=True):  # keys first: networkx numbers them in this order
        for name, value in data.items():
            key(name, value, "node")
    for _, _, data in graph.edges(data=True):
        for name, value in data.items():
            key(name, value, "edge")
    with path.open("w", encoding="utf-8") as out:
        out.write(HEAD + "\n")
        for (name, kind, scope), kid in reversed(keys.items()):  # networkx inserts each new key first
            out.write(f'  <key id="{kid}" for="{scope}" attr.name="{_escape_attrib(name)}" attr.type="{kind}" />\n')
        out.write('  <graph edgedefault="undirected">\n')
        for node, data in graph.nodes(data=True):
            _element(out, f'<node id="{_escape_attrib(str(node))}"', "node", data, key)
        for u, v, data in graph.edges(data=True):
            _element(
                out, f'<edge source="{_escape_attrib(str(u))}" target="{_escape_attrib(str(v))}"', "edge", data, key
            )
        out.write("  </graph>\n</graphml>\n")


def _element(out, opening: str, scope: str, data: dict, key) -> None:
    if not data:
        out.write(f"    {opening} />\n")
        return
    out.write(f"    {opening}>\n")
    for name, value in data.items():
        text = str(value)
        kid = key(name, value, scope)
        if text:
            out.write(f'      <data key="{kid}">{_escape_cdata(text)}</data>\n')
        else:
            out.write(f'      <data key="{kid}" />\n')
    out.write(f"    </{scope}>\n")


def write(dump: dict, out: Path) -> None:
    import networkx as nx
    import numpy as np
    from nano_vectordb.dbs import array_to_buffer_string, normalize

    rows = nano_records(dump)
    out.mkdir(parents=True, exist_ok=True)
    graph = nx.Graph()
    for name, node in rows["nodes"]:
        graph.add_node(name, **node)  # NetworkXStorage.upsert_node
    for source, target, edge in rows["edges"]:
        graph.add_edge(source, target, **edge)  # NetworkXStorage.upsert_edge
    write_graphml(graph, out / GRAPHML)
    del graph
    for name, records in (("text_chunks", rows["chunks"]), ("full_docs", rows["docs"])):
        _write_json(records, out / f"kv_store_{name}.json")
    _write_json(rows["reports"], out / "kv_store_community_reports.json")
    contents = [v["content"] for v in rows["vdb"].values()]
    vectors = np.concatenate([world_vectors(contents[i : i + 32]) for i in range(0, len(contents), 32)])
    matrix = np.array([normalize(v) for v in vectors], dtype=np.float32)  # NanoVectorDB.upsert, row by row
    storage = {
        "embedding_dim": 256,
        "data": [{"__id__": k, "entity_name": v["entity_name"]} for k, v in rows["vdb"].items()],
        "matrix": array_to_buffer_string(np.vstack([np.zeros((0, 256), dtype=np.float32), matrix])),
    }
    with (out / "vdb_entities.json").open("w", encoding="utf-8") as f:  # NanoVectorDB.save
        json.dump(storage, f, ensure_ascii=False)


def _write_json(records: dict, path: Path) -> None:
    with path.open("w", encoding="utf-8") as f:  # nano_graphrag._utils.write_json
        json.dump(records, f, indent=2, ensure_ascii=False)


def check(dump: dict, library_dir: Path) -> int:
    """Write ``dump`` here and compare each file with the library-written one: 0 when all are identical."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="nano-direct-") as tmp:
        write(dump, Path(tmp))
        differ = [n for n in FILES if (Path(tmp) / n).read_bytes() != (library_dir / n).read_bytes()]
    print("identical" if not differ else f"differ: {differ}")
    return 1 if differ else 0


def main() -> int:
    action, dump_path, folder = sys.argv[1:4]
    dump = json.loads(Path(dump_path).read_text(encoding="utf-8"))
    if action == "check":
        return check(dump, Path(folder))
    write(dump, Path(folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
