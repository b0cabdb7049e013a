"""Golden fixtures from lightrag-hku 1.5.7: its on-disk layout and its exact contexts.

    python3 scripts/goldens/lightrag_15x.py          # creates /tmp/goldens-venv-lightrag157 on first use

Same corpus, scripted LLM (1.5's ``entity<|#|>…`` / ``relation<|#|>…`` record lines) and hash
embedder as the 1.4.7 harness. The working dirs under tests/goldens/lightrag-1.5.7/{en,zh}/ prove
the importer reads the 1.5 layout; cases.jsonl holds 1.5.7's own context strings
(``aquery(only_need_context=True)``) and its ``aquery_data`` selection for every mode (bypass
included), default and tight budgets, both chunk pick methods, odd keyword lists, en + zh.
tests/retrieval/test_golden_lightrag157.py checks our ``version=1.5.7`` modes against them byte for byte.
"""

from __future__ import annotations

import sys
from pathlib import Path

import lightrag_common as common  # noqa: E402

VERSION = "1.5.7"
VENV = Path("/tmp/goldens-venv-lightrag157")
OUT = common.ROOT / "tests" / "goldens" / f"lightrag-{VERSION}"
KG_MODES = ("local", "global", "hybrid", "mix")

if __name__ == "__main__":
    common.ensure_venv(VENV, [f"lightrag-hku=={VERSION}"], "LIGHTRAG_GOLDEN_15X")

import json  # noqa: E402
import re  # noqa: E402

import numpy as np  # noqa: E402

TD, DONE = "<|#|>", "<|COMPLETE|>"
# (question index, QueryParam overrides, LightRAG instance settings, keyword tweak)
KG_CASES: list[tuple[int, dict, dict, str]] = [
    (0, {}, {}, ""),
    (1, {}, {"kg_chunk_pick_method": "WEIGHT"}, ""),
    (2, {"top_k": 3, "chunk_top_k": 2}, {}, ""),
    (3, {"max_entity_tokens": 300, "max_relation_tokens": 500}, {}, ""),
    (
        4,
        {"max_entity_tokens": 250, "max_relation_tokens": 400},
        {"kg_chunk_pick_method": "WEIGHT", "related_chunk_number": 2},
        "",
    ),
    (5, {"max_total_tokens": 2500}, {}, ""),
    (0, {"max_total_tokens": 1900, "top_k": 4}, {"kg_chunk_pick_method": "WEIGHT"}, ""),
    (1, {"max_entity_tokens": 0, "top_k": 6}, {}, ""),
    (2, {}, {"related_chunk_number": 1}, ""),
    (3, {}, {}, "no_hl"),
    (4, {}, {"kg_chunk_pick_method": "WEIGHT"}, "no_ll"),
    (
        5,
        {"response_type": "Bullet Points", "user_prompt": "Answer in one short sentence.", "max_total_tokens": 2300},
        {},
        "",
    ),
    (0, {"max_relation_tokens": 1, "max_entity_tokens": 40}, {"cosine_better_than_threshold": 0.1}, ""),
    (1, {"top_k": 8}, {"cosine_better_than_threshold": 0.35}, ""),
    (2, {"max_entity_tokens": 0, "max_relation_tokens": 0}, {}, ""),  # mix keeps its vector chunks
    (3, {"max_total_tokens": 1000}, {}, ""),  # the KG part leaves no room for chunks
]
NAIVE_CASES: list[tuple[int, dict, dict, str]] = [
    (0, {}, {}, ""),
    (1, {"chunk_top_k": 2}, {}, ""),
    (2, {"chunk_top_k": 0, "top_k": 3}, {}, ""),
    (3, {"max_total_tokens": 900}, {}, ""),
    (4, {"max_total_tokens": 1200, "chunk_top_k": 6}, {}, ""),
    (5, {"response_type": "Single Paragraph", "user_prompt": "Be brief."}, {}, ""),
    (0, {"chunk_top_k": 8}, {"cosine_better_than_threshold": 0.1}, ""),
    (1, {}, {"cosine_better_than_threshold": 0.3}, ""),
    (2, {"max_total_tokens": 700}, {}, ""),  # no chunk fits: 1.5.7 still sends empty sections
]
# A relation budget of 0 with entities kept (test_golden_coverage.py); run after every case above so the
# earlier cases keep their ids (en-hybrid-16, ...).
SECTION_CASES: list[tuple[str, tuple[int, dict, dict, str]]] = [
    (m, (3, {"max_relation_tokens": 0, "top_k": 6}, {}, "")) for m in ("local", "global", "hybrid", "mix")
]


