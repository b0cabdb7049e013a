"""Global and basic search goldens, shared by graphrag_2x.py and graphrag_3x.py (``--global``).

Runs inside a harness's throwaway venv on the committed index (tests/goldens/graphrag-N/<lang>/), so
the index is not rebuilt. For every case it builds the engine exactly as ``graphrag.api`` does
(``read_indexer_*`` + ``get_global_search_engine`` / ``get_basic_search_engine``, a fresh engine per
case) and records what the library produced:

* global: the batch contexts (``build_context`` through ``GlobalSearch.search``), every model call's
  messages (map, rate, reduce), the scripted map answers (one malformed per batch in the
  ``MALFORMED`` queries), GraphRAG's parsed map responses, the reduce context; with dynamic selection
  the scripted ratings, the communities kept and the report order handed to the batcher;
* basic: the context table, the record ids and the LanceDB hits;
* parse: GraphRAG's reading of a list of odd map answers and rating answers.

The scripted model (``QueryScript``) answers from the messages alone, so the test can replay it.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json

GLOBAL_PARAMS: list[dict] = [
    {},
    {"max_context_tokens": 700},
    {"max_context_tokens": 400},
    {"max_context_tokens": 150},  # below one report: each report alone, over budget
    {"community_level": 0},
    {"community_level": 1},
    {"community_level": 1, "max_context_tokens": 500},
    {"data_max_tokens": 80},  # the reduce budget cuts points
]
DYNAMIC_PARAMS: list[dict] = [{}, {"community_level": 1}, {"max_context_tokens": 500}]
BASIC_PARAMS: list[dict] = [{}, {"k": 3}, {"max_context_tokens": 900}, {"max_context_tokens": 250}, {"k": 5}]
# ``--global-sections`` (global_sections_cases.jsonl): a reduce budget below every point, so the reduce
# prompt gets an empty report list (GraphRAG still calls the model), next to a cut one at level 1; a basic
# budget below the first text unit (the table header alone) and one that keeps two.
SECTION_PARAMS: list[dict] = [{"data_max_tokens": 5}, {"data_max_tokens": 120, "community_level": 1}]
SECTION_BASIC_PARAMS: list[dict] = [{"max_context_tokens": 60}, {"max_context_tokens": 600}]

QUERIES = {
    "en": ["What are the main themes of Riverton?", "Who works on ocean sensors?", "Storm Dara and the harbor"],
    "zh": ["云港市的主要主题是什么？", "谁在做湖泊传感器？", "台风“海燕”和老码头区"],
}
MALFORMED = {"en": "Summarise everything, malformed answers please", "zh": "总结一切（格式错误的回答）"}

# odd map answers whose reading GraphRAG's own _parse_search_response records
PARSE_ANSWERS = [
    '{"points": [{"description": "A [Data: Reports (1)]", "score": 80}, {"description": "B", "score": 0}]}',
    "I could not find anything relevant.",
    'Sure! Here it is:\n```json\n{"points": [{"description": "fenced", "score": 55}]}\n```',
    '{"points": []}',
    '{"answer": "no points key"}',
    '[{"description": "a list, not an object", "score": 5}]',
    '{"points": [{"description": "string score", "score": "70"}]}',
    '{"points": [{"description": "fraction score", "score": "7.5"}]}',
    '{"points": [{"description": "float score", "score": 42.9}]}',
    '{"points": [{"description": "no score"}, {"description": "kept", "score": 3}]}',
    '{"points": ["just a string"]}',
    '{"points": [{"description": null, "score": 10}]}',
    '{{"points": [{{"description": "doubled braces", "score": 20}}]}}',
    "",
    "{}",
]
RATE_ANSWERS = ['{"reason": "x", "rating": 4}', "no json here", '{"reason": "no rating"}', '{"rating": "3"}']


def _score(cid: str, query: str) -> int:
    return (int(cid) * 29 + len(query) * 3) % 100 if cid.isdigit() else 50


def rating_for(cid: str, query: str) -> int:
    """The scripted relevance rating (0-5) of a report; 0s prune whole branches."""
    return (int(cid) * 7 + len(query)) % 4 if cid.isdigit() else 1


def batch_rows(context: str) -> list[list[str]]:
    """Rows of a batch table (header first) found in a text that contains it."""
    start = context.find("id|title|")
    if start < 0:
        return []
    rows = list(csv.reader(io.StringIO(context[start:]), delimiter="|"))
    return [rows[0]] + [r for r in rows[1:] if len(r) >= 4 and r[0].isdigit()]


def map_answer(context: str, query: str) -> str:
    """The scripted map answer for one batch; MALFORMED queries get odd answers on some batches."""
    rows = batch_rows(context)[1:]
    ids = [r[0] for r in rows]
    points = [
        {
            "description": f"Report {r[0]} ({r[1]}) bears on the question [Data: Reports ({r[0]})]",
            "score": _score(r[0], query),
        }
        for r in rows
    ]
    body = json.dumps({"points": points}, ensure_ascii=False)
    if query in MALFORMED.values() and ids:
        kind = min(int(i) for i in ids) % 3
        if kind == 0:
            return "I could not read these reports, sorry."
        if kind == 1:
            return f"Here are the points:\n```json\n{body}\n```"
    return body


class QueryScript:
    """Scripted model for query time: rates, maps and reduces from the messages it is sent."""

    def __init__(self, reports: dict[str, str]) -> None:
        self.by_content = sorted(reports.items(), key=lambda kv: -len(kv[1]))  # cid -> description
        self.calls: list[dict] = []

    def reply(self, messages: list[dict]) -> str:
        system, query = messages[0]["content"], messages[-1]["content"]
        if '"rating"' in system:
            cid = next((c for c, text in self.by_content if text and text in system), "")
            kind, answer = "rate", json.dumps({"reason": "scripted", "rating": rating_for(cid, query)})
        elif '"points"' in system:
            kind, answer = "map", map_answer(system, query)
        else:
            kind, answer = "reduce", "Scripted final answer."
        self.calls.append({"kind": kind, "messages": messages, "answer": answer})
        return answer


def plain_messages(messages) -> list[dict]:
    out = []
    for m in messages:
        role = m.get("role") if isinstance(m, dict) else getattr(m, "role", None)
        content = m.get("content") if isinstance(m, dict) else getattr(m, "content", None)
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        out.append({"role": str(role), "content": str(content)})
    return out


def global_cases(lang: str) -> list[dict]:
    qs = QUERIES[lang]
    out = [{"query": q, "params": {}, "dynamic": False} for q in qs]
    out += [{"query": qs[i % len(qs)], "params": p, "dynamic": False} for i, p in enumerate(GLOBAL_PARAMS[1:])]
    out += [{"query": MALFORMED[lang], "params": p, "dynamic": False} for p in ({}, {"max_context_tokens": 400})]
    out += [{"query": qs[i % len(qs)], "params": p, "dynamic": True} for i, p in enumerate(DYNAMIC_PARAMS)]
    return out


def basic_cases(lang: str) -> list[dict]:
    qs = QUERIES[lang]
    out = [{"query": q, "params": {}} for q in qs]
    out += [{"query": qs[i % len(qs)], "params": p} for i, p in enumerate(BASIC_PARAMS[1:])]
    return out + [{"query": "", "params": {}}]


def run_global(make_engine, script: QueryScript, case: dict) -> dict:
    """One global case: ``make_engine(level, dynamic)`` gives a fresh factory-built engine."""
    import graphrag.query.structured_search.global_search.community_context as gcc

    level = case["params"].get("community_level", 2)
    engine = make_engine(level, case["dynamic"])
    for key in ("max_context_tokens",):
        if key in case["params"]:
            engine.context_builder_params[key] = case["params"][key]
    if "data_max_tokens" in case["params"]:
        engine.max_data_tokens = case["params"]["data_max_tokens"]
    handed: list[list[str]] = []
    original = gcc.build_community_context

    def spy(*args, **kwargs):
        handed.append([r.community_id for r in kwargs["community_reports"]])
        return original(*args, **kwargs)

    gcc.build_community_context = spy
    script.calls.clear()
    try:
        result = asyncio.run(engine.search(case["query"]))
    finally:
        gcc.build_community_context = original
    batches = list(result.context_text) if isinstance(result.context_text, list) else []
    calls = list(script.calls)
    map_calls = [c for c in calls if c["kind"] == "map"]
    map_messages = []
    for b in batches:
        match = [c for c in map_calls if b in c["messages"][0]["content"]]
        map_messages.append(match[0]["messages"] if match else [])
    rate_calls = [c for c in calls if c["kind"] == "rate"]
    ratings = {}
    for c in rate_calls:
        cid = next((k for k, text in script.by_content if text and text in c["messages"][0]["content"]), "")
        ratings[cid] = json.loads(c["answer"])["rating"]
    reduce_calls = [c for c in calls if c["kind"] == "reduce"]
    return {
        "batches": batches,
        "batch_ids": [[r[0] for r in batch_rows(b)[1:]] for b in batches],
        "map_messages": map_messages,
        "map_answers": [map_answer(b, case["query"]) for b in batches],
        "map_parsed": [m.response for m in result.map_responses],
        "reduce_context": result.reduce_context_text if isinstance(result.reduce_context_text, str) else "",
        "reduce_messages": reduce_calls[-1]["messages"] if reduce_calls else [],
        "response": result.response if isinstance(result.response, str) else "",
        "ratings": ratings,
        "rate_messages_example": rate_calls[0]["messages"] if rate_calls else [],
        "handed_order": handed[-1] if handed else [],
        "factory_params": {
            k: v for k, v in engine.context_builder_params.items() if isinstance(v, (int, float, bool, str))
        },
        "data_max_tokens": engine.max_data_tokens,
        "map_max_length": engine.map_max_length,
        "reduce_max_length": engine.reduce_max_length,
    }


def run_basic(engine, case: dict) -> dict:
    kwargs = {**engine.context_builder_params, **case["params"]}
    result = engine.context_builder.build_context(query=case["query"], **kwargs)
    records = result.context_records
    df = next(iter(records.values()), None) if records else None
    ids = [str(x) for x in df.iloc[:, 0].tolist()] if df is not None and len(df.columns) else []
    return {"context": result.context_chunks, "ids": ids, "factory_params": kwargs}


def parse_cases(search_engine) -> list[dict]:
    """GraphRAG's reading of odd map answers, with the handling of ``_map_response_single_batch``."""
    from graphrag.query.llm.text_utils import try_parse_json_object

    out = []
    for answer in PARSE_ANSWERS:
        try:
            parsed = search_engine._parse_search_response(answer)
        except ValueError:
            parsed = []
        except Exception:  # noqa: BLE001 - GraphRAG's map call catches everything
            parsed = [{"answer": "", "score": 0}]
        out.append({"kind": "map", "answer": answer, "parsed": parsed})
    for answer in RATE_ANSWERS:
        _, parsed = try_parse_json_object(answer)
        rating = parsed.get("rating", 1) if isinstance(parsed, dict) else None
        out.append({"kind": "rate", "answer": answer, "rating": rating})
    return out


