"""On-disk layout golden from nano-graphrag 0.0.8 (0.0.8.2's is tests/goldens/nano/).

    python3 scripts/goldens/layouts_nano.py          # creates /tmp/goldens-venv-nano-0.0.8 on first use

The same scripted LLM as ``nano_graphrag.py`` (extraction records, ``<|COMPLETE|>`` for gleaning, JSON
community reports) and the ``hash`` embedder, over the first three English documents; naive RAG off,
as nano's default is (no ``vdb_chunks.json``). Writes the working dir (without its LLM cache) to
tests/goldens/layouts/nano-graphrag-0.0.8/. tests/index/test_import_layouts.py imports it and runs every mode.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MAIN = HERE.parents[1]
RELEASE = "0.0.8"
VENV = Path(f"/tmp/goldens-venv-nano-{RELEASE}")
OUT = MAIN / "tests" / "goldens" / "layouts" / f"nano-graphrag-{RELEASE}"
DOCS = 3


def _harness():
    """scripts/goldens/nano_graphrag.py under another name (its own would shadow the package)."""
    spec = importlib.util.spec_from_file_location("nano_golden_harness", HERE / "nano_graphrag.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def relaunch() -> None:
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"nano-graphrag=={RELEASE}"], check=True)
    env = dict(os.environ, PYTHONHASHSEED="0", TIKTOKEN_CACHE_DIR=str(_harness().TIKTOKEN_CACHE))
    raise SystemExit(subprocess.run([str(python), "-P", __file__, "--inside"], env=env).returncode)


def inside() -> None:
    import json

    import numpy as np
    from nano_graphrag import GraphRAG
    from nano_graphrag._utils import wrap_embedding_func_with_attrs

    harness = _harness()
    sys.path.insert(0, str(MAIN))
    from graphrag_ui.embedding.embed import HashEmbedder

    @wrap_embedding_func_with_attrs(embedding_dim=HashEmbedder.dim, max_token_size=8192)
    async def hash_embed(texts: list[str]) -> np.ndarray:
        return np.stack([HashEmbedder.vector(t) for t in texts])

    doc_dir = harness.CORPUS / "en" / "docs"
    docs = {p.name: p.read_text(encoding="utf-8") for p in sorted(doc_dir.glob("*.txt"))[:DOCS]}
    extraction = json.loads((harness.CORPUS / "en" / "extraction.json").read_text(encoding="utf-8"))
    llm = harness.make_llm(docs, extraction)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp) / "wd"
        rag = GraphRAG(
            working_dir=str(workdir),
            embedding_func=hash_embed,
            best_model_func=llm,
            cheap_model_func=llm,
            enable_llm_cache=False,
            max_graph_cluster_size=harness.MAX_GRAPH_CLUSTER_SIZE,
            graph_cluster_seed=harness.CLUSTER_SEED,
        )
        rag.insert(list(docs.values()))
        if OUT.exists():
            shutil.rmtree(OUT)
        OUT.mkdir(parents=True)
        for path in sorted(workdir.iterdir()):
            if path.is_file() and path.name != "kv_store_llm_response_cache.json":
                shutil.copy2(path, OUT / path.name)
    print(f"wrote {OUT}: {sorted(p.name for p in OUT.iterdir())}")


if __name__ == "__main__":
    if "--inside" in sys.argv:
        sys.path[:] = [p for p in sys.path if str(Path(p or ".").resolve()) != str(HERE)]
        inside()
    else:
        relaunch()
