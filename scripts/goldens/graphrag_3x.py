"""Golden fixtures for Microsoft GraphRAG 3.3.0 local search (run inside its own throwaway venv).

    python3 scripts/goldens/graphrag_3x.py        # creates /tmp/goldens-venv-graphrag3 on first use, re-runs itself there

Same recipe as graphrag_2x.py, with 3.x plumbing: the scripted completion and embedding models are
registered with graphrag_llm's ``register_completion`` / ``register_embedding`` (subclasses of its own
mock models), the index is built by ``graphrag.api.build_index``, tables are read back with the CLI's
``DataReader`` (correct column types), and each case runs ``build_context`` on a fresh engine from
``graphrag.query.factory.get_local_search_engine``. The tokenizer is the completion model's own
(graphrag_llm's LiteLLM tokenizer for ``openai/gpt-4.1`` = litellm's cl100k_base), exactly as the CLI.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import graphrag_drift as gd  # noqa: E402
import graphrag_global as gg  # noqa: E402
import graphrag_scripted as gs  # noqa: E402

VENV = "/tmp/goldens-venv-graphrag3"
REQUIREMENTS = ["graphrag==3.3.0"]
if __name__ == "__main__":
    gs.ensure_venv(VENV, REQUIREMENTS)
gs.deterministic_uuid4()  # before graphrag binds `from uuid import uuid4`
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

import litellm  # noqa: E402

os.environ["TIKTOKEN_CACHE_DIR"] = str(Path(litellm.__file__).parent / "litellm_core_utils" / "tokenizers")

from graphrag_llm.completion import register_completion  # noqa: E402
from graphrag_llm.completion.mock_llm_completion import MockLLMCompletion  # noqa: E402
from graphrag_llm.embedding import register_embedding  # noqa: E402
from graphrag_llm.embedding.mock_llm_embedding import MockLLMEmbedding  # noqa: E402
from graphrag_llm.types import LLMEmbedding, LLMEmbeddingResponse, LLMEmbeddingUsage  # noqa: E402
from graphrag_llm.utils import create_completion_response, structure_completion_response  # noqa: E402

VERSION = "3.3.0"
OUT = gs.ROOT / "tests" / "goldens" / "graphrag-3"
LLM: gs.ScriptedLLM | None = None
QUERY: gg.QueryScript | None = None  # set while recording global/basic cases


def _last_user_text(messages) -> str:
    if isinstance(messages, str):
        return messages
    for msg in reversed(messages):
        role = msg.get("role") if isinstance(msg, dict) else getattr(msg, "role", None)
        if role == "user":
            content = msg.get("content") if isinstance(msg, dict) else msg.content
            if isinstance(content, list):  # content parts
                return "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return content
    raise RuntimeError("scripted completion: no user message")


async def _stream(text: str):
    """One streamed chunk with the whole reply (``chunk.choices[0].delta.content``), for DRIFT's local calls."""
    from types import SimpleNamespace

    yield SimpleNamespace(choices=[SimpleNamespace(delta=SimpleNamespace(content=text))])


class ScriptedCompletion(MockLLMCompletion):
    """graphrag_llm completion whose reply comes from graphrag_scripted.ScriptedLLM."""

    def completion(self, /, **kwargs):
        response_format = kwargs.pop("response_format", None)
        if QUERY is not None:
            messages = kwargs["messages"]
            if isinstance(messages, str):  # as graphrag_llm's LiteLLM completion sends a prompt string
                messages = [{"role": "user", "content": messages}]
            reply = QUERY.reply(gg.plain_messages(messages))
            if kwargs.get("stream") and getattr(QUERY, "streams", False):
                return _stream(reply)
            response = create_completion_response(reply)
            if response_format is not None:
                response.formatted_response = structure_completion_response(response.content, response_format)
            return response
        reply = LLM.reply(_last_user_text(kwargs["messages"]))
        if isinstance(reply, dict):
            reply = json.dumps(reply, ensure_ascii=False)
        response = create_completion_response(reply)
        if response_format is not None:
            response.formatted_response = structure_completion_response(response.content, response_format)
        return response


class ScriptedEmbedding(MockLLMEmbedding):
    """graphrag_llm embedding returning the project's hash vectors, one per input."""

    def embedding(self, /, **kwargs) -> LLMEmbeddingResponse:
        texts = kwargs.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts)
        data = [LLMEmbedding(object="embedding", embedding=gs.hash_vector(t), index=i) for i, t in enumerate(texts)]
        usage = LLMEmbeddingUsage(prompt_tokens=0, total_tokens=0)
        return LLMEmbeddingResponse(object="list", data=data, model="hash", usage=usage)


register_completion("scripted", ScriptedCompletion)
register_embedding("scripted", ScriptedEmbedding)


