"""How long importing a synthetic nano-graphrag, LightRAG or GraphRAG directory takes, and its peak memory.

Goals (issue 12): 10k entities <= 10 s and 100k <= 90 s per format; peak memory <= the reference's
own load (scripts/bench_vs_reference.py prints that). Each directory is written in its library's
layout (GraphML, JSON key-value stores, nano-vectordb files; GraphRAG 3.x Parquet tables + LanceDB),
then imported with ``python -m graphrag_ui import KIND`` in a fresh process each run, so interpreter
start and imports count as a user would see them; peak RSS is that process's own (``wait4``).

    python scripts/bench_import.py [--formats nano lightrag msgraphrag] [--entities 10000]
                                   [--relations 30000] [--chunks 5000] [--runs 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
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
GOALS_S = {10_000: 10.0, 100_000: 90.0}


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


def write_nano_dir(out: Path, entities: int, relations: int, chunks: int, dim: int = 256, seed: int = 0) -> None:
    """A nano-graphrag 0.0.8.2-layout working dir: quoted upper-case names, clusters, community reports."""
    write_lightrag_dir(out, entities, relations, chunks, dim, seed)
    graph = nx.read_graphml(out / "graph_chunk_entity_relation.graphml")
    rename = {n: '"' + n.upper() + '"' for n in graph.nodes}
    nano = nx.Graph()
    communities: dict[str, list[str]] = {}
    for i, (name, data) in enumerate(graph.nodes(data=True)):
        cluster = str(i % max(1, entities // 20))
        communities.setdefault(cluster, []).append(rename[name])
        nano.add_node(
            rename[name],
            entity_type='"' + data["entity_type"].upper() + '"',
            description=data["description"],
            source_id=data["source_id"],
            clusters=json.dumps([{"level": 0, "cluster": cluster}]),
        )
    for a, b, data in graph.edges(data=True):
        nano.add_edge(rename[a], rename[b], weight=data["weight"], description=data["description"], order=1)
        nano.edges[rename[a], rename[b]]["source_id"] = data["source_id"]
    nx.write_graphml(nano, out / "graph_chunk_entity_relation.graphml")
    for name in ("vdb_relationships.json", "vdb_chunks.json", "kv_store_doc_status.json"):
        (out / name).unlink()  # LightRAG-only files
    reports = {
        key: {
            "report_string": f"# Cluster {key}\n\n" + ", ".join(members[:12]),
            "report_json": {"title": f"Cluster {key}", "summary": "", "rating": 5.0, "findings": []},
            "level": 0,
            "title": f"Cluster {key}",
            "edges": [],
            "nodes": members,
            "chunk_ids": [],
            "occurrence": 1.0,
            "sub_communities": [],
        }
        for key, members in communities.items()
    }
    (out / "kv_store_community_reports.json").write_text(json.dumps(reports, ensure_ascii=False), encoding="utf-8")
    rows = [{"__id__": _md5("ent-", n), "entity_name": n} for n in nano.nodes]
    _vdb(out / "vdb_entities.json", rows, dim, np.random.default_rng(seed + 1))


def write_graphrag_dir(out: Path, entities: int, relations: int, chunks: int, dim: int = 256, seed: int = 0) -> None:
    """A GraphRAG 3.x output folder: the six Parquet tables and the three LanceDB vector tables."""
    import lancedb
    import pyarrow as pa
    import pyarrow.parquet as pq

    rnd, rng = random.Random(seed), np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    texts = [" ".join(rnd.choice(WORDS) for _ in range(220)) + f" #{c}" for c in range(chunks)]
    unit_ids = [hashlib.sha512(t.encode()).hexdigest() for t in texts]
    docs = [f"doc-{d}" for d in range(max(1, chunks // 5))]
    names = [f"ENTITY {i:05d} {rnd.choice(WORDS).upper()}" for i in range(entities)]
    ent_ids = [hashlib.md5(n.encode()).hexdigest() for n in names]
    weights = np.arange(1, entities + 1, dtype=float) ** -0.8
    weights /= weights.sum()
    pairs, seen = [], set()
    while len(pairs) < relations:
        for a, b in rng.choice(entities, size=(relations, 2), p=weights):
            if a != b and (a, b) not in seen and (b, a) not in seen:
                seen.add((a, b))
                pairs.append((int(a), int(b)))
                if len(pairs) == relations:
                    break
    degree = np.zeros(entities, dtype=np.int64)
    for a, b in pairs:
        degree[a] += 1
        degree[b] += 1
    n_comm = max(1, entities // 20)
    tables = {
        "documents": {
            "id": docs,
            "human_readable_id": list(range(len(docs))),
            "title": [f"{d}.txt" for d in docs],
            "text": [f"document {d}" for d in docs],
            "text_unit_ids": [[u for i, u in enumerate(unit_ids) if i // 5 == k] for k in range(len(docs))],
        },
        "text_units": {
            "id": unit_ids,
            "human_readable_id": list(range(chunks)),
            "text": texts,
            "n_tokens": [230] * chunks,
            "document_id": [docs[min(i // 5, len(docs) - 1)] for i in range(chunks)],
            "entity_ids": [[] for _ in range(chunks)],
            "relationship_ids": [[] for _ in range(chunks)],
        },
        "entities": {
            "id": ent_ids,
            "human_readable_id": list(range(entities)),
            "title": names,
            "type": [rnd.choice(["PERSON", "ORGANIZATION", "GEO", "EVENT"]) for _ in names],
            "description": [f"{n} is connected to the {rnd.choice(WORDS)} of the city." for n in names],
            "text_unit_ids": [rnd.sample(unit_ids, 2) for _ in names],
            "frequency": [2] * entities,
            "degree": degree.tolist(),
        },
        "relationships": {
            "id": [hashlib.md5(f"{a}-{b}".encode()).hexdigest() for a, b in pairs],
            "human_readable_id": list(range(len(pairs))),
            "source": [names[a] for a, _ in pairs],
            "target": [names[b] for _, b in pairs],
            "description": [f"{names[a]} and {names[b]} share a {rnd.choice(WORDS)}." for a, b in pairs],
            "weight": [float(rnd.randint(1, 10)) for _ in pairs],
            "combined_degree": [int(degree[a] + degree[b]) for a, b in pairs],
            "text_unit_ids": [[rnd.choice(unit_ids)] for _ in pairs],
        },
        "communities": {
            "id": [f"comm-{c}" for c in range(n_comm)],
            "human_readable_id": list(range(n_comm)),
            "community": list(range(n_comm)),
            "level": [0] * n_comm,
            "parent": [-1] * n_comm,
            "children": [[] for _ in range(n_comm)],
            "title": [f"Community {c}" for c in range(n_comm)],
            "entity_ids": [ent_ids[c::n_comm] for c in range(n_comm)],
        },
        "community_reports": {
            "id": [f"report-{c}" for c in range(n_comm)],
            "human_readable_id": list(range(n_comm)),
            "community": list(range(n_comm)),
            "level": [0] * n_comm,
            "title": [f"Community {c} report" for c in range(n_comm)],
            "summary": [f"Summary of community {c}." for c in range(n_comm)],
            "full_content": [f"# Community {c}\n\n" + ", ".join(names[c::n_comm][:12]) for c in range(n_comm)],
            "rank": [float(rnd.randint(1, 10)) for _ in range(n_comm)],
        },
    }
    for name, columns in tables.items():
        pq.write_table(pa.table(columns), out / f"{name}.parquet")
    db = lancedb.connect(str(out / "lancedb"))
    for name, ids in (
        ("entity_description", ent_ids),
        ("text_unit_text", unit_ids),
        ("community_full_content", tables["community_reports"]["id"]),
    ):
        matrix = rng.standard_normal((len(ids), dim)).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        vectors = pa.FixedSizeListArray.from_arrays(pa.array(matrix.ravel()), dim)
        db.create_table(name, pa.table({"id": ids, "vector": vectors}))


WRITERS = {"nano": write_nano_dir, "lightrag": write_lightrag_dir, "msgraphrag": write_graphrag_dir}


def run_import(kind: str, src: Path, out: Path) -> tuple[float, float]:
    """(seconds, peak RSS MiB) of one ``python -m graphrag_ui import`` in a fresh process."""
    cmd = [sys.executable, "-m", "graphrag_ui", "import", kind, str(src), "--out", str(out), "--embedder", "hash"]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"import {kind} failed ({proc.returncode}): {err.strip().splitlines()[-1:]}")
    return seconds, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--formats", nargs="+", choices=list(WRITERS), default=list(WRITERS))
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--relations", type=int, help="default: 3 per entity")
    parser.add_argument("--chunks", type=int, help="default: 1 per 2 entities")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", help="write the synthetic sources under this folder and keep them (reused)")
    args = parser.parse_args()
    relations, chunks = args.relations or 3 * args.entities, args.chunks or args.entities // 2
    goal = GOALS_S.get(args.entities)
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        base = Path(args.keep) if args.keep else Path(tmp)
        print(f"{'format':<11} {'p50 s':>7} {'max s':>7} {'peak MiB':>9}  goal")
        for kind in args.formats:
            src = base / f"{kind}-{args.entities}"
            if not (src / ".complete").is_file():
                start = time.perf_counter()
                WRITERS[kind](src, args.entities, relations, chunks)
                (src / ".complete").write_text("", encoding="utf-8")
                print(f"  (wrote {kind} source, {args.entities} entities, in {time.perf_counter() - start:.1f} s)")
            runs = [run_import(kind, src, Path(tmp) / f"index-{kind}-{r}") for r in range(args.runs)]
            p50 = statistics.median(s for s, _ in runs)
            verdict = "" if goal is None else ("ok" if p50 <= goal else f"MISSED (> {goal:.0f} s)")
            peak = max(m for _, m in runs)
            print(f"{kind:<11} {p50:>7.2f} {max(s for s, _ in runs):>7.2f} {peak:>9.0f}  {verdict}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
