"""Golden fixtures for Microsoft GraphRAG 2.x local search (run inside its own throwaway venv).

    python3 scripts/goldens/graphrag_2x.py        # 2.7.0: creates /tmp/goldens-venv-graphrag2 on first use, re-runs itself there
    python3 scripts/goldens/graphrag_2x.py --release 2.3.0   # 2.3.0 (LanceDB 0.17): tests/goldens/graphrag-2.3

What it does, per corpus (scripts/goldens/corpus/{en,zh}):
1. runs the library's own indexing pipeline (``graphrag.api.build_index``, standard method) with a
   scripted chat model and an embedding model returning the project's ``hash`` vectors, both
   registered through ``ModelFactory`` (graphrag_scripted.py says what the scripted model answers);
2. copies ``output/*.parquet`` and ``output/lancedb`` to tests/goldens/graphrag-2/<corpus>/;
3. for every case, loads the tables exactly as ``graphrag.api.local_search`` does (read_indexer_*,
   get_embedding_store, get_local_search_engine) with a fresh engine per case, calls
   ``build_context(query, **factory params + overrides)`` and writes the context string and the
   record ids to cases.jsonl; plus three runs of one query on a *reused* engine (stale ``links``).

Tokenizer: the chat model config sets ``encoding_model: cl100k_base``, so the factory's tokenizer is
tiktoken cl100k_base — the encoding litellm uses for OpenAI models, i.e. what the CLI counts with
(verified below with graphrag's own LitellmTokenizer on every context).
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

# release -> (venv, requirements, golden folder). Both need pyarrow 20 (pyarrow 26 needs numpy 2).
RELEASES = {
    "2.7.0": ("/tmp/goldens-venv-graphrag2", ["graphrag==2.7.0", "pandas==2.2.3", "pyarrow==20.0.0"], "graphrag-2"),
    "2.3.0": ("/tmp/goldens-venv-graphrag23", ["graphrag==2.3.0", "pandas==2.2.3", "pyarrow==20.0.0"], "graphrag-2.3"),
}


def _release(argv: list[str]) -> str:
    """``--release X`` (kept in sys.argv so the re-run in the venv sees it too); 2.7.0 by default."""
    if "--release" in argv:
        return argv[argv.index("--release") + 1]
    return "2.7.0"


VERSION = _release(sys.argv)
VENV, REQUIREMENTS, FOLDER = RELEASES[VERSION]
if __name__ == "__main__":
    gs.ensure_venv(VENV, REQUIREMENTS)
gs.deterministic_uuid4()  # before graphrag binds `from uuid import uuid4`

LEGACY = VERSION == "2.3.0"  # 2.3: tiktoken token_encoder (no graphrag.tokenizer, no litellm), old input config
OUT = gs.ROOT / "tests" / "goldens" / FOLDER
LLM: gs.ScriptedLLM | None = None
QUERY: gg.QueryScript | None = None  # set while recording global/basic cases


def _offline_env() -> None:
    """tiktoken reads its BPE files from litellm's bundled copies (this venv's, or for 2.3, which has no
    litellm, the project venv's)."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    if LEGACY:
        site = next((gs.ROOT / ".venv" / "lib").glob("python*/site-packages/litellm/litellm_core_utils/tokenizers"))
    else:
        import litellm

        site = Path(litellm.__file__).parent / "litellm_core_utils" / "tokenizers"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(site)


_offline_env()

from graphrag.language_model.factory import ModelFactory  # noqa: E402
from graphrag.language_model.response.base import BaseModelOutput, BaseModelResponse  # noqa: E402