def make_config(root: Path, db_uri: Path):
    from graphrag.config.models.graph_rag_config import GraphRagConfig

    model = {"type": "scripted", "model_provider": "openai", "api_key": "unused", "mock_responses": ["unused"]}
    values = {
        "completion_models": {"default_completion_model": {**model, "model": "gpt-4.1"}},
        "embedding_models": {
            "default_embedding_model": {**model, "model": "text-embedding-3-small", "mock_responses": [0.0]}
        },
        "input": {"type": "text"},
        "input_storage": {"type": "file", "base_dir": str(root / "input")},
        "output_storage": {"type": "file", "base_dir": str(root / "output")},
        "cache": {"type": "none"},
        "reporting": {"type": "file", "base_dir": str(root / "logs")},
        "vector_store": {"type": "lancedb", "db_uri": str(db_uri), "vector_size": 256},
        "extract_graph": {"max_gleanings": 1},
        "snapshots": {"graphml": False, "embeddings": False},
    }
    return GraphRagConfig.model_validate(values)


def build(lang: str, root: Path):
    global LLM
    import graphrag.api as api

    LLM = gs.ScriptedLLM(lang)
    (root / "input").mkdir(parents=True)
    for name, text in gs.corpus_docs(lang).items():
        (root / "input" / name).write_text(text, encoding="utf-8")
    config = make_config(root, root / "output" / "lancedb")
    results = asyncio.run(api.build_index(config=config))
    for res in results:
        if res.error is not None if hasattr(res, "error") else res.errors:
            raise SystemExit(f"workflow {res.workflow} failed: {getattr(res, 'error', None) or res.errors}")
    print(f"[{lang}] pipeline done; scripted calls: {LLM.calls}", flush=True)


def load_tables(config) -> dict:
    """Read the outputs as the CLI does (graphrag/cli/query.py _resolve_output_files)."""
    from graphrag.data_model.data_reader import DataReader
    from graphrag_storage import create_storage
    from graphrag_storage.tables.table_provider_factory import create_table_provider

    storage = create_storage(config.output_storage)
    provider = create_table_provider(config.table_provider, storage=storage)
    reader = DataReader(provider)
    tables = {}
    for name in ("entities", "communities", "community_reports", "text_units", "relationships"):
        tables[name] = asyncio.run(getattr(reader, name)())
    tables["covariates"] = asyncio.run(reader.covariates()) if asyncio.run(provider.has("covariates")) else None
    return tables


def engine_for(config, tables: dict, community_level: int):
    """The local search engine exactly as graphrag.api.local_search_streaming builds it."""
    from graphrag.config.embeddings import entity_description_embedding
    from graphrag.query.factory import get_local_search_engine
    from graphrag.query.indexer_adapters import (
        read_indexer_covariates,
        read_indexer_entities,
        read_indexer_relationships,
        read_indexer_reports,
        read_indexer_text_units,
    )
    from graphrag.utils.api import get_embedding_store

    t = {k: (v.copy() if v is not None else None) for k, v in tables.items()}
    store = get_embedding_store(config=config.vector_store, embedding_name=entity_description_embedding)
    covariates = read_indexer_covariates(t["covariates"]) if t["covariates"] is not None else []
    return get_local_search_engine(
        config=config,
        reports=read_indexer_reports(t["community_reports"], t["communities"], community_level),
        text_units=read_indexer_text_units(t["text_units"]),
        entities=read_indexer_entities(t["entities"], t["communities"], community_level),
        relationships=read_indexer_relationships(t["relationships"]),
        covariates={"claims": covariates},
        description_embedding_store=store,
        response_type="Multiple Paragraphs",
    )


def vector_hits(engine, query: str, k: int) -> dict:
    """The LanceDB k-NN the builder runs (ids, scores) and whether a distance tie straddles the cut."""
    if not query:
        return {"vector_hits": [], "tie_at_cutoff": False}
    builder = engine.context_builder
    store = builder.entity_text_embeddings

    def embed(t):
        return builder.text_embedder.embedding(input=[t]).first_embedding

    everything = store.similarity_search_by_text(query, embed, k=10_000)
    top = store.similarity_search_by_text(query, embed, k=k)
    tie = len(everything) > k and top and everything[k].score == top[-1].score
    return {"vector_hits": [[r.document.id, r.score] for r in top], "tie_at_cutoff": bool(tie)}


