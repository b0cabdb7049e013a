"""Golden fixtures from lightrag-hku 1.5.7 (the latest): its on-disk layout, plus contexts for later.

    python3 scripts/goldens/lightrag_15x.py          # creates /tmp/goldens-venv-lightrag157 on first use

Same corpus, scripted LLM (1.5's ``entity<|#|>…`` / ``relation<|#|>…`` record lines) and hash
embedder as the 1.4.7 harness. The working dirs under tests/goldens/lightrag-1.5.7/{en,zh}/ prove
the importer reads the 1.5 layout; cases.jsonl keeps 1.5.7's own context strings and selected ids
for a few cases per mode. Our modes follow 1.4.7, so these contexts are NOT expected to match ours
(1.5.7 prints JSON lines, references and a 200-token buffer; see /work/shared/reference/lightrag.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lightrag_common as common  # noqa: E402

VERSION = "1.5.7"
VENV = Path("/tmp/goldens-venv-lightrag157")
OUT = common.ROOT / "tests" / "goldens" / f"lightrag-{VERSION}"
MODES = ("local", "global", "hybrid", "mix", "naive")

if __name__ == "__main__":
    common.ensure_venv(VENV, [f"lightrag-hku=={VERSION}"], "LIGHTRAG_GOLDEN_15X")

import asyncio  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

import numpy as np  # noqa: E402

TD, DONE = "<|#|>", "<|COMPLETE|>"
CASES: list[tuple[dict, dict]] = [
    ({}, {}),
    ({"top_k": 3, "chunk_top_k": 2}, {}),
    ({"max_entity_tokens": 300, "max_relation_tokens": 500}, {}),
    ({"max_total_tokens": 2500}, {"kg_chunk_pick_method": "WEIGHT"}),
]


async def one_corpus(lang: str, workdir: Path) -> list[dict]:
    import lightrag.lightrag as lr_main
    from lightrag import LightRAG, QueryParam
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

    questions = []
    rels = [r for doc in sorted(extraction) for r in extraction[doc]["relations"]]
    for rel in rels[:: max(1, len(rels) // 4)][:4]:
        kws = [k.strip() for k in re.split(r"[,，、;]", rel.get("keywords", "")) if k.strip()] or ["relationship"]
        src, tgt = rel["source"], rel["target"]
        text = f"{src}和{tgt}之间有什么关系？" if lang == "zh" else f"How is {src} related to {tgt}?"
        questions.append((text, kws[:2], [src, tgt]))
    cases = []
    instances = {}
    for mode in MODES:
        for i, (params, config) in enumerate(CASES):
            key = json.dumps(config, sort_keys=True)
            if key not in instances:
                instances[key] = make(**config)
                await instances[key].initialize_storages()
            query, hl, ll = questions[i % len(questions)]
            if mode == "naive":
                hl, ll = [], []
            param = QueryParam(mode=mode, enable_rerank=False, hl_keywords=hl, ll_keywords=ll, **params)
            data = await instances[key].aquery_data(query, param)
            param = QueryParam(
                mode=mode, only_need_context=True, enable_rerank=False, hl_keywords=hl, ll_keywords=ll, **params
            )
            context = await instances[key].aquery(query, param)
            payload = data.get("data", {}) if isinstance(data, dict) else {}
            cases.append(
                {
                    "corpus": lang,
                    "mode": mode,
                    "query": query,
                    "params": {**params, **config},
                    "hl_keywords": hl,
                    "ll_keywords": ll,
                    "context": context,
                    "selected": {
                        "entities": [e["entity_name"] for e in payload.get("entities", [])],
                        "relations": [[r["src_id"], r["tgt_id"]] for r in payload.get("relationships", [])],
                        "communities": [],
                        "chunks": [c.get("chunk_id") for c in payload.get("chunks", [])],
                    },
                }
            )
    for inst in instances.values():
        await inst.finalize_storages()
    return cases


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--lang":  # child: one corpus per process
        lang = sys.argv[2]
        with tempfile.TemporaryDirectory() as tmp:
            workdir = Path(tmp) / "wd"
            workdir.mkdir()
            cases = asyncio.run(one_corpus(lang, workdir))
            common.copy_workdir(workdir, OUT / lang)
        (OUT / f".cases-{lang}.json").write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
        return
    common.wait_for_corpus()
    OUT.mkdir(parents=True, exist_ok=True)
    all_cases = []
    for lang in ("en", "zh"):
        subprocess.check_call([sys.executable, __file__, "--lang", lang])
        part = OUT / f".cases-{lang}.json"
        all_cases += json.loads(part.read_text(encoding="utf-8"))
        part.unlink()
    with (OUT / "cases.jsonl").open("w", encoding="utf-8") as fh:
        for case in all_cases:
            fh.write(json.dumps(case, ensure_ascii=False) + "\n")
    print(f"wrote {len(all_cases)} cases to {OUT / 'cases.jsonl'}")


if __name__ == "__main__":
    main()