def section_cases(lang: str) -> list[dict]:
    qs = QUERIES[lang]
    return [{"query": qs[i % len(qs)], "params": p, "dynamic": False} for i, p in enumerate(SECTION_PARAMS)]


def section_basic_cases(lang: str) -> list[dict]:
    qs = QUERIES[lang]
    return [{"query": qs[i % len(qs)], "params": p} for i, p in enumerate(SECTION_BASIC_PARAMS)]


def record(out_dir, langs: list[str], setup, set_script, extra_basic=lambda lang: [], *, sections=False) -> None:
    """Write ``out_dir/global_cases.jsonl`` (``sections``: only ``section_cases`` to
    global_sections_cases.jsonl, so the committed file stays as it is). ``setup(lang)`` gives (config,
    tables, text-unit store) for the committed index; ``set_script`` installs the scripted query model in
    the version's harness; ``extra_basic(lang)`` adds a version's own basic cases."""
    name = "global_sections_cases.jsonl" if sections else "global_cases.jsonl"
    from graphrag.query.factory import get_basic_search_engine, get_global_search_engine
    from graphrag.query.indexer_adapters import (
        read_indexer_communities,
        read_indexer_entities,
        read_indexer_reports,
        read_indexer_text_units,
    )

    lines = []
    for lang in langs:
        config, tables, store = setup(lang)
        script = QueryScript(report_texts(tables))
        set_script(script)

        def make_engine(level: int, dynamic: bool, tables=tables, config=config):
            t = {k: (v.copy() if v is not None else None) for k, v in tables.items()}
            return get_global_search_engine(
                config,
                reports=read_indexer_reports(t["community_reports"], t["communities"], level, dynamic),
                entities=read_indexer_entities(t["entities"], t["communities"], level),
                communities=read_indexer_communities(t["communities"], t["community_reports"]),
                response_type="Multiple Paragraphs",
                dynamic_community_selection=dynamic,
            )

        for case in section_cases(lang) if sections else global_cases(lang):
            lines.append({"corpus": lang, "mode": "global", **case, **run_global(make_engine, script, case)})
        for case in section_basic_cases(lang) if sections else basic_cases(lang) + extra_basic(lang):
            engine = get_basic_search_engine(
                text_units=read_indexer_text_units(tables["text_units"].copy()),
                text_unit_embeddings=store,
                config=config,
                response_type="Multiple Paragraphs",
            )
            lines.append({"corpus": lang, "mode": "basic", **case, **run_basic(engine, case)})
        if lang == langs[0] and not sections:
            lines.append({"corpus": lang, "mode": "parse", "cases": parse_cases(make_engine(2, False))})
        print(f"[{lang}] global/basic cases recorded", flush=True)
    set_script(None)
    with open(out_dir / name, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"wrote {len(lines)} cases to {out_dir / name}")


def report_texts(tables: dict) -> dict[str, str]:
    df = tables["community_reports"]
    return {str(int(c)): str(t) for c, t in zip(df["community"], df["full_content"], strict=True)}