class ScriptedChat:
    """ChatModel protocol: every reply comes from graphrag_scripted.ScriptedLLM."""

    def __init__(self, **kwargs) -> None:
        self.config = kwargs.get("config")

    async def achat(self, prompt: str, history: list | None = None, **kwargs) -> BaseModelResponse:
        if QUERY is not None:
            sent = gg.plain_messages([*(history or []), {"role": "user", "content": prompt}])
            return BaseModelResponse(output=BaseModelOutput(content=QUERY.reply(sent)), history=sent)
        reply = LLM.reply(prompt)
        parsed = None
        if isinstance(reply, dict):
            parsed = kwargs["json_model"](**reply) if kwargs.get("json_model") else None
            reply = json.dumps(reply, ensure_ascii=False)
        hist = [*(history or []), {"role": "user", "content": prompt}, {"role": "assistant", "content": reply}]
        return BaseModelResponse(output=BaseModelOutput(content=reply), parsed_response=parsed, history=hist)

    async def achat_stream(self, prompt: str, history: list | None = None, **kwargs):
        yield (await self.achat(prompt, history, **kwargs)).output.content

    def chat(self, prompt: str, history: list | None = None, **kwargs) -> BaseModelResponse:
        return asyncio.run(self.achat(prompt, history, **kwargs))

    def chat_stream(self, prompt: str, history: list | None = None, **kwargs):
        yield self.chat(prompt, history, **kwargs).output.content


class ScriptedEmbedding:
    """EmbeddingModel protocol returning the project's hash vectors."""

    def __init__(self, **kwargs) -> None:
        self.config = kwargs.get("config")

    async def aembed_batch(self, text_list: list[str], **kwargs) -> list[list[float]]:
        return [gs.hash_vector(t) for t in text_list]

    async def aembed(self, text: str, **kwargs) -> list[float]:
        return gs.hash_vector(text)

    def embed_batch(self, text_list: list[str], **kwargs) -> list[list[float]]:
        return [gs.hash_vector(t) for t in text_list]

    def embed(self, text: str, **kwargs) -> list[float]:
        return gs.hash_vector(text)


ModelFactory.register_chat("scripted_chat", lambda **kw: ScriptedChat(**kw))
ModelFactory.register_embedding("scripted_embedding", lambda **kw: ScriptedEmbedding(**kw))


def make_config(root: Path):
    from graphrag.config.create_graphrag_config import create_graphrag_config

    values = {
        "models": {
            "default_chat_model": {
                "type": "scripted_chat",
                "model": "gpt-4.1",
                "encoding_model": "cl100k_base",
                "api_key": "unused",
                "concurrent_requests": 1,
            },
            "default_embedding_model": {
                "type": "scripted_embedding",
                "model": "text-embedding-3-small",
                "encoding_model": "cl100k_base",
                "api_key": "unused",
                "concurrent_requests": 1,
            },
        },
        "input": (
            {"type": "file", "file_type": "text", "base_dir": "input"}
            if LEGACY
            else {"storage": {"type": "file", "base_dir": "input"}, "file_type": "text"}
        ),
        "output": {"type": "file", "base_dir": "output"},
        "cache": {"type": "none"},
        "reporting": {"type": "file", "base_dir": "logs"},
        "vector_store": {
            "default_vector_store": {
                "type": "lancedb",
                "db_uri": str(root / "output" / "lancedb"),
                "container_name": "default",
            }
        },
        "extract_graph": {"max_gleanings": 1},
        "snapshots": {"graphml": False, "embeddings": False},
    }
    return create_graphrag_config(values, root_dir=str(root))


def build(lang: str, root: Path):
    global LLM
    import graphrag.api as api

    LLM = gs.ScriptedLLM(lang)
    (root / "input").mkdir(parents=True)
    for name, text in gs.corpus_docs(lang).items():
        (root / "input" / name).write_text(text, encoding="utf-8")
    config = make_config(root)
    results = asyncio.run(api.build_index(config=config))
    for res in results:
        if res.errors:
            raise SystemExit(f"workflow {res.workflow} failed: {res.errors}")
    print(f"[{lang}] pipeline done; scripted calls: {LLM.calls}", flush=True)
    return config


def load_tables(output: Path) -> dict:
    import pandas as pd

    tables = {}
    for name in ("entities", "communities", "community_reports", "text_units", "relationships"):
        tables[name] = pd.read_parquet(output / f"{name}.parquet")
    cov = output / "covariates.parquet"
    tables["covariates"] = pd.read_parquet(cov) if cov.exists() else None
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
    store_args = {k: s.model_dump() for k, s in config.vector_store.items()}
    store = get_embedding_store(config_args=store_args, embedding_name=entity_description_embedding)
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
    embed = lambda t: builder.text_embedder.embed(t)  # noqa: E731
    everything = store.similarity_search_by_text(query, embed, k=10_000)
    top = store.similarity_search_by_text(query, embed, k=k)
    tie = len(everything) > k and top and everything[k].score == top[-1].score
    out = {"vector_hits": [[r.document.id, r.score] for r in top], "tie_at_cutoff": bool(tie)}
    if LEGACY:  # the whole table's order: where float32 distance ties fall is what 2.3 goldens test
        out["all_hits"] = [[r.document.id, r.score] for r in everything]
    return out


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