def selected_of(data) -> dict:
    """Entities, relation pairs and chunk ids of 1.5.7's ``aquery_data`` answer, in context order."""
    payload = data.get("data", {}) if isinstance(data, dict) else {}
    return {
        "entities": [e["entity_name"] for e in payload.get("entities", [])],
        "relations": [[r["src_id"], r["tgt_id"]] for r in payload.get("relationships", [])],
        "communities": [],
        "chunks": [c.get("chunk_id") for c in payload.get("chunks", [])],
        "references": [[r["reference_id"], r["file_path"]] for r in payload.get("references", [])],
    }


async def one_corpus(lang: str, workdir: Path) -> list[dict]:
    import lightrag.lightrag as lr_main
    from lightrag import LightRAG
    from lightrag.utils import EmbeddingFunc

    common.freeze_time([m for name, m in sys.modules.items() if name.startswith("lightrag") and m is not None])
    docs, extraction = common.load_corpus(lang)
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
        if "User Query:" in prompt:  # keyword extraction: only the both-empty case asks, and gets nothing
            return json.dumps({"high_level_keywords": [], "low_level_keywords": []})
        raise RuntimeError(f"scripted LLM got an unexpected prompt: {prompt[:200]!r}")

    def make(**config):
        return LightRAG(
            working_dir=str(workdir),
            llm_model_func=fake_llm,
            llm_model_name="scripted",
            embedding_func=EmbeddingFunc(embedding_dim=256, func=embed_fn, max_token_size=8192, model_name="hash"),
            entity_extract_max_gleaning=0,
            enable_llm_cache=False,
            max_parallel_insert=1,
            **config,
        )

    rag = make()
    await rag.initialize_storages()
    for i, (name, text) in enumerate(docs):
        await rag.ainsert(text, split_by_character="\n\n", file_paths=name, track_id=f"golden-{i}")
    await rag.finalize_storages()
    del lr_main
    return await run_cases(lang, make, common.questions(lang, extraction))


async def run_cases(lang: str, make, qs: list[dict]) -> list[dict]:
    from lightrag import QueryParam

    instances: dict = {}

    async def instance(config: dict):
        key = json.dumps(config, sort_keys=True)
        if key not in instances:
            instances[key] = make(**config)
            await instances[key].initialize_storages()
        return instances[key]

    plan = [(m, c) for m in KG_MODES for c in KG_CASES] + [("naive", c) for c in NAIVE_CASES]
    plan.append(("hybrid", (0, {}, {}, "both_empty_short")))  # seed 001 says naive here; 1.5.7 does not
    plan.append(("bypass", (1, {}, {}, "")))
    plan += SECTION_CASES
    cases = []
    for mode, (qi, params, config, tweak) in plan:
        q = qs[qi % len(qs)]
        query, hl, ll = q["query"], list(q["hl"]), list(q["ll"])
        if tweak == "no_hl":
            hl = []
        elif tweak == "no_ll":
            ll = []
        elif tweak == "both_empty_short":
            hl, ll, query = [], [], query[:40]
        if mode in ("naive", "bypass"):
            hl, ll = [], []
        rag = await instance(config)
        common_args = {"mode": mode, "enable_rerank": False, "hl_keywords": hl, "ll_keywords": ll, **params}
        data = await rag.aquery_data(query, QueryParam(**common_args))
        context = None
        if mode != "bypass":  # bypass sends the question straight to the LLM: there is no context
            context = await rag.aquery(query, QueryParam(only_need_context=True, **common_args))
        extra = {}
        if tweak == "both_empty_short":  # what the seed's rule gives: naive on the same query/params
            naive = {**common_args, "mode": "naive"}
            extra["naive_context"] = await rag.aquery(query, QueryParam(only_need_context=True, **naive))
            extra["naive_selected"] = selected_of(await rag.aquery_data(query, QueryParam(**naive)))
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
                "status": data.get("status") if isinstance(data, dict) else None,
                "selected": selected_of(data),
                **extra,
            }
        )
    for inst in instances.values():
        await inst.finalize_storages()
    return cases


def main() -> None:
    all_cases = common.run_corpora(__file__, OUT, one_corpus)
    if all_cases:
        by_mode = {m: sum(1 for c in all_cases if c["mode"] == m) for m in (*KG_MODES, "naive", "bypass")}
        print(f"wrote {len(all_cases)} cases to {OUT / 'cases.jsonl'}: {by_mode}")


if __name__ == "__main__":
    main()
