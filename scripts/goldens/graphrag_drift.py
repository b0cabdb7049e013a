"""DRIFT search goldens for graphrag 3.3.0 and 2.7.0 (``graphrag_3x.py --drift``, ``graphrag_2x.py --drift``).

Runs inside the harness's throwaway venv. For every case it builds the engine exactly as
``graphrag.api.drift_search`` does (``read_indexer_entities/reports(level)``,
``read_indexer_report_embeddings`` from the ``community_full_content`` LanceDB table,
``read_indexer_text_units``, ``read_indexer_relationships``, the ``entity_description`` store,
``get_drift_search_engine`` with the case's ``drift_search`` settings; a fresh engine per case) and runs
``engine.search(query)`` — the whole DRIFT loop and the reduce — with a scripted model. GraphRAG's two
random draws are seeded with ONE ``random.Random(seed)``: ``secrets.choice`` in ``primer.py`` (the HyDE
template) and the global ``random`` in ``state.py`` (the follow-up shuffle each round).

Recorded per case: the HyDE prompt and the template's position in the report list, the scripted
expansion, the primer ranking (``build_context``'s top-k: community ids in order), the folds
(``split_reports``: ids and the text ``decompose_query`` joins), every primer prompt and the fold
text cut out of it (in call order, which is not fold order), the primer answers, every local-search
context (``context_chunks``, in build order, keyed by its question) and its call's messages (context
cut out), the serialized query state (each action's query, answer, score; the edges), the reduce
messages, and the error when GraphRAG raised one.

The scripted model (``DriftScript``) answers from the prompt alone, so a test can replay it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random

QUERIES = {
    "en": ["Who directs the Tidewater Institute and what is Project Seawatch?", "How did Storm Dara affect Riverton?"],
    "zh": ["谁领导青岚湖研究站，清波计划是什么？", "台风“海燕”对云港市有什么影响？"],
}
MALFORMED = {"en": "What happened at the Harbor Festival? (malformed primer)", "zh": "湖灯节发生了什么？（格式错误）"}
MALFORMED_LOCAL = {
    "en": "Who reports for the Riverton Gazette? (odd local answers)",
    "zh": "谁为《云港日报》撰稿？（奇怪的局部回答）",
}
EMPTY_EXPANSION = {"en": "Who funds Halden Robotics? (empty expansion)", "zh": "谁资助星河科技？（空扩展）"}

TIGHT = {
    "drift_k_followups": 3,
    "primer_folds": 2,
    "n_depth": 2,
    "local_search_max_data_tokens": 1500,
    "local_search_top_k_mapped_entities": 3,
    "local_search_top_k_relationships": 3,
}
CASES = [  # (query kind, seed, drift_search settings, community_level)
    ("q0", 0, {}, 2),
    ("q1", 1, {}, 2),
    ("q0", 7, TIGHT, 2),
    ("q1", 3, {"primer_folds": 1, "drift_k_followups": 4, "n_depth": 1}, 2),
    ("q0", 5, {"drift_k_followups": 6, "primer_folds": 4, "n_depth": 1}, 1),
    ("q1", 2, {"drift_k_followups": 5, "primer_folds": 3, "n_depth": 1}, 0),
    ("malformed", 0, {"drift_k_followups": 4, "primer_folds": 2, "n_depth": 1}, 2),
    ("empty", 4, {"drift_k_followups": 5, "primer_folds": 2, "n_depth": 1}, 2),
    ("malformed_local", 6, {"drift_k_followups": 6, "primer_folds": 2, "n_depth": 2}, 2),
]

# ``--drift-sections`` (drift_sections_cases.jsonl): local budgets that put rows in every local-context
# section, and budgets that leave one empty. DRIFT's default props (text units 0.9, reports 0.1) leave the
# entity/relationship share at 0, so CASES never reach a Relationships table.
SPLIT = {"local_search_text_unit_prop": 0.3, "local_search_community_prop": 0.2}
SMALL = {"drift_k_followups": 3, "primer_folds": 2, "local_search_top_k_mapped_entities": 3}
SECTION_CASES = [
    # tight local: Relationships rows in 1500-token contexts (en), reverted in zh
    (
        "q0",
        8,
        {**SMALL, **SPLIT, "n_depth": 2, "local_search_max_data_tokens": 1500, "local_search_top_k_relationships": 3},
        2,
    ),
    # loose: every section has rows
    ("q1", 9, {**SMALL, **SPLIT, "n_depth": 1, "local_search_top_k_mapped_entities": 5}, 2),
    # 600 tokens: no report fits (GraphRAG's "[]"), relationships reverted, the Sources header alone
    (
        "q0",
        10,
        {**SMALL, **SPLIT, "n_depth": 1, "local_search_max_data_tokens": 600, "local_search_top_k_relationships": 3},
        2,
    ),
    # reports and text units get 5% each: Relationships rows, Reports and Sources (mostly) empty
    (
        "q1",
        11,
        {
            **SMALL,
            "n_depth": 1,
            "local_search_max_data_tokens": 2000,
            "local_search_text_unit_prop": 0.05,
            "local_search_community_prop": 0.05,
            "local_search_top_k_relationships": 3,
        },
        1,
    ),
    # more folds than reports ranked: two empty folds (still primer calls); 300-token local contexts
    (
        "q1",
        12,
        {**SPLIT, "drift_k_followups": 2, "primer_folds": 4, "n_depth": 1, "local_search_max_data_tokens": 300},
        2,
    ),
]

PRIMER_MARK = "The top-ranked community summaries:\n\n"
PRIMER_END = "\n\nProvide the intermediate answer"


def _h(text: str, mod: int) -> int:
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:8], 16) % mod


def expansion_for(query: str) -> str:
    """The scripted hypothetical answer ("" for the EMPTY_EXPANSION questions)."""
    if query in EMPTY_EXPANSION.values():
        return ""
    return f"# Hypothetical answer\n\n{query} The answer concerns the people, places and projects the question names."


def report_titles(fold_text: str) -> list[str]:
    return [line[2:].strip() for line in fold_text.split("\n") if line.startswith("# ")]


def primer_answer(query: str, fold_text: str) -> str:
    titles = report_titles(fold_text)
    malformed = query in MALFORMED.values()
    follow = [f"What is the role of {t}?" for t in titles[:3]] or [f"What else is known about: {query}"]
    body = {
        "intermediate_answer": f"## Primer on {len(titles)} report(s)\n\n" + "; ".join(titles),
        "score": _h(fold_text + query, 101),
        "follow_up_queries": follow,
    }
    text = json.dumps(body, ensure_ascii=False)
    return f"```json\n{text}\n```" if malformed else text  # 3.x's structured output cannot read a fence


def local_answer(query: str, global_query: str) -> str:
    n = _h(query, 3)
    follow = [f"{query} (detail {i})" for i in range(n)]
    text = json.dumps(
        {"response": f"Local answer to: {query}", "score": _h(query + global_query, 101), "follow_up_queries": follow},
        ensure_ascii=False,
    )
    if global_query in MALFORMED_LOCAL.values():  # GraphRAG reads these with try_parse_json_object
        kind = _h(query, 4)
        if kind == 0:
            return "I could not find anything about that."
        if kind == 1:
            return f"Here you are:\n```json\n{text}\n```"
        if kind == 2:
            return json.dumps({"response": f"No score for: {query}"})
    return text


class DriftScript:
    """Scripted model for DRIFT: expansion, primer, local-search and reduce calls, told apart by text."""

    streams = True  # local search asks for a stream (graphrag_3x's scripted completion then yields one chunk)

    def __init__(self) -> None:
        self.calls: list[dict] = []

    def reply(self, messages: list[dict]) -> str:
        text = messages[-1]["content"]
        system = messages[0]["content"] if messages[0]["role"] == "system" else ""
        if text.startswith("Create a hypothetical answer to the following query: "):
            query = text.split(": ", 1)[1].split("\n", 1)[0]
            kind, answer = "hyde", expansion_for(query)
        elif PRIMER_MARK in text:
            query = text.split("For the query:\n\n", 1)[1].split("\n\nThe top-ranked", 1)[0]
            fold = text.split(PRIMER_MARK, 1)[1].split(PRIMER_END, 1)[0]
            kind, answer = "primer", primer_answer(query, fold)
        elif "overall research question: " in system:
            global_query = system.split("overall research question: ", 1)[1].split(". Based on", 1)[0]
            kind, answer = "local", local_answer(text, global_query)
        else:
            kind, answer = "reduce", "Scripted DRIFT reduce answer."
        self.calls.append({"kind": kind, "messages": messages, "answer": answer})
        return answer


PRIMER_ANSWERS = [
    '{"intermediate_answer": "A", "score": 70, "follow_up_queries": ["q1", "q2"]}',
    '{"intermediate_answer": "A", "score": "70", "follow_up_queries": ["q1"]}',
    '{"intermediate_answer": "A", "score": 70.0, "follow_up_queries": ["q1"], "extra": 1}',
    '{"intermediate_answer": "A", "score": 70.5, "follow_up_queries": ["q1"]}',
    '{"intermediate_answer": "A", "score": true, "follow_up_queries": []}',
    '{"intermediate_answer": "A", "follow_up_queries": ["q1"]}',
    '{"intermediate_answer": 5, "score": 1, "follow_up_queries": ["q1"]}',
    '{"intermediate_answer": "A", "score": 1, "follow_up_queries": "q1"}',
    '{"intermediate_answer": "A", "score": 1, "follow_up_queries": [1]}',
    '```json\n{"intermediate_answer": "A", "score": 1, "follow_up_queries": ["q"]}\n```',
    "[1, 2]",
    "",
]
ACTION_ANSWERS = [
    '{"response": "R", "score": 55, "follow_up_queries": ["f1", "f2"]}',
    '{"response": "R", "score": "55.5"}',
    '{"score": 10, "follow_up_queries": ["f"]}',
    "Plain prose, no JSON at all.",
    'Sure:\n```json\n{"response": "fenced", "score": 3, "follow_up_queries": ["g"]}\n```',
    '{"response": "R", "score": "high"}',
    '{"response": "R", "score": null}',
    '{"response": "R", "score": 1, "follow_up_queries": "abc"}',
    '{"response": {"nested": true}, "score": 2}',
    '{{"response": "doubled", "score": 4}}',
    "",
    "[]",
]


def parse_cases(read_primer) -> dict:
    """GraphRAG's own reading of odd primer answers (``read_primer``: the release's reading of one answer,
    then ``_process_primer_results`` over that one fold) and odd local-search answers (``DriftAction.search``)."""
    import inspect

    from graphrag.query.structured_search.base import SearchResult
    from graphrag.query.structured_search.drift_search.action import DriftAction
    from graphrag.query.structured_search.drift_search.search import DRIFTSearch

    def result(response) -> SearchResult:
        return SearchResult(
            response=response,
            context_data={},
            context_text="",
            completion_time=0,
            llm_calls=1,
            prompt_tokens=0,
            output_tokens=0,
        )

    primer = []
    for text in PRIMER_ANSWERS:
        try:
            action = DRIFTSearch._process_primer_results(None, "q", result([read_primer(text)]))
            out = {"answer": action.answer, "score": action.score, "follow_ups": list(action.follow_ups)}
        except Exception as exc:  # recorded: GraphRAG fails the query
            out = {"error": type(exc).__name__}
        primer.append([text, out])

    class Engine:
        def __init__(self, text):
            self.text = text

        async def search(self, **kwargs):
            return result(self.text)

    takes_k = "k_followups" in inspect.signature(DriftAction.search).parameters
    action = []
    for text in ACTION_ANSWERS:
        act = DriftAction("q")
        try:
            extra = {"k_followups": 3} if takes_k else {}
            asyncio.run(act.search(search_engine=Engine(text), global_query="global", **extra))
            out = {"answer": act.answer, "score": act.score, "follow_ups": list(act.follow_ups)}
        except Exception as exc:  # recorded: GraphRAG fails the query
            out = {"error": type(exc).__name__}
        action.append([text, out])
    return {"mode": "drift_parse", "primer": primer, "action": action}


def _without_context(messages: list[dict], built: list[dict]) -> list[dict]:
    """A local-search call's messages with its context replaced by ``{context_data}`` (it is stored once)."""
    query = messages[-1]["content"]
    system = messages[0]["content"]
    for b in built:
        if b["query"] == query and b["context"] and b["context"] in system:
            system = system.replace(b["context"], "{context_data}")
            break
    return [{"role": messages[0]["role"], "content": system}, *messages[1:]]


