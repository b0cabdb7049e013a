"""Golden fixtures from the real lightrag-hku 1.4.7 (the release our lightrag.* modes follow).

    python3 scripts/goldens/lightrag_147.py          # creates /tmp/goldens-venv-lightrag147 on first use

Builds one working directory per corpus (en, zh) with a scripted LLM (extraction records in 1.4.7's
``("entity"<|>...)##`` format, built from the shared corpus' extraction.json) and the project's
``hash`` embedder, then runs a fixed list of cases per mode with explicit hl/ll keywords and
``only_need_context=True``. Writes tests/goldens/lightrag-1.4.7/{en,zh}/ (the working dir without
the LLM cache) and cases.jsonl (context string + selected ids + the intermediate candidate lists,
captured by wrapping 1.4.7's own functions).
"""

from __future__ import annotations

import sys
from pathlib import Path

import lightrag_common as common  # noqa: E402

VENV = Path("/tmp/goldens-venv-lightrag147")
OUT = common.ROOT / "tests" / "goldens" / "lightrag-1.4.7"
MODES = ("local", "global", "hybrid", "mix", "naive")

if __name__ == "__main__":
    common.ensure_venv(VENV, ["lightrag-hku==1.4.7", "httpx"], "LIGHTRAG_GOLDEN_147")  # 1.4.7 imports httpx undeclared

import json  # noqa: E402
import re  # noqa: E402

import numpy as np  # noqa: E402

TD, RD, DONE = "<|>", "##", "<|COMPLETE|>"


# (question index, QueryParam overrides, instance config overrides, keyword tweak)
KG_CASES: list[tuple[int, dict, dict, str]] = [
    (0, {}, {}, ""),
    (1, {"top_k": 3}, {}, ""),
    (2, {"top_k": 5, "chunk_top_k": 2}, {}, ""),
    (3, {"max_entity_tokens": 300, "max_relation_tokens": 500}, {}, ""),
    (2, {"max_entity_tokens": 0, "top_k": 6}, {}, ""),
    (4, {"max_total_tokens": 1300}, {}, ""),
    (5, {"max_total_tokens": 1700, "top_k": 4}, {}, ""),
    (0, {"chunk_top_k": 3}, {"kg_chunk_pick_method": "WEIGHT", "related_chunk_number": 2}, ""),
    (1, {}, {"kg_chunk_pick_method": "WEIGHT"}, ""),
    (2, {}, {"related_chunk_number": 1}, ""),
    (3, {}, {}, "no_hl"),
    (4, {}, {}, "no_ll"),
    (5, {"response_type": "Bullet Points", "user_prompt": "Answer in one short sentence."}, {}, ""),
    (0, {"max_relation_tokens": 1, "max_entity_tokens": 40}, {"cosine_better_than_threshold": 0.1}, ""),
    (1, {"top_k": 8}, {"cosine_better_than_threshold": 0.35}, ""),
]
NAIVE_CASES: list[tuple[int, dict, dict, str]] = [
    (0, {}, {}, ""),
    (1, {"chunk_top_k": 2}, {}, ""),
    (2, {"chunk_top_k": 0, "top_k": 3}, {}, ""),
    (3, {"max_total_tokens": 700}, {}, ""),
    (4, {"max_total_tokens": 1000, "chunk_top_k": 6}, {}, ""),
    (5, {"response_type": "Single Paragraph", "user_prompt": "Be brief."}, {}, ""),
    (0, {"chunk_top_k": 8}, {"cosine_better_than_threshold": 0.1}, ""),
    (1, {}, {"cosine_better_than_threshold": 0.3}, ""),
]
# Budgets that leave one section empty while the others keep rows (test_golden_coverage.py); run after
# every case above so the earlier cases keep their ids (en-hybrid-15, ...).
SECTION_CASES: list[tuple[str, tuple[int, dict, dict, str]]] = [
    *[(m, (3, {"max_relation_tokens": 0, "top_k": 6}, {}, "")) for m in ("local", "global", "hybrid", "mix")],
    *[(m, (1, {"max_total_tokens": 1100}, {}, "")) for m in ("local", "global", "hybrid", "mix")],
    ("naive", (2, {"max_total_tokens": 500}, {}, "")),  # no chunk fits
]


