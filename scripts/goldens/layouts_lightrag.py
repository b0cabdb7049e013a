"""On-disk layout goldens from old lightrag-hku releases: one small working dir per release that changed it.

    python3 scripts/goldens/layouts_lightrag.py 1.0.9     # also 1.1.7, 1.2.5, 1.3.9

Each release runs in its own throwaway venv (/tmp/goldens-venv-lightrag-<release>) with a scripted LLM
(1.0–1.4 ``("entity"<|>…)##`` records from the shared corpus' extraction.json) and the project's
``hash`` embedder, over the first three English documents of the shared corpus. The working dir as the
release wrote it (without its LLM cache) goes to tests/goldens/layouts/lightrag-<release>/. Only the
layout is recorded (no contexts): tests/index/test_import_layouts.py imports it and runs every mode.

1.0–1.2 declare no dependencies on PyPI, so the venv gets the ones their modules import; the model
clients their ``llm`` module imports at top level (torch, transformers, ollama, aioboto3, …) are never
called here and are replaced by empty stand-in modules instead of being installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import lightrag_common as common  # noqa: E402

RELEASES = ("1.0.9", "1.1.7", "1.2.5", "1.3.9")
DEPS = [
    "tqdm", "python-dotenv", "pandas", "numpy<2", "networkx", "nano-vectordb", "tiktoken", "tenacity",
    "xxhash", "pydantic", "pipmaster", "setuptools", "aiohttp", "configparser", "json_repair",
]  # fmt: skip
STUBS = ("aioboto3", "ollama", "torch", "transformers", "openai", "zhipuai", "boto3", "anthropic")
DOCS = 3  # documents of the English corpus: a small graph, every layout feature

if __name__ == "__main__":
    RELEASE = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] in RELEASES else None
    if RELEASE is None:
        raise SystemExit(f"usage: layouts_lightrag.py {{{','.join(RELEASES)}}}")
    common.ensure_venv(
        Path(f"/tmp/goldens-venv-lightrag-{RELEASE}"), [f"lightrag-hku=={RELEASE}", *DEPS], "LIGHTRAG_LAYOUT_GOLDEN"
    )

import asyncio  # noqa: E402
import importlib.abc  # noqa: E402
import importlib.machinery  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import types  # noqa: E402

import numpy as np  # noqa: E402

TD, RD, DONE = "<|>", "##", "<|COMPLETE|>"


class _Stub(types.ModuleType):
    """Any attribute is a new class, so ``from torch import nn`` or ``openai.AsyncOpenAI`` import fine."""

    __path__: list = []

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        value = type(name, (Exception,), {})
        setattr(self, name, value)
        return value


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in STUBS:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return _Stub(spec.name)

    def exec_module(self, module):
        return None


def records(text: str, docs, extraction) -> str:
    ents, rels = common.records_for_chunk(text, docs, extraction)
    f = common.flat
    rows = [f'("entity"{TD}"{f(e["name"])}"{TD}"{f(e["type"])}"{TD}"{f(e["description"])}")' for e in ents]
    rows += [
        f'("relationship"{TD}"{f(r["source"])}"{TD}"{f(r["target"])}"{TD}"{f(r["description"])}"{TD}'
        f'"{f(r.get("keywords", ""))}"{TD}{r.get("strength", 1)})'
        for r in rels
    ]
    return RD.join(rows) + DONE


async def build(workdir: Path) -> None:
    sys.meta_path.insert(0, _StubFinder())
    from lightrag import LightRAG
    from lightrag.utils import EmbeddingFunc

    common.freeze_time([m for name, m in sys.modules.items() if name.startswith("lightrag") and m is not None])
    docs, extraction = common.load_corpus("en")
    docs = docs[:DOCS]
    embedder = common.hash_embedder()

    async def embed_fn(texts, **kwargs):
        return np.stack([embedder.vector(t) for t in texts]).astype(np.float32)

    async def fake_llm(prompt, system_prompt=None, history_messages=None, **kwargs):
        if "Real Data" in prompt and "Entity_types" in prompt:
            real = prompt.rsplit("Real Data", 1)[1]
            text = real.split("Text:", 1)[1].rsplit("######################", 1)[0]
            return records(text.strip(), docs, extraction)
        raise RuntimeError(f"scripted LLM got an unexpected prompt: {prompt[:200]!r}")

    fields = set(inspect.signature(LightRAG).parameters)
    # 1.1 opens its storages in __post_init__ on the running loop unless told not to
    config = {"entity_extract_max_gleaning": 0, "enable_llm_cache": False, "auto_manage_storages_states": False}
    if "max_parallel_insert" in fields:
        config["max_parallel_insert"] = 1
    if "llm_model_name" in fields:
        config["llm_model_name"] = "scripted"
    rag = LightRAG(
        working_dir=str(workdir),
        llm_model_func=fake_llm,
        embedding_func=EmbeddingFunc(embedding_dim=256, max_token_size=8192, func=embed_fn),
        **{k: v for k, v in config.items() if k in fields},
    )
    if hasattr(rag, "initialize_storages"):
        await rag.initialize_storages()
    try:
        from lightrag.kg.shared_storage import initialize_pipeline_status

        await initialize_pipeline_status()
    except ImportError:
        pass
    insert = inspect.signature(rag.ainsert).parameters
    kwargs = {"split_by_character": "\n\n"} if "split_by_character" in insert else {}
    for name, text in docs:  # one at a time: the graph's node/edge order is then fixed
        await rag.ainsert(text, **kwargs, **({"file_paths": name} if "file_paths" in insert else {}))
    if hasattr(rag, "finalize_storages"):
        await rag.finalize_storages()


def main() -> None:
    out = common.ROOT / "tests" / "goldens" / "layouts" / f"lightrag-{RELEASE}"
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp) / "wd"
        workdir.mkdir()
        asyncio.run(build(workdir))
        common.copy_workdir(workdir, out)
    print(f"wrote {out}: {sorted(p.name for p in out.iterdir())}")
    print(json.dumps({p.name: p.stat().st_size for p in out.iterdir()}))


if __name__ == "__main__":
    main()
