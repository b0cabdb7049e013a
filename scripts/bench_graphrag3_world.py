"""GraphRAG 3.3.0's side of scripts/bench_vs_reference.py; imported INSIDE /tmp/goldens-venv-graphrag3.

Two jobs, both through graphrag's own code so the files and the timings are the library's:

* ``write_graphrag3``: the synthetic rows (scripts/bench_retrieval.py's dump) as a GraphRAG output
  dir — the six parquet tables written by graphrag's table provider (``write_dataframe``, the
  indexer's own writer) and the three embedding tables by its LanceDB vector store
  (``create_index`` + ``load_documents``, as ``embed_text`` does), vectors (``world_vectors``: the project's hash
  embedder, or random dense ones seeded by the text) over the texts graphrag embeds (``title:description``, report ``full_content``, unit text);
* ``contexts_graphrag3``: a user's view of ``ms.local``: reading the tables and opening the engine
  exactly as the CLI does (timed: "load"), then ``build_context`` per query (the query embedding
  included), context only — GraphRAG's local search has no "only context" switch, this is its
  context half.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "goldens"))
PERIOD = "2026-11-22"


def _golden_module():
    """graphrag_3x registers the scripted (hash) embedding model and builds config/engines like the CLI."""
    argv, sys.argv = sys.argv, sys.argv[:1]
    try:
        import graphrag_3x
    finally:
        sys.argv = argv
    return graphrag_3x


def _lineage(dump: dict) -> tuple[dict[str, int], dict[str, int]]:
    """Community id → integer id (dump order), and → its parent's integer id (from a member's lineage; -1 at the top)."""
    number = {c["id"]: i for i, c in enumerate(dump["communities"])}
    owner = {}
    for e in dump["entities"]:
        chain = sorted(e["communities"])
        for (_, above), (_, below) in zip(chain, chain[1:], strict=False):
            owner.setdefault(below, above)
    parent = {cid: number.get(owner.get(cid), -1) for cid in number}
    return number, parent


def _tables(dump: dict) -> dict:
    """The six GraphRAG 3 tables (columns and dtypes as the golden fixtures' parquet files)."""
    import numpy as np
    import pandas as pd

    ents, rels, chunks = dump["entities"], dump["relations"], dump["chunks"]
    entity_id = {e["name"]: f"ent-{i}" for i, e in enumerate(ents)}
    degree: dict[str, int] = {}
    for r in rels:
        for end in (r["source"], r["target"]):
            degree[end] = degree.get(end, 0) + 1
    unit_rels: dict[str, list[str]] = {c["id"]: [] for c in chunks}
    unit_ents: dict[str, list[str]] = {c["id"]: [] for c in chunks}
    for i, r in enumerate(rels):
        for cid in r["chunks"]:
            unit_rels.setdefault(cid, []).append(f"rel-{i}")
    for e in ents:
        for cid in e["chunks"]:
            unit_ents.setdefault(cid, []).append(entity_id[e["name"]])
    number, parent = _lineage(dump)
    by_name = {e["name"]: e for e in ents}
    in_comms = {e["name"]: {cid for _, cid in e["communities"]} for e in ents}
    comm_rels: dict[str, list[str]] = {}
    for i, r in enumerate(rels):
        for cid in sorted(in_comms.get(r["source"], set()) & in_comms.get(r["target"], set())):
            comm_rels.setdefault(cid, []).append(f"rel-{i}")
    children: dict[int, list[int]] = {}
    for cid, p in parent.items():
        if p >= 0:
            children.setdefault(p, []).append(number[cid])

    def arr(items, dtype=object):
        return np.array(items, dtype=dtype)

    entities = pd.DataFrame(
        {
            "id": [entity_id[e["name"]] for e in ents],
            "human_readable_id": range(len(ents)),
            "title": [e["name"] for e in ents],
            "type": [e["type"] for e in ents],
            "description": [e["description"] for e in ents],
            "text_unit_ids": [arr(e["chunks"]) for e in ents],
            "frequency": [len(e["chunks"]) for e in ents],
            "degree": [degree.get(e["name"], 0) for e in ents],
        }
    )
    relationships = pd.DataFrame(
        {
            "id": [f"rel-{i}" for i in range(len(rels))],
            "human_readable_id": range(len(rels)),
            "source": [r["source"] for r in rels],
            "target": [r["target"] for r in rels],
            "description": [r["description"] for r in rels],
            "weight": [float(r["weight"]) for r in rels],
            "combined_degree": [degree.get(r["source"], 0) + degree.get(r["target"], 0) for r in rels],
            "text_unit_ids": [arr(r["chunks"]) for r in rels],
        }
    )
    comm_rows = []
    for c in dump["communities"]:
        n = number[c["id"]]
        units = {u for m in c["members"] if m in by_name for u in by_name[m]["chunks"]}
        comm_rows.append(
            {
                "id": f"comm-{n}",
                "human_readable_id": n,
                "community": n,
                "level": c["level"],
                "parent": parent[c["id"]],
                "children": arr(children.get(n, []), np.int64),
                "title": f"Community {n}",
                "entity_ids": arr([entity_id[m] for m in c["members"] if m in entity_id]),
                "relationship_ids": arr(comm_rels.get(c["id"], [])),
                "text_unit_ids": arr(sorted(units)),
                "period": PERIOD,
                "size": len(c["members"]),
            }
        )
    communities = pd.DataFrame(comm_rows)
    reports = pd.DataFrame(
        {
            "id": [f"report-{number[c['id']]}" for c in dump["communities"]],
            "human_readable_id": [number[c["id"]] for c in dump["communities"]],
            "community": [number[c["id"]] for c in dump["communities"]],
            "level": [c["level"] for c in dump["communities"]],
            "parent": [parent[c["id"]] for c in dump["communities"]],
            "children": [arr(children.get(number[c["id"]], []), np.int64) for c in dump["communities"]],
            "title": [c["title"] for c in dump["communities"]],
            "summary": [
                c["report"].split("\n\n", 2)[1] if c["report"].count("\n\n") else c["report"]
                for c in dump["communities"]
            ],
            "full_content": [c["report"] for c in dump["communities"]],
            "rank": [float(c["rating"]) for c in dump["communities"]],
            "rating_explanation": [f"Rated {c['rating']}." for c in dump["communities"]],
            "findings": [arr([]) for _ in dump["communities"]],
            "full_content_json": ["{}" for _ in dump["communities"]],
            "period": PERIOD,
            "size": [len(c["members"]) for c in dump["communities"]],
        }
    )
    text_units = pd.DataFrame(
        {
            "id": [c["id"] for c in chunks],
            "human_readable_id": range(len(chunks)),
            "text": [c["text"] for c in chunks],
            "n_tokens": [int(c["tokens"]) for c in chunks],
            "document_id": [c["doc"] for c in chunks],
            "entity_ids": [arr(unit_ents[c["id"]]) for c in chunks],
            "relationship_ids": [arr(unit_rels[c["id"]]) for c in chunks],
            "covariate_ids": [arr([]) for _ in chunks],
        }
    )
    doc_units: dict[str, list[str]] = {}
    for c in chunks:
        doc_units.setdefault(c["doc"], []).append(c["id"])
    documents = pd.DataFrame(
        {
            "id": [d["id"] for d in dump["documents"]],
            "human_readable_id": range(len(dump["documents"])),
            "title": [f"{d['id']}.txt" for d in dump["documents"]],
            "text": [d["text"] for d in dump["documents"]],
            "text_unit_ids": [arr(doc_units.get(d["id"], [])) for d in dump["documents"]],
            "creation_date": f"{PERIOD} 00:00:00 +0000",
            "raw_data": None,
        }
    )
    return {
        "entities": entities,
        "relationships": relationships,
        "communities": communities,
        "community_reports": reports,
        "text_units": text_units,
        "documents": documents,
    }


def write_graphrag3(dump: dict, out: Path) -> None:
    g3 = _golden_module()
    from graphrag.config.embeddings import (
        community_full_content_embedding,
        entity_description_embedding,
        text_unit_text_embedding,
    )
    from graphrag.utils.api import get_embedding_store
    from graphrag_storage import create_storage
    from graphrag_storage.tables.table_provider_factory import create_table_provider
    from graphrag_vectors.vector_store import VectorStoreDocument

    out.mkdir(parents=True)
    config = g3.make_config(out / "root", out / "lancedb")
    config.output_storage.base_dir = str(out)
    provider = create_table_provider(config.table_provider, storage=create_storage(config.output_storage))
    tables = _tables(dump)
    for name, df in tables.items():
        asyncio.run(provider.write_dataframe(name, df))
    embedded = {
        entity_description_embedding: (
            tables["entities"]["id"],
            tables["entities"]["title"] + ":" + tables["entities"]["description"],
        ),
        community_full_content_embedding: (
            tables["community_reports"]["id"],
            tables["community_reports"]["full_content"],
        ),
        text_unit_text_embedding: (tables["text_units"]["id"], tables["text_units"]["text"]),
    }
    from bench_retrieval_reference import world_vectors  # hash, or random (BENCH_WORLD_VECTORS)

    for name, (ids, texts) in embedded.items():
        store = get_embedding_store(config=config.vector_store, embedding_name=name)
        store.create_index()
        vectors = world_vectors(list(texts)).tolist()
        store.load_documents([VectorStoreDocument(id=i, vector=v) for i, v in zip(ids, vectors, strict=True)])


def _engine(g3, config, mode: str, level: int):
    """The search engine as graphrag.api builds it for ``mode`` (the golden harnesses' factories)."""
    from graphrag.config.embeddings import text_unit_text_embedding
    from graphrag.query.factory import get_basic_search_engine, get_global_search_engine
    from graphrag.query.indexer_adapters import (
        read_indexer_communities,
        read_indexer_entities,
        read_indexer_reports,
        read_indexer_text_units,
    )
    from graphrag.utils.api import get_embedding_store

    tables = g3.load_tables(config)
    if mode == "ms.local":
        return g3.engine_for(config, tables, level)
    if mode == "ms.basic":
        store = get_embedding_store(config=config.vector_store, embedding_name=text_unit_text_embedding)
        return get_basic_search_engine(
            text_units=read_indexer_text_units(tables["text_units"]),
            text_unit_embeddings=store,
            config=config,
            response_type="Multiple Paragraphs",
        )
    if mode == "ms.global":
        return get_global_search_engine(
            config,
            reports=read_indexer_reports(tables["community_reports"], tables["communities"], level, False),
            entities=read_indexer_entities(tables["entities"], tables["communities"], level),
            communities=read_indexer_communities(tables["communities"], tables["community_reports"]),
            response_type="Multiple Paragraphs",
            dynamic_community_selection=False,
        )
    if mode == "ms.drift":  # as graphrag.api.drift_search builds it
        from graphrag.config.embeddings import community_full_content_embedding, entity_description_embedding
        from graphrag.query.factory import get_drift_search_engine
        from graphrag.query.indexer_adapters import (
            read_indexer_relationships,
            read_indexer_report_embeddings,
        )

        reports = read_indexer_reports(tables["community_reports"], tables["communities"], level)
        store = get_embedding_store(config=config.vector_store, embedding_name=community_full_content_embedding)
        read_indexer_report_embeddings(reports, store)
        return get_drift_search_engine(
            config=config,
            reports=reports,
            text_units=read_indexer_text_units(tables["text_units"]),
            entities=read_indexer_entities(tables["entities"], tables["communities"], level),
            relationships=read_indexer_relationships(tables["relationships"]),
            description_embedding_store=get_embedding_store(
                config=config.vector_store, embedding_name=entity_description_embedding
            ),
            response_type="Multiple Paragraphs",
        )
    raise SystemExit(f"no GraphRAG 3 reference for {mode}")


class _EmptyExpansion:
    """The scripted model for DRIFT's context half: an empty expansion, so GraphRAG ranks by the question."""

    @staticmethod
    def reply(messages) -> str:
        return ""


def _drift_context(engine, query: str) -> str:
    import json

    top_k, _ = asyncio.run(engine.context_builder.build_context(query))
    folds = engine.primer.split_reports(top_k)
    return json.dumps(["\n\n".join(f["full_content"].tolist()) for f in folds], ensure_ascii=False)


def contexts_graphrag3(workdir: Path, cases: list[dict], mode: str) -> dict:
    """Open (timed) and query each case; ms.global's context is its list of map batches (JSON)."""
    import json

    g3 = _golden_module()
    start = time.perf_counter()
    config = g3.make_config(workdir / "root", workdir / "lancedb")
    config.output_storage.base_dir = str(workdir)
    engine = _engine(g3, config, mode, 2)
    load_s = time.perf_counter() - start
    times, cpu_ms, contexts = [], [], []
    if mode == "ms.drift":
        g3.QUERY = _EmptyExpansion()
        for case in cases:
            start, cpu = time.perf_counter(), time.process_time()
            contexts.append(_drift_context(engine, case["query"]))
            times.append((time.perf_counter() - start) * 1000)
            cpu_ms.append((time.process_time() - cpu) * 1000)
        return {"load_s": load_s, "ms": times, "cpu_ms": cpu_ms, "contexts": contexts}
    for case in cases:
        kwargs = {**engine.context_builder_params, **case["params"]}
        start, cpu = time.perf_counter(), time.process_time()
        result = engine.context_builder.build_context(query=case["query"], **kwargs)
        if asyncio.iscoroutine(result):  # the global context builder is async
            result = asyncio.run(result)
        times.append((time.perf_counter() - start) * 1000)
        cpu_ms.append((time.process_time() - cpu) * 1000)
        chunks = result.context_chunks
        contexts.append(chunks if isinstance(chunks, str) else json.dumps(list(chunks), ensure_ascii=False))
    return {"load_s": load_s, "ms": times, "cpu_ms": cpu_ms, "contexts": contexts}
