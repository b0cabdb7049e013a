"""The reference-library half of scripts/bench_retrieval.py; runs INSIDE a golden harness venv.

    python bench_retrieval_reference.py time  {nano|lightrag147|graphrag3} WORKDIR
        times the library's own context builder for WORKDIR/cases.json (each case names its corpus,
        i.e. the working dir WORKDIR/<corpus>) and prints a JSON list of per-case medians (ms)
    python bench_retrieval_reference.py contexts {nano|nano-naive|lightrag147|lightrag157|graphrag3} WORKDIR CASES.json MODE
        a user's view of one mode, for scripts/bench_vs_reference.py: opens WORKDIR with the library
        (timed: "load"), then runs every case's query through the library's own query path with
        only_need_context (query embedding included, the first query included), and prints one JSON
        object: load_s, per-query ms (wall) and cpu_ms (this process's CPU time), the context strings
        and this process's peak RSS. ``nano.global``: nano-graphrag's whole ``global_query`` with a
        scripted best model that records each map call's batch table (the CSV its system prompt is
        filled with) and answers ``{"points": []}`` (no point, so nano returns its fail response without
        a reduce call); the "context" is the JSON list of those tables, in call order
    python bench_retrieval_reference.py write {nano|lightrag147|lightrag157|graphrag3} DUMP.json OUTDIR
        writes a "golden-style" working dir at any size: the rows of DUMP.json (dumped from one of our
        synthetic indexes) stored through the library's OWN storage classes, so the files are exactly
        what the library reads; our importer then reads the same files (GraphRAG 3.3.0: its table
        provider and LanceDB store, in scripts/bench_graphrag3_world.py). LightRAG 1.5.7 (``lightrag157``)
        stores what its insert pipeline stores: the relation vector rows under the sorted pair, a
        ``truncate`` field on nodes and edges, and its four chunk-tracking stores (``entity_chunks``,
        ``relation_chunks``, ``full_entities``, ``full_relations``)
    python bench_retrieval_reference.py write-chunks nano DUMP.json WORKDIR
        adds nano-graphrag's chunk vector store (``vdb_chunks.json``) to a nano working dir, as its
        insert does with ``enable_naive_rag=True`` (``chunks_vdb.upsert`` of the text chunks): what
        ``nano.naive`` searches

Needs only the library, numpy and graphrag_ui.embedding.embed.HashEmbedder from this checkout (the query
embedder on both sides, so both times include the same cheap hash embedding).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPEAT = int(os.environ.get("BENCH_REPEAT", "15"))


def hash_vectors(texts):
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from graphrag_ui.embedding.embed import HashEmbedder

    return np.stack([HashEmbedder.vector(t) for t in texts])


def random_vectors(texts, dim: int = 256):
    """Dense unit vectors as an embedding model gives (no exact ties between scores), one per text and
    seeded by it: the same text gets the same vector in every writer and every run."""
    import hashlib

    import numpy as np

    rows = []
    for text in texts:
        seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")
        row = np.random.default_rng(seed).standard_normal(dim, dtype=np.float32)
        rows.append(row / np.linalg.norm(row))
    return np.stack(rows) if rows else np.zeros((0, dim), dtype=np.float32)


def world_vectors(texts):
    """The vectors a writer stores for the rows' texts: ``BENCH_WORLD_VECTORS`` = ``random`` (the
    default of bench_vs_reference.py: ``random_vectors``) or ``hash`` (the hash embedder, as the query).
    Queries are always embedded with ``hash_vectors`` on both sides."""
    how = os.environ.get("BENCH_WORLD_VECTORS", "hash")
    if how not in ("hash", "random"):
        raise SystemExit(f"BENCH_WORLD_VECTORS must be hash or random, not {how!r}")
    return random_vectors(texts) if how == "random" else hash_vectors(texts)


def timed(run, repeat: int = REPEAT) -> float:
    run()  # warm-up, as on our side
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def timed_async(make, repeat: int = REPEAT) -> float:
    """Like ``timed`` for a coroutine factory, measured inside the running loop."""
    await make()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        await make()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def no_llm(*args, **kwargs):
    if "User Query:" in (args[0] if args else ""):  # LightRAG 1.4.7 asks for keywords when a list is empty
        return json.dumps({"high_level_keywords": [], "low_level_keywords": []})
    raise RuntimeError("no LLM at query time")


# ------------------------------------------------------------------ nano-graphrag 0.0.8.2


def nano_rag(workdir: Path, threshold: float = 0.2, writing: bool = False, naive: bool = False, model=no_llm):
    """nano-graphrag on ``workdir``; ``naive`` opens its chunk vector store too (``enable_naive_rag``, which
    ``nano.naive`` needs), ``model`` answers its best-model calls (``nano.global``'s map step)."""
    from nano_graphrag import GraphRAG
    from nano_graphrag._utils import wrap_embedding_func_with_attrs

    @wrap_embedding_func_with_attrs(embedding_dim=256, max_token_size=8192)
    async def hash_embed(texts):  # a writer stores the world's vectors; a query is embedded with hash
        return world_vectors(texts) if writing else hash_vectors(texts)

    return GraphRAG(
        working_dir=str(workdir),
        embedding_func=hash_embed,
        best_model_func=model,
        cheap_model_func=no_llm,
        enable_llm_cache=False,
        enable_naive_rag=naive,
        query_better_than_threshold=threshold,
    )


class MapRecorder:
    """nano-graphrag's best model for ``global_query``, scripted: each map call's batch table (the
    ``context_data`` its system prompt is filled with, cut out of the template) is recorded and answered with no point, so nano ends at its fail response without a reduce call. What nano does before
    its map calls (community schema, level filter, sort, cap, reports, rating filter, sort, token groups, CSV,
    prompt) all runs, as the map calls themselves (``asyncio.gather``) with an answer that costs nothing."""

    def __init__(self) -> None:
        from nano_graphrag.prompt import PROMPTS

        self.head, self.tail = PROMPTS["global_map_rag_points"].format(context_data="\x00").split("\x00")
        self.tables: list[str] = []

    async def __call__(self, prompt, system_prompt=None, history_messages=None, **kwargs) -> str:
        text = system_prompt or ""
        if not (text.startswith(self.head) and text.endswith(self.tail)):
            raise RuntimeError(f"only map calls are scripted, got: {(system_prompt or prompt)[:120]!r}")
        self.tables.append(text[len(self.head) : len(text) - len(self.tail)])
        return '{"points": []}'

    def take(self) -> str:
        """The batch tables of the last query's map calls, in call order (a JSON list), and a fresh record."""
        out, self.tables = json.dumps(self.tables, ensure_ascii=False), []
        return out


def time_nano(workdir: Path, cases: list[dict]) -> list[float]:
    from nano_graphrag import QueryParam
    from nano_graphrag._op import _build_local_query_context

    rags: dict = {}

    async def one(case: dict) -> float:
        params = dict(case["params"])
        threshold = params.pop("query_better_than_threshold", 0.2)
        key = (case["corpus"], threshold)
        if key not in rags:
            rags[key] = nano_rag(workdir / case["corpus"], threshold)
        rag = rags[key]
        param = QueryParam(mode="local", only_need_context=True, **params)
        stores = (rag.chunk_entity_relation_graph, rag.entities_vdb, rag.community_reports, rag.text_chunks)
        return await timed_async(lambda: _build_local_query_context(case["query"], *stores, param))

    async def run() -> list[float]:
        return [await one(case) for case in cases]

    return asyncio.run(run())


def nano_records(dump: dict) -> dict:
    """What nano-graphrag's storages receive for ``dump``'s rows: graph nodes and edges in upsert order,
    the three kv stores' records and the entity vector store's (id, content, name) rows. Shared by the
    library's own writer (``write_nano``) and the streaming one (``nano_direct_writer.py``)."""
    from nano_graphrag._utils import compute_mdhash_id

    nodes = [
        (
            e["name"],
            {
                "entity_type": e["type"],
                "description": e["description"],
                "source_id": "<SEP>".join(e["chunks"]),
                "clusters": json.dumps([{"level": level, "cluster": cid} for level, cid in e["communities"]]),
            },
        )
        for e in dump["entities"]
    ]
    edges = [
        (
            r["source"],
            r["target"],
            {
                "weight": r["weight"],
                "description": r["description"],
                "source_id": "<SEP>".join(r["chunks"]),
                "order": 1,
            },
        )
        for r in dump["relations"]
    ]
    chunks = {
        c["id"]: {"tokens": c["tokens"], "content": c["text"], "chunk_order_index": c["order"], "full_doc_id": c["doc"]}
        for c in dump["chunks"]
    }
    reports = {}
    for c in dump["communities"]:
        report_json = {"title": c["title"], "summary": c["report"][:200], "rating": c["rating"], "findings": []}
        reports[c["id"]] = {
            "report_string": c["report"],
            "report_json": report_json,
            "level": c["level"],
            "title": c["title"],
            "edges": [],
            "nodes": c["members"],
            "chunk_ids": [],
            "occurrence": 1.0,
            "sub_communities": [],
        }
    vdb = {
        compute_mdhash_id(e["name"], prefix="ent-"): {"content": e["name"] + e["description"], "entity_name": e["name"]}
        for e in dump["entities"]
    }
    docs = {d["id"]: {"content": d["text"]} for d in dump["documents"]}
    return {"nodes": nodes, "edges": edges, "chunks": chunks, "docs": docs, "reports": reports, "vdb": vdb}


def write_nano_chunks(dump: dict, out: Path) -> None:
    """nano-graphrag's chunk vector store in the nano working dir ``out``, written by its own storage as its
    insert writes it with ``enable_naive_rag=True`` (``chunks_vdb.upsert`` of the text chunk records)."""
    rag = nano_rag(out, writing=True, naive=True)

    async def run() -> None:
        await rag.chunks_vdb.upsert(nano_records(dump)["chunks"])
        await rag.chunks_vdb.index_done_callback()

    asyncio.run(run())


def write_nano(dump: dict, out: Path) -> None:
    """The working dir written by nano-graphrag's own storages (slow at 300k: see nano_direct_writer.py)."""
    rag = nano_rag(out, writing=True)
    rows = nano_records(dump)

    async def run() -> None:
        graph = rag.chunk_entity_relation_graph
        for name, node in rows["nodes"]:
            await graph.upsert_node(name, node_data=node)
        for source, target, edge in rows["edges"]:
            await graph.upsert_edge(source, target, edge_data=edge)
        await rag.text_chunks.upsert(rows["chunks"])
        await rag.full_docs.upsert(rows["docs"])
        await rag.community_reports.upsert(rows["reports"])
        await rag.entities_vdb.upsert(rows["vdb"])
        for store in (graph, rag.text_chunks, rag.full_docs, rag.community_reports, rag.entities_vdb):
            await store.index_done_callback()

    asyncio.run(run())


# ------------------------------------------------------------------ LightRAG 1.4.7


async def lightrag_instance(workdir: Path, config: dict, writing: bool = False):
    from lightrag import LightRAG
    from lightrag.utils import EmbeddingFunc

    async def embed(texts, **kwargs):  # a writer stores the world's vectors; a query is embedded with hash
        return world_vectors(texts) if writing else hash_vectors(texts)

    named = {"model_name": "hash"} if _has_field(EmbeddingFunc, "model_name") else {}  # 1.5.x, as its golden harness
    rag = LightRAG(
        working_dir=str(workdir),
        llm_model_func=no_llm,
        llm_model_name="scripted",
        embedding_func=EmbeddingFunc(embedding_dim=256, func=embed, max_token_size=8192, **named),
        enable_llm_cache=False,
        **config,
    )
    await rag.initialize_storages()
    return rag


def _has_field(cls, name: str) -> bool:
    import dataclasses

    return dataclasses.is_dataclass(cls) and any(f.name == name for f in dataclasses.fields(cls))


def time_lightrag(workdir: Path, cases: list[dict]) -> list[float]:
    from lightrag import QueryParam

    async def run() -> list[float]:
        rags: dict = {}
        out = []
        for case in cases:
            config = case.get("instance", {})
            key = (case["corpus"], json.dumps(config, sort_keys=True))
            if key not in rags:
                rags[key] = await lightrag_instance(workdir / case["corpus"], config)
            param = QueryParam(
                mode=case["mode"].split(".")[1],
                only_need_context=True,
                enable_rerank=False,
                hl_keywords=case.get("hl_keywords", []),
                ll_keywords=case.get("ll_keywords", []),
                **case["params"],
            )
            rag = rags[key]
            out.append(await timed_async(lambda rag=rag, param=param, q=case["query"]: rag.aquery(q, param=param)))
        for rag in rags.values():
            await rag.finalize_storages()
        return out

    return asyncio.run(run())


def write_lightrag(dump: dict, out: Path, lib: str = "lightrag147") -> None:
    """A LightRAG working dir written by the installed release's own storages (``lib``: which release the venv
    holds, ``lightrag147`` or ``lightrag157``), with the records its insert pipeline stores. 1.5.7 differs from
    1.4.7 in what it stores, not how: the relation vector row is keyed by the sorted pair and holds it sorted
    (``_merge_edges_then_upsert``), nodes and edges carry ``truncate`` ("" when nothing was cut), and the
    chunk-tracking stores ``entity_chunks`` / ``relation_chunks`` (``make_relation_chunk_key``) and the
    per-document ``full_entities`` / ``full_relations`` are filled (their queries never read them, but a
    real 1.5.7 dir has them and the library loads them when it opens the dir)."""
    from lightrag.utils import compute_mdhash_id

    sep, path, v15 = "<SEP>", "synthetic.txt", lib == "lightrag157"
    cut = {"truncate": ""} if v15 else {}

    def pair(r: dict) -> tuple[str, str]:
        return tuple(sorted((r["source"], r["target"]))) if v15 else (r["source"], r["target"])

    async def run() -> None:
        rag = await lightrag_instance(out, {}, writing=True)
        graph = rag.chunk_entity_relation_graph
        for e in dump["entities"]:
            node = {"entity_id": e["name"], "entity_type": e["type"], "description": e["description"]}
            node |= {"source_id": sep.join(e["chunks"]), "file_path": path, "created_at": 0, **cut}
            await graph.upsert_node(e["name"], node)
        for r in dump["relations"]:
            edge = {"weight": r["weight"], "description": r["description"], "keywords": r["keywords"]}
            edge |= {"source_id": sep.join(r["chunks"]), "file_path": path, "created_at": 0, **cut}
            await graph.upsert_edge(r["source"], r["target"], edge)
        chunk_rows = {
            c["id"]: {
                "content": c["text"],
                "tokens": c["tokens"],
                "chunk_order_index": c["order"],
                "full_doc_id": c["doc"],
                "file_path": path,
            }
            for c in dump["chunks"]
        }
        await rag.text_chunks.upsert(chunk_rows)
        await rag.chunks_vdb.upsert(chunk_rows)
        await rag.full_docs.upsert({d["id"]: {"content": d["text"], "file_path": path} for d in dump["documents"]})
        await rag.entities_vdb.upsert(
            {
                compute_mdhash_id(e["name"], prefix="ent-"): {
                    "content": f"{e['name']}\n{e['description']}",
                    "entity_name": e["name"],
                    "source_id": sep.join(e["chunks"]),
                    "description": e["description"],
                    "entity_type": e["type"],
                    "file_path": path,
                }
                for e in dump["entities"]
            }
        )
        await rag.relationships_vdb.upsert(
            {
                compute_mdhash_id(src + tgt, prefix="rel-"): {
                    "src_id": src,
                    "tgt_id": tgt,
                    "source_id": sep.join(r["chunks"]),
                    "content": f"{r['keywords']}\t{src}\n{tgt}\n{r['description']}",
                    "keywords": r["keywords"],
                    "description": r["description"],
                    "weight": r["weight"],
                    "file_path": path,
                }
                for r in dump["relations"]
                for src, tgt in [pair(r)]
            }
        )
        if v15:
            await _chunk_tracking_157(rag, dump)
        await rag.doc_status.upsert({d["id"]: {"status": "processed", "file_path": path} for d in dump["documents"]})
        await rag._insert_done()
        await rag.finalize_storages()

    asyncio.run(run())


async def _chunk_tracking_157(rag, dump: dict) -> None:
    """LightRAG 1.5.7's chunk-tracking stores for ``dump``'s rows, as its merge steps fill them."""
    from lightrag.utils import make_relation_chunk_key

    doc_of = {c["id"]: c["doc"] for c in dump["chunks"]}
    await rag.entity_chunks.upsert(
        {e["name"]: {"chunk_ids": e["chunks"], "count": len(e["chunks"])} for e in dump["entities"]}
    )
    await rag.relation_chunks.upsert(
        {
            make_relation_chunk_key(r["source"], r["target"]): {"chunk_ids": r["chunks"], "count": len(r["chunks"])}
            for r in dump["relations"]
        }
    )
    names: dict[str, set] = {}
    pairs: dict[str, set] = {}
    for e in dump["entities"]:
        for cid in e["chunks"]:
            names.setdefault(doc_of.get(cid, ""), set()).add(e["name"])
    for r in dump["relations"]:
        for cid in r["chunks"]:
            pairs.setdefault(doc_of.get(cid, ""), set()).add(tuple(sorted((r["source"], r["target"]))))
    await rag.full_entities.upsert(
        {doc: {"entity_names": sorted(found), "count": len(found)} for doc, found in names.items() if doc}
    )
    await rag.full_relations.upsert(
        {
            doc: {"relation_pairs": [list(p) for p in sorted(found)], "count": len(found)}
            for doc, found in pairs.items()
            if doc
        }
    )


# ------------------------------------------------------------------ GraphRAG 3.3.0


def time_graphrag3(workdir: Path, cases: list[dict]) -> list[float]:
    sys.argv = sys.argv[:1]
    sys.path.insert(0, str(ROOT / "scripts" / "goldens"))
    import graphrag_3x as g3  # the golden harness: config, table reading and engine exactly as the CLI

    out = []
    engines: dict = {}
    for case in cases:
        key = (case["corpus"], case["params"]["community_level"])
        if key not in engines:
            dest = workdir / case["corpus"]
            config = g3.make_config(workdir / f"root-{case['corpus']}", dest / "lancedb")
            config.output_storage.base_dir = str(dest)
            engines[key] = g3.engine_for(config, g3.load_tables(config), key[1])
        engine = engines[key]
        params = {k: v for k, v in case["params"].items() if k != "community_level"}
        kwargs = {**engine.context_builder_params, **params}
        out.append(timed(lambda e=engine, q=case["query"], kw=kwargs: e.context_builder.build_context(query=q, **kw)))
    return out


# ------------------------------------------------------------------ one mode as a user sees it


def peak_rss_mib() -> float:
    """This process's own peak RSS: /proc's VmHWM (of this program's memory since exec). ``ru_maxrss``
    is not that: Linux carries the spawning process's peak across a vfork + exec, so every child of a
    harness holding a 100k index reported the harness's 2.5 GiB."""
    import resource

    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _contexts_nano(workdir: Path, cases: list[dict], mode: str) -> dict:
    from nano_graphrag import QueryParam

    kind = mode.split(".")[1]
    recorder = MapRecorder() if kind == "global" else None
    start = time.perf_counter()
    threshold = cases[0]["params"].get("query_better_than_threshold", 0.2)
    rag = nano_rag(workdir, threshold=threshold, naive=kind == "naive", model=recorder or no_llm)
    load_s = time.perf_counter() - start
    times, cpu_ms, contexts = [], [], []
    for case in cases:
        params = {k: v for k, v in case["params"].items() if k != "query_better_than_threshold"}
        param = QueryParam(mode=kind, only_need_context=True, **params)
        start, cpu = time.perf_counter(), time.process_time()
        context = await rag.aquery(case["query"], param)
        times.append((time.perf_counter() - start) * 1000)
        cpu_ms.append((time.process_time() - cpu) * 1000)
        contexts.append(recorder.take() if recorder else context)
    return {"load_s": load_s, "ms": times, "cpu_ms": cpu_ms, "contexts": contexts}


async def _contexts_lightrag(workdir: Path, cases: list[dict], mode: str) -> dict:
    from lightrag import QueryParam

    start = time.perf_counter()
    rag = await lightrag_instance(workdir, cases[0].get("instance", {}))
    load_s = time.perf_counter() - start
    times, cpu_ms, contexts = [], [], []
    for case in cases:
        param = QueryParam(
            mode=mode.split(".")[1],
            only_need_context=True,
            enable_rerank=False,
            hl_keywords=case.get("hl_keywords", []),
            ll_keywords=case.get("ll_keywords", []),
            **case["params"],
        )
        start, cpu = time.perf_counter(), time.process_time()
        contexts.append(await rag.aquery(case["query"], param=param))
        times.append((time.perf_counter() - start) * 1000)
        cpu_ms.append((time.process_time() - cpu) * 1000)
    await rag.finalize_storages()
    return {"load_s": load_s, "ms": times, "cpu_ms": cpu_ms, "contexts": contexts}


def contexts(lib: str, workdir: Path, cases: list[dict], mode: str) -> dict:
    if lib == "graphrag3":
        import bench_graphrag3_world as world  # its imports (graphrag's) are not part of "load"

        world._golden_module()
        return {**world.contexts_graphrag3(workdir, cases, mode), "peak_rss_mib": peak_rss_mib()}
    if lib.startswith("nano"):
        import nano_graphrag  # noqa: F401  (imports are not part of "load", as on our side)
    else:
        import lightrag  # noqa: F401
    run = {"nano": _contexts_nano, "nano-naive": _contexts_nano}.get(lib, _contexts_lightrag)
    out = asyncio.run(run(workdir, cases, mode))
    return {**out, "peak_rss_mib": peak_rss_mib()}


def main() -> int:
    action, lib, *rest = sys.argv[1:]
    if action == "contexts":
        cases = json.loads(Path(rest[1]).read_text(encoding="utf-8"))
        print(json.dumps(contexts(lib, Path(rest[0]), cases, rest[2]), ensure_ascii=False))
    elif action == "time":
        workdir = Path(rest[0])
        cases = json.loads((workdir / "cases.json").read_text(encoding="utf-8"))
        run = {"nano": time_nano, "lightrag147": time_lightrag, "graphrag3": time_graphrag3}[lib]
        print(json.dumps(run(workdir, cases)))
    elif action == "write":
        dump = json.loads(Path(rest[0]).read_text(encoding="utf-8"))
        if lib == "graphrag3":
            import bench_graphrag3_world as world

            world.write_graphrag3(dump, Path(rest[1]))
        elif lib == "nano":
            write_nano(dump, Path(rest[1]))
        else:
            write_lightrag(dump, Path(rest[1]), lib)
    elif action == "write-chunks":  # nano only: its chunk vectors, added to a nano working dir
        write_nano_chunks(json.loads(Path(rest[0]).read_text(encoding="utf-8")), Path(rest[1]))
    else:
        raise SystemExit(f"unknown action {action!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