def run_case(engine, case: dict) -> dict:
    params = {k: v for k, v in case["params"].items() if k != "community_level"}
    kwargs = {**engine.context_builder_params, **params}
    hits = vector_hits(engine, case["query"], 2 * kwargs["top_k_mapped_entities"])
    result = engine.context_builder.build_context(query=case["query"], **kwargs)
    records = result.context_records
    selected = {}
    for key, kind in (
        ("reports", "communities"),
        ("entities", "entities"),
        ("relationships", "relations"),
        ("sources", "chunks"),
    ):
        df = records.get(key)
        selected[kind] = (
            [str(x) for x in df["id"].tolist()] if df is not None and "id" in getattr(df, "columns", []) else []
        )
    return {
        **hits,
        "context": result.context_chunks,
        "selected": selected,
        "record_keys": sorted(records),
        "factory_params": {k: v for k, v in kwargs.items() if isinstance(v, (int, float, bool, str))},
    }


def main(langs: list[str]) -> None:
    import tiktoken

    cl100k = tiktoken.get_encoding("cl100k_base")
    OUT.mkdir(parents=True, exist_ok=True)
    lines = []
    for lang in langs:
        root = Path(tempfile.mkdtemp(prefix=f"gr3-{lang}-"))
        build(lang, root)
        dest = OUT / lang
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        for parquet in sorted((root / "output").glob("*.parquet")):
            shutil.copy2(parquet, dest / parquet.name)
        shutil.copytree(root / "output" / "lancedb", dest / "lancedb")
        config = make_config(root, dest / "lancedb")
        config.output_storage.base_dir = str(dest)
        tables = load_tables(config)
        for case in gs.cases(lang):
            level = case["params"].get("community_level", 2)
            engine = engine_for(config, tables, level)
            out = run_case(engine, case)
            tok = engine.context_builder.tokenizer
            assert tok.num_tokens(out["context"]) == len(cl100k.encode(out["context"])), "tokenizer is not cl100k"
            lines.append(
                {
                    "corpus": lang,
                    "mode": "local",
                    "query": case["query"],
                    "params": case["params"],
                    "community_level": level,
                    "tokenizer": f"{type(tok).__name__}:cl100k_base",
                    **out,
                }
            )
        # the stale `links` demonstration: a second query on ONE engine (as a notebook or server reuses it)
        for first in gs.stale_firsts(lang):
            engine = engine_for(config, tables, 2)
            run_case(engine, {"query": first, "params": {}})
            out = run_case(engine, {"query": gs.STALE_SECOND[lang], "params": {}})
            lines.append(
                {
                    "corpus": lang,
                    "mode": "local",
                    "query": gs.STALE_SECOND[lang],
                    "params": {},
                    "community_level": 2,
                    "reused_engine_after": first,
                    "tokenizer": "cl100k_base",
                    **out,
                }
            )
        print(f"[{lang}] {len(gs.cases(lang)) + 3} cases", flush=True)
    with open(OUT / "cases.jsonl", "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"wrote {len(lines)} cases to {OUT / 'cases.jsonl'}")


def main_global(langs: list[str], sections: bool = False) -> None:
    """Global, basic and parse cases on the committed index (no rebuild): global_cases.jsonl
    (``sections``: the reduce-budget cases of global_sections_cases.jsonl)."""
    from graphrag.config.embeddings import text_unit_text_embedding
    from graphrag.utils.api import get_embedding_store

    def setup(lang: str):
        dest = OUT / lang
        config = make_config(dest, dest / "lancedb")
        config.output_storage.base_dir = str(dest)
        store = get_embedding_store(config=config.vector_store, embedding_name=text_unit_text_embedding)
        return config, load_tables(config), store

    def set_script(script) -> None:
        global QUERY
        QUERY = script

    gg.record(OUT, langs, setup, set_script, sections=sections)


def main_drift(langs: list[str], sections: bool = False) -> None:
    """DRIFT cases on the committed index (no rebuild): drift_cases.jsonl (``sections``: drift_sections_cases.jsonl)."""

    def setup(lang: str):
        dest = OUT / lang
        config = make_config(dest, dest / "lancedb")
        config.output_storage.base_dir = str(dest)
        return config, load_tables(config)

    def set_script(script) -> None:
        global QUERY
        QUERY = script

    def store(config, name: str):
        from graphrag.utils.api import get_embedding_store

        return get_embedding_store(config=config.vector_store, embedding_name=name)

    def read_primer(text: str) -> dict:
        from graphrag.query.structured_search.drift_search.primer import PrimerResponse

        return structure_completion_response(text, PrimerResponse).model_dump()

    gd.record(OUT, langs, setup, set_script, store, read_primer, sections=sections)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--drift"]:
        main_drift(args[1:] or ["en", "zh"])
    elif args[:1] == ["--drift-sections"]:
        main_drift(args[1:] or ["en", "zh"], sections=True)
    elif args[:1] == ["--global"]:
        main_global(args[1:] or ["en", "zh"])
    elif args[:1] == ["--global-sections"]:
        main_global(args[1:] or ["en", "zh"], sections=True)
    else:
        main(args or ["en", "zh"])
