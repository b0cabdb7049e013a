"""Golden of a LightRAG Server workspace on PostgreSQL, written by lightrag-hku 1.5.7 itself.

    python3 scripts/goldens/lightrag_pg.py      # creates /tmp/goldens-venv-lightrag157-pg on first use

LightRAG with its PostgreSQL storages (``PGKVStorage``, ``PGVectorStorage``, ``PGDocStatusStorage``) and
``NetworkXStorage`` for the graph (PostgreSQL's graph storage needs the Apache AGE extension, which no
package here ships), the scripted 1.5 LLM of ``lightrag_15x.py`` and the ``hash`` embedder (model name
``hash``: the vector tables are ``LIGHTRAG_VDB_*_hash_256d``), over the first three English documents,
workspace ``golden``. The server is the ``pgserver`` wheel's PostgreSQL 16 with pgvector 0.6, started
in a temporary folder. Written to tests/goldens/lightrag-pg/en/: ``dump.sql`` (``pg_dump`` of the
database, which the tests restore into their own throwaway pgserver) and the workspace's GraphML.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import lightrag_common as common  # noqa: E402

VERSION = "1.5.7"
VENV = Path("/tmp/goldens-venv-lightrag157-pg")
OUT = common.ROOT / "tests" / "goldens" / "lightrag-pg" / "en"
WORKSPACE = "golden"
DOCS = 3

if __name__ == "__main__":
    common.ensure_venv(VENV, [f"lightrag-hku=={VERSION}", "asyncpg", "pgserver==0.1.4"], "LIGHTRAG_GOLDEN_PG")

import asyncio  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402

import numpy as np  # noqa: E402

TD, DONE = "<|#|>", "<|COMPLETE|>"


async def build(workdir: Path) -> None:
    from lightrag import LightRAG
    from lightrag.utils import EmbeddingFunc

    common.freeze_time([m for name, m in sys.modules.items() if name.startswith("lightrag") and m is not None])
    docs, extraction = common.load_corpus("en")
    docs = docs[:DOCS]
    embedder = common.hash_embedder()

    async def embed_fn(texts, **kwargs):
        return np.stack([embedder.vector(t) for t in texts]).astype(np.float32)

    async def fake_llm(prompt, system_prompt=None, history_messages=None, **kwargs):
        if system_prompt and "Knowledge Graph Specialist" in system_prompt:
            text = re.findall(r"---Input Text---\n```\n(.*?)\n```", prompt, re.S)[-1]
            ents, rels = common.records_for_chunk(text, docs, extraction)
            f = common.flat
            rows = [TD.join(["entity", f(e["name"]), f(e["type"]), f(e["description"])]) for e in ents]
            rows += [
                TD.join(["relation", f(r["source"]), f(r["target"]), f(r.get("keywords", "")), f(r["description"])])
                for r in rels
            ]
            return "\n".join(rows) + "\n" + DONE
        if "User Query:" in prompt:
            return json.dumps({"high_level_keywords": [], "low_level_keywords": []})
        raise RuntimeError(f"scripted LLM got an unexpected prompt: {prompt[:200]!r}")

    rag = LightRAG(
        working_dir=str(workdir),
        workspace=WORKSPACE,
        kv_storage="PGKVStorage",
        vector_storage="PGVectorStorage",
        doc_status_storage="PGDocStatusStorage",
        graph_storage="NetworkXStorage",
        llm_model_func=fake_llm,
        llm_model_name="scripted",
        embedding_func=EmbeddingFunc(embedding_dim=256, func=embed_fn, max_token_size=8192, model_name="hash"),
        entity_extract_max_gleaning=0,
        enable_llm_cache=False,
        max_parallel_insert=1,
    )
    await rag.initialize_storages()
    for i, (name, text) in enumerate(docs):
        await rag.ainsert(text, split_by_character="\n\n", file_paths=name, track_id=f"golden-{i}")
    await rag.finalize_storages()


def main() -> None:
    import pgserver

    with tempfile.TemporaryDirectory(prefix="lightrag-pg-") as tmp:
        data, workdir = Path(tmp) / "pgdata", Path(tmp) / "work"
        server = pgserver.get_server(str(data), cleanup_mode="stop")
        server.psql("CREATE EXTENSION IF NOT EXISTS vector;")
        os.environ.update(
            POSTGRES_HOST=str(data),  # the server's unix socket folder
            POSTGRES_PORT="5432",
            POSTGRES_USER="postgres",
            POSTGRES_PASSWORD="",
            POSTGRES_DATABASE="postgres",
        )
        asyncio.run(build(workdir))
        OUT.mkdir(parents=True, exist_ok=True)
        pg_dump = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pg_dump"
        subprocess.run(
            [str(pg_dump), "--no-owner", "--no-privileges", "-h", str(data), "-U", "postgres", "-d", "postgres"],
            check=True,
            stdout=(OUT / "dump.sql").open("w", encoding="utf-8"),
        )
        graphml = next(workdir.rglob("graph_chunk_entity_relation.graphml"))
        shutil.copyfile(graphml, OUT / "graph_chunk_entity_relation.graphml")
        print(f"wrote {OUT} (graph from {graphml.relative_to(workdir)})")


if __name__ == "__main__":
    main()