class Recorder:
    """Wraps 1.4.7's retrieval functions to capture the ids they produced for the current case."""

    def __init__(self, operate) -> None:
        self.trace: dict = {}
        wrap = self._wrap
        wrap(
            operate,
            "_get_node_data",
            lambda r: {
                "local_entities": [n["entity_name"] for n in r[0]],
                "local_relations": [list(e["src_tgt"]) for e in r[1]],
            },
        )
        wrap(
            operate,
            "_get_edge_data",
            lambda r: {
                "global_relations": [[e["src_id"], e["tgt_id"]] for e in r[0]],
                "global_entities": [n["entity_name"] for n in r[1]],
            },
        )
        wrap(operate, "_get_vector_context", lambda r: {"vector_chunks": [c["chunk_id"] for c in r]})
        wrap(operate, "_find_related_text_unit_from_entities", lambda r: {"entity_chunks": [c["chunk_id"] for c in r]})
        wrap(
            operate, "_find_related_text_unit_from_relations", lambda r: {"relation_chunks": [c["chunk_id"] for c in r]}
        )
        wrap(operate, "process_chunks_unified", lambda r: {"final_chunks": [c.get("chunk_id") for c in r]})

    def _wrap(self, module, name, pick) -> None:
        original = getattr(module, name)

        async def wrapper(*args, **kwargs):
            result = await original(*args, **kwargs)
            self.trace.update(pick(result))
            return result

        setattr(module, name, wrapper)


def parse_selected(context: str, trace: dict) -> dict:
    blocks = re.findall(r"```json\n(.*?)\n```", context, re.S)
    ents, rels = [], []
    if not blocks:  # the fail response: nothing was selected
        return {"entities": [], "relations": [], "communities": [], "chunks": []}
    if len(blocks) == 3:
        ents = [e["entity"] for e in json.loads(blocks[0])]
        rels = [[r["entity1"], r["entity2"]] for r in json.loads(blocks[1])]
    return {"entities": ents, "relations": rels, "communities": [], "chunks": trace.get("final_chunks", [])}


async def build(lang: str, workdir: Path, embed_fn):
    import lightrag.lightrag as lr_main
    from lightrag import LightRAG, operate, utils
    from lightrag.kg import json_doc_status_impl, json_kv_impl, nano_vector_db_impl, networkx_impl
    from lightrag.kg.shared_storage import initialize_pipeline_status
    from lightrag.utils import EmbeddingFunc

    del operate, utils, lr_main, nano_vector_db_impl, json_kv_impl, json_doc_status_impl, networkx_impl  # loaded
    common.freeze_time([m for name, m in sys.modules.items() if name.startswith("lightrag") and m is not None])
    docs, extraction = common.load_corpus(lang)

    async def fake_llm(prompt, system_prompt=None, history_messages=None, **kwargs):
        if "---Real Data---" in prompt and "Entity_types:" in prompt:
            real = prompt.rsplit("---Real Data---", 1)[1]
            text = real.split("Text:\n", 1)[1].rsplit("\n\n---Output---", 1)[0]
            ents, rels = common.records_for_chunk(text, docs, extraction)
            rows = [
                f'("entity"{TD}"{common.flat(e["name"])}"{TD}"{common.flat(e["type"])}"{TD}"{common.flat(e["description"])}")'
                for e in ents
            ]
            rows += [
                f'("relationship"{TD}"{common.flat(r["source"])}"{TD}"{common.flat(r["target"])}"{TD}'
                f'"{common.flat(r["description"])}"{TD}"{common.flat(r.get("keywords", ""))}"{TD}{r.get("strength", 1)})'
                for r in rels
            ]
            return RD.join(rows) + DONE
        if "User Query:" in prompt:  # keyword extraction (only reached when a case gives no keywords)
            return json.dumps({"high_level_keywords": [], "low_level_keywords": []})
        raise RuntimeError(f"scripted LLM got an unexpected prompt: {prompt[:200]!r}")

    rag = LightRAG(
        working_dir=str(workdir),
        llm_model_func=fake_llm,
        llm_model_name="scripted",
        embedding_func=EmbeddingFunc(embedding_dim=256, func=embed_fn, max_token_size=8192),
        entity_extract_max_gleaning=0,
        enable_llm_cache=False,
        max_parallel_insert=1,
    )
    await rag.initialize_storages()
    await initialize_pipeline_status()
    for i, (name, text) in enumerate(docs):  # one at a time: the graph's node/edge order is then fixed
        await rag.ainsert(text, split_by_character="\n\n", file_paths=name, track_id=f"golden-{i}")
    await rag.finalize_storages()
    return docs, extraction


