"""Print how long importing a synthetic LightRAG working directory takes (issue 3: goal <= 10 s at 10k/30k).

The directory is written in LightRAG 1.4's own layout (GraphML, JSON key-value stores, nano-vectordb
files with base64 float32 matrices), then imported with ``python -m graphrag_ui import lightrag`` in a
fresh process each run, so interpreter start and imports count as a user would see them.

    python scripts/bench_import.py [--entities 10000] [--relations 30000] [--chunks 5000] [--runs 3]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
WORDS = "river harbour guild flood lantern tide ledger council ship canal market salt glass kelp storm bridge".split()


def _md5(prefix: str, text: str) -> str:
    return prefix + hashlib.md5(text.encode("utf-8")).hexdigest()


def _vdb(path: Path, rows: list[dict], dim: int, rng: np.random.Generator) -> None:
    matrix = rng.standard_normal((len(rows), dim)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    payload = {"embedding_dim": dim, "data": rows, "matrix": base64.b64encode(matrix.tobytes()).decode("ascii")}
    path.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")


def write_lightrag_dir(out: Path, entities: int, relations: int, chunks: int, dim: int = 256, seed: int = 0) -> None:
    """A LightRAG 1.4-layout working dir with power-law degrees."""
    rnd, rng = random.Random(seed), np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    chunk_ids, text_chunks, docs, status = [], {}, {}, {}
    for c in range(chunks):
        content = " ".join(rnd.choice(WORDS) for _ in range(220)) + f" #{c}"
        cid = _md5("chunk-", content)
        doc = _md5("doc-", f"doc {c // 5}")
        chunk_ids.append(cid)
        text_chunks[cid] = {
            "tokens": 230,
            "content": content,
            "chunk_order_index": c % 5,
            "full_doc_id": doc,
            "file_path": f"doc{c // 5}.txt",
        }
        docs.setdefault(doc, {"content": f"document {c // 5}"})
        status.setdefault(
            doc,
            {
                "status": "processed",
                "chunks_count": 0,
                "chunks_list": [],
                "content_summary": "",
                "content_length": 0,
                "file_path": f"doc{c // 5}.txt",
            },
        )
        status[doc]["chunks_list"].append(cid)
        status[doc]["chunks_count"] += 1
    names = [f"Entity {i:05d} {rnd.choice(WORDS).title()}" for i in range(entities)]
    graph = nx.Graph()
    for name in names:
        sources = "<SEP>".join(rnd.sample(chunk_ids, 2))
        graph.add_node(
            name,
            entity_id=name,
            entity_type=rnd.choice(["person", "organization", "location", "event"]),
            description=f"{name} is connected to the {rnd.choice(WORDS)} of the city.",
            source_id=sources,
            file_path="doc.txt",
            created_at=1700000000,
        )
    weights = np.arange(1, entities + 1, dtype=float) ** -0.8
    weights /= weights.sum()
    while graph.number_of_edges() < relations:
        for a, b in rng.choice(entities, size=(relations, 2), p=weights):  # bulk draws: per-pair draws are slow
            if graph.number_of_edges() >= relations:
                break
            if a == b or graph.has_edge(names[a], names[b]):
                continue
            graph.add_edge(
                names[a],
                names[b],
                weight=float(rnd.randint(1, 10)),
                description=f"{names[a]} and {names[b]} share a {rnd.choice(WORDS)}.",
                keywords=f"{rnd.choice(WORDS)},{rnd.choice(WORDS)}",
                source_id=rnd.choice(chunk_ids),
                file_path="doc.txt",
                created_at=1700000000,
            )
    nx.write_graphml(graph, out / "graph_chunk_entity_relation.graphml")
    for name, data in (("text_chunks", text_chunks), ("full_docs", docs), ("doc_status", status)):
        (out / f"kv_store_{name}.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    entity_rows = [
        {
            "__id__": _md5("ent-", n),
            "__created_at__": 1700000000,
            "entity_name": n,
            "content": n + "\n" + graph.nodes[n]["description"],
            "source_id": graph.nodes[n]["source_id"],
            "file_path": "doc.txt",
        }
        for n in names
    ]
    relation_rows = []
    for a, b, data in graph.edges(data=True):
        lo, hi = sorted((a, b))
        relation_rows.append(
            {
                "__id__": _md5("rel-", lo + hi),
                "__created_at__": 1700000000,
                "src_id": lo,
                "tgt_id": hi,
                "content": f"{lo}\t{hi}\n{data['keywords']}\n{data['description']}",
                "source_id": data["source_id"],
                "file_path": "doc.txt",
            }
        )
    chunk_rows = [
        {
            "__id__": cid,
            "__created_at__": 1700000000,
            "content": text_chunks[cid]["content"],
            "full_doc_id": text_chunks[cid]["full_doc_id"],
            "file_path": text_chunks[cid]["file_path"],
        }
        for cid in chunk_ids
    ]
    _vdb(out / "vdb_entities.json", entity_rows, dim, rng)
    _vdb(out / "vdb_relationships.json", relation_rows, dim, rng)
    _vdb(out / "vdb_chunks.json", chunk_rows, dim, rng)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--relations", type=int, default=30_000)
    parser.add_argument("--chunks", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", help="write the synthetic source here and keep it (reused when present)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        src = Path(args.keep) if args.keep else Path(tmp) / "lightrag"
        start = time.perf_counter()
        if not (src / "vdb_chunks.json").is_file():
            write_lightrag_dir(src, args.entities, args.relations, args.chunks)
        print(
            f"wrote synthetic LightRAG dir ({args.entities} entities, {args.relations} relations, "
            f"{args.chunks} chunks) in {time.perf_counter() - start:.1f} s"
        )
        times = []
        for run in range(args.runs):
            out = Path(tmp) / f"index{run}"
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "graphrag_ui",
                    "import",
                    "lightrag",
                    str(src),
                    "--out",
                    str(out),
                    "--embedder",
                    "hash",
                ],
                cwd=ROOT,
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            times.append(time.perf_counter() - start)
            print(f"run {run + 1}: import {times[-1]:.2f} s")
        print(f"import p50 {statistics.median(times):.2f} s (goal <= 10 s) over {len(times)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