def tokenizer_check():
    """(tokenizer of an engine -> its name for cases.jsonl), after checking it counts like the CLI.

    2.7: the factory's TiktokenTokenizer against graphrag's LitellmTokenizer("gpt-4.1") on every
    context; 2.3: the factory's tiktoken ``token_encoder`` must be cl100k_base itself."""
    if LEGACY:

        def name(builder, context: str) -> str:
            assert builder.token_encoder.name == "cl100k_base", builder.token_encoder.name
            return "Encoding:cl100k_base"

        return name
    from graphrag.tokenizer.litellm_tokenizer import LitellmTokenizer

    litellm_tok = LitellmTokenizer(model_name="gpt-4.1")

    def name(builder, context: str) -> str:
        tok = builder.tokenizer
        assert litellm_tok.num_tokens(context) == tok.num_tokens(context), "tokenizer mismatch"
        return f"{type(tok).__name__}:cl100k_base"

    return name


def main(langs: list[str]) -> None:
    tokenizer_name = tokenizer_check()
    OUT.mkdir(parents=True, exist_ok=True)
    lines = []
    for lang in langs:
        root = Path(tempfile.mkdtemp(prefix=f"gr2-{lang}-"))
        config = build(lang, root)
        dest = OUT / lang
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        for parquet in sorted((root / "output").glob("*.parquet")):
            shutil.copy2(parquet, dest / parquet.name)
        shutil.copytree(root / "output" / "lancedb", dest / "lancedb")
        tables = load_tables(dest)
        config = make_config(root)
        config.vector_store["default_vector_store"].db_uri = str(dest / "lancedb")
        for case in gs.cases(lang) + (gs.tie_cases(lang) if LEGACY else []):
            level = case["params"].get("community_level", 2)
            engine = engine_for(config, tables, level)
            out = run_case(engine, case)
            lines.append(
                {
                    "corpus": lang,
                    "mode": "local",
                    "query": case["query"],
                    "params": case["params"],
                    "community_level": level,
                    "tokenizer": tokenizer_name(engine.context_builder, out["context"]),
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
        print(f"[{lang}] {sum(c['corpus'] == lang for c in lines)} cases", flush=True)
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
        config = make_config(dest)
        config.vector_store["default_vector_store"].db_uri = str(dest / "lancedb")
        store_args = {k: s.model_dump() for k, s in config.vector_store.items()}
        store = get_embedding_store(config_args=store_args, embedding_name=text_unit_text_embedding)
        return config, load_tables(dest), store

    def set_script(script) -> None:
        global QUERY
        QUERY = script

    tie_basic = lambda lang: [{"query": q, "params": p} for q in gs.TIE_QUERIES[lang] for p in ({}, {"k": 3})]  # noqa: E731
    gg.record(OUT, langs, setup, set_script, tie_basic if LEGACY else lambda lang: [], sections=sections)


def main_drift(langs: list[str], sections: bool = False) -> None:
    """DRIFT cases on the committed index (no rebuild): drift_cases.jsonl (``sections``: drift_sections_cases.jsonl)."""

    def setup(lang: str):
        dest = OUT / lang
        config = make_config(dest)
        config.vector_store["default_vector_store"].db_uri = str(dest / "lancedb")
        return config, load_tables(dest)

    def set_script(script) -> None:
        global QUERY
        QUERY = script

    def store(config, name: str):
        from graphrag.utils.api import get_embedding_store

        return get_embedding_store(
            config_args={k: s.model_dump() for k, s in config.vector_store.items()}, embedding_name=name
        )

    gd.record(
        OUT, langs, setup, set_script, store, json.loads, sections=sections
    )  # 2.x's DRIFTPrimer reads json.loads(answer)


if __name__ == "__main__":
    args = [a for i, a in enumerate(sys.argv[1:]) if "--release" not in sys.argv[i : i + 2]]
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