async def run_cases(lang: str, workdir: Path, embed_fn, extraction: dict) -> list[dict]:
    from lightrag import LightRAG, QueryParam, operate
    from lightrag.utils import EmbeddingFunc

    recorder = Recorder(operate)
    qs = common.questions(lang, extraction)
    instances: dict = {}

    async def instance(config: dict):
        key = json.dumps(config, sort_keys=True)
        if key not in instances:

            async def no_llm(*args, **kwargs):
                prompt = args[0] if args else ""
                if "User Query:" in prompt:
                    return json.dumps({"high_level_keywords": [], "low_level_keywords": []})
                raise RuntimeError("no LLM at query time")

            rag = LightRAG(
                working_dir=str(workdir),
                llm_model_func=no_llm,
                llm_model_name="scripted",
                embedding_func=EmbeddingFunc(embedding_dim=256, func=embed_fn, max_token_size=8192),
                enable_llm_cache=False,
                **config,
            )
            await rag.initialize_storages()
            instances[key] = rag
        return instances[key]

    cases = []
    plan = [(m, c) for m in MODES for c in (NAIVE_CASES if m == "naive" else KG_CASES)]
    plan.append(("hybrid", (0, {}, {}, "both_empty_short")))  # seed 001 says naive here; 1.4.7 does not
    plan += SECTION_CASES
    for mode, (qi, params, config, tweak) in plan:
        q = qs[qi % len(qs)]
        hl, ll = list(q["hl"]), list(q["ll"])
        query = q["query"]
        if tweak == "no_hl":
            hl = []
        elif tweak == "no_ll":
            ll = []
        elif tweak == "both_empty_short":
            hl, ll = [], []
            query = query[:40]
        if mode == "naive":
            hl, ll = [], []
        rag = await instance(config)
        recorder.trace = {}
        param = QueryParam(
            mode=mode, only_need_context=True, enable_rerank=False, hl_keywords=hl, ll_keywords=ll, **params
        )
        context = await rag.aquery(query, param=param)
        extra = {}
        if tweak == "both_empty_short":  # what the seed's rule gives: naive on the same query/params
            recorder.trace = {}
            naive = QueryParam(mode="naive", only_need_context=True, enable_rerank=False, **params)
            extra["naive_context"] = await rag.aquery(query, param=naive)
            extra["naive_selected"] = parse_selected(extra["naive_context"], recorder.trace)
            recorder.trace = {}
            context = await rag.aquery(query, param=param)
        cases.append(
            {
                "corpus": lang,
                "mode": mode,
                "query": query,
                "params": {**params, **config},
                "hl_keywords": hl,
                "ll_keywords": ll,
                "note": tweak,
                "context": context,
                "selected": parse_selected(context, recorder.trace),
                "trace": recorder.trace,
                **extra,
            }
        )
    for rag in instances.values():
        await rag.finalize_storages()
    return cases


async def one_corpus(lang: str, workdir: Path) -> list[dict]:
    embedder = common.hash_embedder()

    async def embed_fn(texts, **kwargs):
        return np.stack([embedder.vector(t) for t in texts]).astype(np.float32)

    _, extraction = await build(lang, workdir, embed_fn)
    return await run_cases(lang, workdir, embed_fn, extraction)


def main() -> None:
    all_cases = common.run_corpora(__file__, OUT, one_corpus)
    if all_cases:
        by_mode = {m: sum(1 for c in all_cases if c["mode"] == m) for m in MODES}
        print(f"wrote {len(all_cases)} cases to {OUT / 'cases.jsonl'}: {by_mode}")


if __name__ == "__main__":
    main()