class _Secrets:
    """Stands in for the ``secrets`` module in primer.py: ``choice`` from the case's seeded generator."""

    def __init__(self, rng: random.Random, picked: list[int]) -> None:
        self.rng, self.picked = rng, picked

    def choice(self, seq):
        item = self.rng.choice(seq)
        self.picked.append(seq.index(item))
        return item


def _query(lang: str, kind: str) -> str:
    if kind == "malformed":
        return MALFORMED[lang]
    if kind == "empty":
        return EMPTY_EXPANSION[lang]
    if kind == "malformed_local":
        return MALFORMED_LOCAL[lang]
    return QUERIES[lang][int(kind[1:])]


def record(out_dir, langs: list[str], setup, set_script, store, read_primer, *, sections: bool = False) -> None:
    """Write ``out_dir/drift_cases.jsonl`` (``sections``: SECTION_CASES to ``drift_sections_cases.jsonl``, no
    parse line; a rerun of CASES may reorder local contexts, so new cases go to their own file).
    ``setup(lang)`` gives (config, tables) for the committed index, ``store(config, name)`` the release's
    ``get_embedding_store``, ``read_primer(text)`` the release's reading of one primer answer (3.x
    structured output, 2.x ``json.loads``)."""
    cases, name = (SECTION_CASES, "drift_sections_cases.jsonl") if sections else (CASES, "drift_cases.jsonl")
    from graphrag.config.embeddings import community_full_content_embedding, entity_description_embedding
    from graphrag.query.factory import get_drift_search_engine
    from graphrag.query.indexer_adapters import (
        read_indexer_entities,
        read_indexer_relationships,
        read_indexer_report_embeddings,
        read_indexer_reports,
        read_indexer_text_units,
    )
    from graphrag.query.structured_search.drift_search import primer as primer_mod
    from graphrag.query.structured_search.drift_search import state as state_mod
    from graphrag.query.structured_search.local_search.mixed_context import LocalSearchMixedContext

    built: list[dict] = []
    original_build = LocalSearchMixedContext.build_context

    def recording_build(self, query, *args, **kwargs):
        result = original_build(self, query, *args, **kwargs)
        built.append({"query": query, "context": result.context_chunks})
        return result

    LocalSearchMixedContext.build_context = recording_build
    lines = []
    for lang in langs:
        config, tables = setup(lang)
        for kind, seed, settings, level in cases:
            query = _query(lang, kind)
            script = DriftScript()
            set_script(script)
            built.clear()
            rng = random.Random(seed)
            picked: list[int] = []

            primer_mod.secrets = _Secrets(rng, picked)
            state_mod.random = rng
            cfg = config.model_copy(deep=True)
            for key, value in settings.items():
                setattr(cfg.drift_search, key, value)
            t = {k: (v.copy() if v is not None else None) for k, v in tables.items()}
            reports = read_indexer_reports(t["community_reports"], t["communities"], level)
            full_store = store(cfg, community_full_content_embedding)
            read_indexer_report_embeddings(reports, full_store)
            engine = get_drift_search_engine(
                config=cfg,
                reports=reports,
                text_units=read_indexer_text_units(t["text_units"]),
                entities=read_indexer_entities(t["entities"], t["communities"], level),
                relationships=read_indexer_relationships(t["relationships"]),
                description_embedding_store=store(cfg, entity_description_embedding),
                response_type="Multiple Paragraphs",
            )
            ranking: list = []
            original_ctx = engine.context_builder.build_context

            async def ranked_context(q, _orig=original_ctx, _out=ranking, **kw):
                top_k, ct = await _orig(q, **kw)
                _out.extend(str(x) for x in top_k["community_id"].tolist())
                return top_k, ct

            engine.context_builder.build_context = ranked_context
            folds: list = []
            original_split = engine.primer.split_reports

            def recorded_split(reports_df, _orig=original_split, _out=folds):
                parts = _orig(reports_df)
                _out.extend(
                    {
                        "ids": [str(x) for x in p["community_id"].tolist()],
                        "text": "\n\n".join(p["full_content"].tolist()),
                    }
                    for p in parts
                )
                return parts

            engine.primer.split_reports = recorded_split
            error, state = "", None
            try:
                asyncio.run(engine.search(query))
            except Exception as exc:  # recorded: GraphRAG fails the whole query here
                error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
            if engine.query_state.graph:
                state = engine.query_state.serialize(include_context=False)
                for node in state["nodes"]:
                    node["metadata"] = {k: v for k, v in node["metadata"].items() if k != "context_data"}
            calls = script.calls
            lines.append(
                {
                    "corpus": lang,
                    "mode": "drift",
                    "query": query,
                    "seed": seed,
                    "community_level": level,
                    "settings": settings,
                    "report_order": [str(r.community_id) for r in reports],
                    "template_position": picked[0] if picked else None,
                    "hyde": [c["messages"] for c in calls if c["kind"] == "hyde"],
                    "expansion": next((c["answer"] for c in calls if c["kind"] == "hyde"), None),
                    "ranking": ranking,
                    "primer_prompts": [c["messages"] for c in calls if c["kind"] == "primer"],
                    "folds": folds,  # split_reports' folds in fold order, each with decompose_query's text
                    # the primer prompts' fold texts in CALL order: tqdm_asyncio.gather starts its tasks through
                    # asyncio.as_completed, which builds them from a set (order by object address)
                    "primer_folds": [
                        c["messages"][-1]["content"].split(PRIMER_MARK, 1)[1].split(PRIMER_END, 1)[0]
                        for c in calls
                        if c["kind"] == "primer"
                    ],
                    "primer_answers": [c["answer"] for c in calls if c["kind"] == "primer"],
                    "local_contexts": list(built),
                    # the local-search messages with the context (recorded above) cut out of the system prompt
                    "local_messages": [_without_context(c["messages"], built) for c in calls if c["kind"] == "local"],
                    "state": state,
                    "reduce_messages": [c["messages"] for c in calls if c["kind"] == "reduce"],
                    "error": error,
                }
            )
        print(f"[{lang}] {len(cases)} drift cases", flush=True)
    LocalSearchMixedContext.build_context = original_build
    if not sections:
        lines.append(parse_cases(read_primer))
    with open(out_dir / name, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"wrote {len(lines)} cases to {out_dir / name}")
