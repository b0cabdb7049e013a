"""On-disk layout golden from Microsoft GraphRAG 1.x (``create_final_*.parquet``).

    python3 scripts/goldens/layouts_graphrag1.py      # graphrag 1.2.0 in /tmp/goldens-venv-graphrag-1.2.0

The library's own indexing pipeline (``graphrag.api.build_index``, standard workflows) over the first
three English documents of the shared corpus, with the scripted model of ``graphrag_scripted`` behind
1.x's fnllm loaders (``graphrag.index.llm.load_llm.loaders``: the chat and embedding entries are
replaced) and the project's ``hash`` embedder. Two outputs:

* ``graphrag-1.2.0/`` — the default: vectors in LanceDB (``output/lancedb/default-entity-description``…);
* ``graphrag-1.2.0-parquet/`` — ``embeddings.vector_store`` off, ``snapshots.embeddings`` on: the
  vectors are ``embeddings.entity.description.parquet`` … (``id, embedding``), no LanceDB. (The
  ``*_embedding`` columns inside the tables are 0.x's ``store_in_table``, which 1.2.0 no longer
  writes; tests/index/test_import_layouts.py moves these vectors into such columns to cover that layout.)

Only the layout is recorded; tests/index/test_import_layouts.py imports both and runs every mode.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path

import graphrag_scripted as gs  # noqa: E402

RELEASE = "1.2.0"
VENV = f"/tmp/goldens-venv-graphrag-{RELEASE}"
OUT = gs.ROOT / "tests" / "goldens" / "layouts"
DOCS = 3

if __name__ == "__main__":
    gs.ensure_venv(VENV, [f"graphrag=={RELEASE}"])
gs.deterministic_uuid4()


def _offline_env() -> None:
    import os

    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    site = next((gs.ROOT / ".venv" / "lib").glob("python*/site-packages/litellm/litellm_core_utils/tokenizers"))
    os.environ["TIKTOKEN_CACHE_DIR"] = str(site)


def patch_loaders(llm: gs.ScriptedLLM) -> None:
    from fnllm import LLMOutput
    from graphrag.config.enums import LLMType
    from graphrag.index.llm import load_llm
    from graphrag.index.llm.mock_llm import ContentResponse, MockChatLLM

    class ScriptedChat(MockChatLLM):
        async def __call__(self, prompt: str, **kwargs):
            reply = llm.reply(prompt)
            parsed = None
            if isinstance(reply, dict):
                model = kwargs.get("json_model")
                parsed = model(**reply) if model else None
                reply = json.dumps(reply, ensure_ascii=False)
            return LLMOutput(output=ContentResponse(content=reply), parsed_json=parsed)

    class Embeddings:
        def __init__(self):
            self.output = None

    class ScriptedEmbeddings:
        async def __call__(self, texts, **kwargs):
            out = Embeddings()
            out.embeddings = [gs.hash_vector(t) for t in texts]
            return type("Out", (), {"output": out})()

        def child(self, name):
            return self

    load_llm.loaders[LLMType.OpenAIChat]["load"] = lambda *a, **k: ScriptedChat([])
    load_llm.loaders[LLMType.OpenAIEmbedding]["load"] = lambda *a, **k: ScriptedEmbeddings()


def make_config(root: Path, lance: bool):
    from graphrag.config.create_graphrag_config import create_graphrag_config

    embeddings: dict = {
        "llm": {"type": "openai_embedding", "model": "text-embedding-3-small", "api_key": "unused"},
        "async_mode": "asyncio",
    }
    if lance:
        embeddings["vector_store"] = {
            "type": "lancedb",
            "db_uri": str(root / "output" / "lancedb"),
            "container_name": "default",
            "overwrite": True,
        }
    else:
        embeddings["vector_store"] = None
        embeddings["snapshots"] = {"embeddings": True}
    values = {
        "llm": {
            "type": "openai_chat",
            "model": "gpt-4o",
            "api_key": "unused",
            "encoding_model": "cl100k_base",
            "concurrent_requests": 1,
        },
        "embeddings": embeddings,
        "input": {"type": "file", "file_type": "text", "base_dir": str(root / "input"), "file_pattern": ".*\\.txt$"},
        "storage": {"type": "file", "base_dir": str(root / "output")},
        "cache": {"type": "none"},
        "reporting": {"type": "file", "base_dir": str(root / "logs")},
        "entity_extraction": {"max_gleanings": 1},
        "snapshots": {"embeddings": not lance},
    }
    return create_graphrag_config(values, root_dir=str(root))


def build(root: Path, lance: bool) -> Path:
    import graphrag.api as api

    llm = gs.ScriptedLLM("en")
    llm.docs = dict(list(llm.docs.items())[:DOCS])
    patch_loaders(llm)
    (root / "input").mkdir(parents=True)
    for name, text in llm.docs.items():
        (root / "input" / name).write_text(text, encoding="utf-8")
    config = make_config(root, lance)
    results = asyncio.run(api.build_index(config=config))

    for res in results:
        if res.errors:
            raise SystemExit(f"workflow {res.workflow} failed: {res.errors}")
    print(f"pipeline done; scripted calls: {llm.calls}", flush=True)
    return root / "output"


def main() -> None:
    import os
    import subprocess

    _offline_env()
    if "--variant" not in sys.argv:  # each variant in its own process (1.x keeps its models in singletons)
        for variant in ("lance", "parquet"):
            subprocess.run([sys.executable, __file__, "--variant", variant], check=True, env=dict(os.environ))
        return
    lance = sys.argv[sys.argv.index("--variant") + 1] == "lance"
    for name in [f"graphrag-{RELEASE}" if lance else f"graphrag-{RELEASE}-parquet"]:
        with tempfile.TemporaryDirectory() as tmp:
            output = build(Path(tmp), lance)
            dest = OUT / name
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(
                output, dest, ignore=shutil.ignore_patterns("*.json", "*.log", "*.graphml", "stats*", "indexing*")
            )
        print(f"wrote {dest}: {sorted(p.name for p in dest.iterdir())}")


if __name__ == "__main__":
    main()
