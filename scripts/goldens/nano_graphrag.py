"""Regenerate the nano-graphrag 0.0.8.2 golden fixtures under tests/goldens/nano/.

Run with any Python 3.11:  ``python3 scripts/goldens/nano_graphrag.py``

Outside the golden venv it creates /tmp/goldens-venv-nano (``pip install nano-graphrag==0.0.8.2``)
and re-executes itself there with PYTHONHASHSEED=0 and an offline tiktoken cache. Inside, for each
corpus (en, zh) it builds a real nano-graphrag working directory with a scripted LLM (extraction
records from corpus/<lang>/extraction.json, gleaning answers ``<|COMPLETE|>``, community reports as
deterministic JSON built from the members named in the prompt) and the ``hash`` embedder, then runs
the local queries below with ``only_need_context=True`` and records each context and the selected
ids (captured by wrapping nano's ``_find_most_related_*`` helpers).

Global cases (GLOBAL_CASES, ``mode="global"``, the whole query with the scripted LLM) record the
groups nano formed (captured in ``truncate_list_by_token_size``), every map call (the CSV context cut
out of the system prompt, the question, the extra call arguments, the scripted answer: JSON points,
JSON wrapped in prose, odd points, all-zero scores, a non-JSON answer, broken JSON), the points the
reduce step kept and the reduce context cut out of the reduce prompt, or the error nano raised. A
report too big for any batch makes nano's grouping loop spin forever; the harness stops it there
and records the hang. Naive cases (NAIVE_CASES) record the ``only_need_context`` string, the chunk
hits with their cosine and the chunks that survived the token cut. They go to global.jsonl and
naive.jsonl beside cases.jsonl.

Each local case is also run a second time with ONE documented fix applied inside nano: relation ties are
deduplicated in insertion order instead of through a ``set`` (the fix GitHub main made later). When
that changes the context, the case carries ``insertion_order`` = {context, selected}: that is what
our port must print (docs/differences/nano.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

MAIN = Path(__file__).resolve().parents[2]
CORPUS = MAIN / "scripts" / "goldens" / "corpus"
OUT = MAIN / "tests" / "goldens" / "nano"
VENV = Path(os.environ.get("NANO_GOLDENS_VENV", "/tmp/goldens-venv-nano"))
VERSION = "0.0.8.2"
TIKTOKEN_CACHE = MAIN / ".venv/lib/python3.11/site-packages/litellm/litellm_core_utils/tokenizers"
# nano's default is 10; with 33 connected entities that gives only one level here, so a smaller
# size makes hierarchical Leiden split the level-0 clusters and the fixtures exercise `level`.
MAX_GRAPH_CLUSTER_SIZE = 6
CLUSTER_SEED = 0xDEADBEEF
WORKING_FILES = (
    "graph_chunk_entity_relation.graphml",
    "kv_store_community_reports.json",
    "kv_store_full_docs.json",
    "kv_store_text_chunks.json",
    "vdb_chunks.json",
    "vdb_entities.json",
)

# (case name, query, QueryParam overrides; "query_better_than_threshold" is the GraphRAG field)
CASES: dict[str, list[tuple[str, str, dict]]] = {
    "en": [
        ("defaults", "What does Alice Chen do at the Tidewater Institute?", {}),
        ("top_k_5", "What does Alice Chen do at the Tidewater Institute?", {"top_k": 5}),
        ("level_0", "Who built the SeaDrone X2 buoys for Project Seawatch?", {"level": 0}),
        (
            "level_1_single_one",
            "How did Storm Dara affect the Riverton Fishers' Cooperative?",
            {"level": 1, "local_community_single_one": True},
        ),
        (
            "tiny_budgets",
            "Brigid O'Neill opens the Harbor Festival at the Old Lighthouse",
            {
                "local_max_token_for_community_report": 400,
                "local_max_token_for_local_context": 120,
                "local_max_token_for_text_unit": 600,
            },
        ),
        (
            "first_item_over_budget",
            "Elena Petrova Halden Robotics contract in Lisbon",
            {"top_k": 3, "local_max_token_for_text_unit": 1, "local_max_token_for_community_report": 5},
        ),
        ("isolated_entity", "Marigold Café tea room on Chapel Lane", {"top_k": 2}),
        ("no_entity_above_threshold", "banjo walrus", {}),
        ("top_k_above_entity_count", "Hana Sato oxygen thesis in Kelp Bay at Northgate University", {"top_k": 40}),
        ("level_5_all_levels", "Priya Raman reporting for the Riverton Gazette", {"level": 5, "top_k": 8}),
        (
            "threshold_035",
            "Who is Inês Moura of the Atlantic Monitoring Network?",
            {"query_better_than_threshold": 0.35},
        ),
        (
            "zero_report_budget",
            "David Okafor and the Department of Ocean Sciences",
            {"local_max_token_for_community_report": 0},
        ),
        # the relations' budget leaves the Relationships table empty (test_golden_coverage.py)
        ("zero_relation_budget", "Who builds the SeaDrone X2 buoys?", {"local_max_token_for_local_context": 0}),
    ],
    "zh": [
        ("defaults", "林晓梅在青岚湖研究站做什么？", {}),
        ("top_k_5", "林晓梅在青岚湖研究站做什么？", {"top_k": 5}),
        ("level_0", "谁为清波计划制造了蓝鲸二号浮标？", {"level": 0}),
        (
            "level_1_single_one",
            "台风“海燕”对云港渔业合作社有什么影响？",
            {"level": 1, "local_community_single_one": True},
        ),
        (
            "tiny_budgets",
            "王建国在白塔宣布湖灯节开幕",
            {
                "local_max_token_for_community_report": 400,
                "local_max_token_for_local_context": 120,
                "local_max_token_for_text_unit": 600,
            },
        ),
        (
            "first_item_over_budget",
            "孙慧 星河科技 新加坡 合同",
            {"top_k": 3, "local_max_token_for_text_unit": 1, "local_max_token_for_community_report": 5},
        ),
        ("isolated_entity", "桂花茶馆 礼拜堂巷 小茶室", {"top_k": 2}),
        ("no_entity_above_threshold", "banjo glockenspiel", {}),
        ("top_k_above_entity_count", "吴雨桐 临川大学 青岚湖 缺氧 论文", {"top_k": 40}),
        ("level_5_all_levels", "周婷为《云港日报》做的报道", {"level": 5, "top_k": 8}),
        ("threshold_035", "马克·杜邦和亚太湖泊观测联盟是谁？", {"query_better_than_threshold": 0.35}),
        ("zero_report_budget", "陈志明与生态学院", {"local_max_token_for_community_report": 0}),
        ("zero_relation_budget", "谁制造了蓝鲸二号浮标？", {"local_max_token_for_local_context": 0}),
    ],
}


# (case name, query, QueryParam overrides, scripted map answers) for mode="global"; the reports hold
# 150-230 o200k tokens each, so 500 makes batches of two or three, 230 one each, and 200 leaves
# two English reports that cannot fit even alone (nano then loops forever; the harness stops it).
GLOBAL_CASES: dict[str, list[tuple[str, str, dict, str]]] = {
    "en": [
        ("defaults", "What are the main themes across the communities?", {}, "json"),
        ("level_0", "What are the main themes across the communities?", {"level": 0}, "json"),
        ("level_1", "Which organisations work together?", {"level": 1}, "json"),
        ("budget_500", "Which organisations work together?", {"global_max_token_for_community_report": 500}, "json"),
        ("budget_230", "Who studies Kelp Bay?", {"global_max_token_for_community_report": 230}, "json"),
        ("budget_200_hangs", "Who studies Kelp Bay?", {"global_max_token_for_community_report": 200}, "json"),
        ("min_rating_5", "What happened during Storm Dara?", {"global_min_community_rating": 5}, "json"),
        ("max_consider_3", "What happened during Storm Dara?", {"global_max_consider_community": 3}, "json"),
        ("prose_wrapped", "Who funds the research?", {"global_max_token_for_community_report": 500}, "prose"),
        ("odd_points", "Who funds the research?", {"global_max_token_for_community_report": 500}, "odd"),
        ("all_scores_zero", "banjo walrus", {}, "zero"),
        ("non_json_answer", "Who funds the research?", {"global_max_token_for_community_report": 500}, "non_json"),
        ("broken_json_answer", "Who funds the research?", {}, "broken_json"),
        (
            "level_0_tight_bullets",
            "Summarise the festival.",
            {"level": 0, "global_max_token_for_community_report": 400, "response_type": "Bullet Points"},
            "json",
        ),
    ],
    "zh": [
        ("defaults", "各个社区的主要主题是什么？", {}, "json"),
        ("level_0", "各个社区的主要主题是什么？", {"level": 0}, "json"),
        ("level_1", "哪些机构在合作？", {"level": 1}, "json"),
        ("budget_500", "哪些机构在合作？", {"global_max_token_for_community_report": 500}, "json"),
        ("budget_200", "谁在研究青岚湖？", {"global_max_token_for_community_report": 200}, "json"),
        ("min_rating_5", "台风“海燕”期间发生了什么？", {"global_min_community_rating": 5}, "json"),
        ("max_consider_3", "台风“海燕”期间发生了什么？", {"global_max_consider_community": 3}, "json"),
        ("prose_wrapped", "谁资助了这项研究？", {"global_max_token_for_community_report": 500}, "prose"),
        ("odd_points", "谁资助了这项研究？", {"global_max_token_for_community_report": 500}, "odd"),
        ("all_scores_zero", "banjo glockenspiel", {}, "zero"),
        ("non_json_answer", "谁资助了这项研究？", {"global_max_token_for_community_report": 500}, "non_json"),
        (
            "level_0_tight_bullets",
            "概括湖灯节。",
            {"level": 0, "global_max_token_for_community_report": 400, "response_type": "Bullet Points"},
            "json",
        ),
        # every Chinese report is over 100 tokens: no batch can be made (test_golden_coverage.py)
        ("budget_100_hangs", "谁在研究青岚湖？", {"global_max_token_for_community_report": 100}, "json"),
    ],
}

# (case name, query, overrides) for mode="naive"; naive_max_token_for_text_unit is set as an
# attribute (it is not a QueryParam constructor field in 0.0.8.2)
NAIVE_CASES: dict[str, list[tuple[str, str, dict]]] = {
    "en": [
        ("defaults", "What does Alice Chen do at the Tidewater Institute?", {}),
        ("top_k_3", "Who built the SeaDrone X2 buoys for Project Seawatch?", {"top_k": 3}),
        (
            "budget_600",
            "How did Storm Dara affect the Riverton Fishers' Cooperative?",
            {"naive_max_token_for_text_unit": 600},
        ),
        (
            "first_chunk_over_budget",
            "Elena Petrova Halden Robotics contract in Lisbon",
            {"naive_max_token_for_text_unit": 1},
        ),
        (
            "threshold_035",
            "Who is Inês Moura of the Atlantic Monitoring Network?",
            {"query_better_than_threshold": 0.35},
        ),
        ("no_chunk_above_threshold", "banjo walrus", {}),
    ],
    "zh": [
        ("defaults", "林晓梅在青岚湖研究站做什么？", {}),
        ("top_k_3", "谁为清波计划制造了蓝鲸二号浮标？", {"top_k": 3}),
        ("budget_600", "台风“海燕”对云港渔业合作社有什么影响？", {"naive_max_token_for_text_unit": 600}),
        ("first_chunk_over_budget", "孙慧 星河科技 新加坡 合同", {"naive_max_token_for_text_unit": 1}),
        ("threshold_035", "马克·杜邦和亚太湖泊观测联盟是谁？", {"query_better_than_threshold": 0.35}),
        ("no_chunk_above_threshold", "banjo glockenspiel", {}),
    ],
}


# ----------------------------------------------------------------------------- outside the venv
def ensure_venv() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('nano-graphrag'))"],
        capture_output=True,
        text=True,
    )
    if probe.stdout.strip() != VERSION:
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"nano-graphrag=={VERSION}"], check=True)
    return python


def relaunch() -> None:
    python = ensure_venv()
    env = dict(os.environ, PYTHONHASHSEED="0", TIKTOKEN_CACHE_DIR=str(TIKTOKEN_CACHE))
    raise SystemExit(subprocess.run([str(python), "-P", __file__, "--inside", *sys.argv[1:]], env=env).returncode)


# ----------------------------------------------------------------------------- scripted LLM
def extraction_records(entry: dict) -> str:
    """The document's records in nano's tuple format (quoted fields, unquoted strength)."""
    records = [f'("entity"<|>"{e["name"]}"<|>"{e["type"]}"<|>"{e["description"]}")' for e in entry["entities"]]
    records += [
        f'("relationship"<|>"{r["source"]}"<|>"{r["target"]}"<|>"{r["description"]}"<|>{r["strength"]})'
        for r in entry["relations"]
    ]
    return "##\n".join(records) + "\n<|COMPLETE|>"


def _csv_rows(block: str) -> list[list[str]]:
    rows = []
    for line in block.splitlines()[1:]:  # skip the header
        if re.match(r"^\d+,\t", line):
            rows.append([cell.strip('"') for cell in line.split(",\t")])
    return rows


def community_report(prompt: str) -> str:
    """A deterministic report from the members the prompt lists (entities table of the real data)."""
    text = prompt[prompt.rindex("Text:\n```\n") :]
    entities = text.split("-----Entities-----\n```csv\n", 1)[1].split("\n```", 1)[0]
    relations = text.split("-----Relationships-----\n```csv\n", 1)[1].split("\n```", 1)[0]
    members = _csv_rows(entities)  # [id, name, type, description, degree], degree-sorted
    edges = _csv_rows(relations)
    names = [m[1] for m in members]
    digest = hashlib.md5("|".join(sorted(names)).encode("utf-8")).hexdigest()
    rating = round(1.0 + int(digest[:4], 16) % 81 / 10, 1)
    zh = any("\u4e00" <= ch <= "\u9fff" for ch in "".join(names))
    head = names[:2]
    if zh:
        title = f"{'与'.join(head)}社区"
        summary = f"本社区有{len(names)}个实体，以{names[0]}为中心，还包括{'、'.join(names[1:]) or '无其他实体'}。"
        explanation = f"评分由{len(names)}个成员名称确定性地生成。"
    else:
        title = f"Community around {' and '.join(head)}"
        others = ", ".join(names[1:]) or "no other entity"
        summary = f"This community of {len(names)} entities centres on {names[0]} and also includes {others}."
        explanation = f"Deterministic rating derived from the {len(names)} member names."
    findings = [
        {"summary": f"{m[1]} ({m[2]}, degree {m[4]})", "explanation": m[3].split("<SEP>")[0].strip('"')}
        for m in members[:3]
    ]
    if edges:
        top = edges[0]
        findings.append({"summary": f"{top[1]} — {top[2]}", "explanation": top[3].split("<SEP>")[0].strip('"')})
    report = {
        "title": title,
        "summary": summary,
        "rating": rating,
        "rating_explanation": explanation,
        "findings": findings,
    }
    return json.dumps(report, ensure_ascii=False)


def make_llm(docs: dict[str, str], extraction: dict[str, dict]):
    async def scripted_llm(prompt, system_prompt=None, history_messages=None, **kwargs) -> str:
        kwargs.pop("hashing_kv", None)
        if prompt.startswith("MANY entities were missed"):
            return "<|COMPLETE|>"
        if "-Real Data-" in prompt and "Entity_types:" in prompt:
            hits = [name for name, text in docs.items() if text.strip() in prompt]
            if len(hits) != 1:
                raise RuntimeError(f"extraction prompt matches {len(hits)} documents")
            return extraction_records(extraction[hits[0]])
        if "Write a comprehensive report of a community" in prompt:
            return community_report(prompt)
        if SESSION is not None and system_prompt is not None:
            return SESSION.answer(prompt, system_prompt, kwargs)
        raise RuntimeError(f"unexpected prompt: {prompt[:120]!r}")

    return scripted_llm


# ----------------------------------------------------------------------------- scripted map answers
SESSION = None  # the GlobalSession of the global case being run (the scripted LLM asks it)
_ROW = re.compile(r'^(\d+),\t"# (.*)$', re.M)


def map_rows(context: str) -> list[tuple[str, str]]:
    """(title, summary) of each report row in a map batch's CSV (report strings start "# title")."""
    starts = list(_ROW.finditer(context))
    rows = []
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(context)
        lines = context[m.start() : end].split("\n")
        rows.append((m.group(2), lines[2] if len(lines) > 2 else ""))
    return rows


def scripted_points(query: str, context: str) -> list[dict]:
    """Two points per report: a short and a long one; scores in steps of 10 (ties on purpose), some
    0 and some floats, all derived from md5 so a regeneration gives the same answers."""
    points = []
    for title, summary in map_rows(context):
        for j, text in enumerate((f"{title}: relevant to the question.", f"{title}: {summary}")):
            digest = hashlib.md5(f"{query}|{title}|{j}".encode()).hexdigest()
            score = int(digest[:4], 16) % 11 * 10
            if int(digest[4], 16) % 3 == 0:
                score = score + 0.5
            points.append({"description": text, "score": score})
    return points


def map_answer(script: str, batch: int, query: str, context: str) -> str:
    points = scripted_points(query, context)
    if script == "zero":
        return json.dumps({"points": [{"description": p["description"], "score": 0} for p in points]})
    if script == "prose":
        body = json.dumps({"points": points}, ensure_ascii=False, indent=2)
        return f"Here are the key points.\n```json\n{body}\n```\nI hope this helps."
    if script == "odd":
        odd = [
            {"score": 90},  # no description: skipped
            {"description": "A point without a score counts as 1."},
            {"description": "Zero score.", "score": 0},
            {"description": "Negative score.", "score": -5},
            {"description": "Extra keys are ignored.", "score": 55, "reasoning": "n/a"},
        ]
        if batch == 1:
            return json.dumps({"answer": "no points key at all"})
        return json.dumps({"points": odd + points}, ensure_ascii=False)
    if script == "non_json" and batch == min(1, SESSION.groups_count - 1):
        return "I am sorry, I can only answer in prose: the reports mention funding."
    if script == "broken_json":
        return '{"points": [{"description": "trailing comma", "score": 5},]}'
    return json.dumps({"points": points}, ensure_ascii=False)


class HangDetected(RuntimeError):
    """nano's grouping loop would never end (an empty group)."""


class GlobalSession:
    """One global query: records the groups, map calls, kept points and the reduce call."""

    def __init__(self, op, prompts: dict, script: str, response_type: str) -> None:
        self.op, self.script = op, script
        self.map_head, self.map_tail = prompts["global_map_rag_points"].format(context_data="\x00").split("\x00")
        reduce = prompts["global_reduce_rag_response"].format(report_data="\x00", response_type=response_type)
        self.reduce_head, self.reduce_tail = reduce.split("\x00")
        self.groups: list[list[str]] = []
        self.kept_points: list[dict] | None = None
        self.calls: list[dict] = []
        self.reduce: dict | None = None
        self.orig_truncate = op.truncate_list_by_token_size

    @property
    def groups_count(self) -> int:
        return len(self.groups)

    def __enter__(self):
        def truncate(list_data, key, max_token_size):
            out = self.orig_truncate(list_data, key=key, max_token_size=max_token_size)
            if list_data and "report_string" in list_data[0]:
                if not out:
                    raise HangDetected(
                        f"group {len(self.groups)} is empty: the first remaining report alone is over "
                        f"{max_token_size} tokens, so _map_global_communities never ends"
                    )
                self.groups.append([c["title"].removeprefix("Cluster ") for c in out])
            elif list_data and "answer" in list_data[0]:
                self.kept_points = [dict(p) for p in out]
            return out

        self.op.truncate_list_by_token_size = truncate
        return self

    def __exit__(self, *exc) -> None:
        self.op.truncate_list_by_token_size = self.orig_truncate

    @staticmethod
    def _inside(text: str, head: str, tail: str) -> str:
        if not (text.startswith(head) and text.endswith(tail)):
            raise RuntimeError("system prompt is not the expected template")
        return text[len(head) : len(text) - len(tail)]

    def answer(self, query: str, system_prompt: str, kwargs: dict) -> str:
        if system_prompt.startswith(self.map_head):
            context = self._inside(system_prompt, self.map_head, self.map_tail)
            text = map_answer(self.script, len(self.calls), query, context)
            self.calls.append({"context": context, "query": query, "llm_kwargs": kwargs, "answer": text})
            return text
        if system_prompt.startswith(self.reduce_head):
            context = self._inside(system_prompt, self.reduce_head, self.reduce_tail)
            self.reduce = {"context": context, "query": query, "llm_kwargs": kwargs}
            return "REDUCED ANSWER"
        raise RuntimeError(f"unexpected system prompt: {system_prompt[:120]!r}")


def run_global_case(rag_factory, lang: str, name: str, query: str, overrides: dict, script: str) -> dict:
    global SESSION
    from nano_graphrag import QueryParam, _op
    from nano_graphrag.prompt import PROMPTS

    param = QueryParam(mode="global", only_need_context=False, **overrides)
    rag = rag_factory()
    result, error = None, None
    with GlobalSession(_op, PROMPTS, script, param.response_type) as session:
        SESSION = session
        try:
            result = rag.query(query, param=param)
        except HangDetected as exc:
            error = f"hang: {exc}"
        except Exception as exc:  # nano's own failure on a malformed map answer is the recorded outcome
            error = f"{type(exc).__name__}: {str(exc)[:200]}"
        finally:
            SESSION = None
    if len(session.calls) != len(session.groups) and error is None:
        raise RuntimeError(f"{lang}/{name}: {len(session.calls)} map calls for {len(session.groups)} groups")
    return {
        "corpus": lang,
        "mode": "global",
        "name": name,
        "query": query,
        "map_script": script,
        "params": {
            "level": param.level,
            "global_min_community_rating": param.global_min_community_rating,
            "global_max_consider_community": param.global_max_consider_community,
            "global_max_token_for_community_report": param.global_max_token_for_community_report,
            "response_type": param.response_type,
        },
        "groups": session.groups,
        "map_calls": session.calls,
        "kept_points": session.kept_points,
        "reduce": session.reduce,
        "result": result,
        "error": error,
        "fail_response": PROMPTS["fail_response"],
    }


def run_naive_case(rag_factory, lang: str, name: str, query: str, overrides: dict) -> dict:
    from nano_graphrag import QueryParam, _op

    overrides = dict(overrides)
    threshold = overrides.pop("query_better_than_threshold", 0.2)
    budget = overrides.pop("naive_max_token_for_text_unit", None)
    rag = rag_factory(threshold)
    param = QueryParam(mode="naive", only_need_context=True, **overrides)
    if budget is not None:
        param.naive_max_token_for_text_unit = budget
    scores: list = []
    kept: list[str] = []
    vdb_query, truncate = rag.chunks_vdb.query, _op.truncate_list_by_token_size

    async def recording_query(text, top_k=5):
        results = await vdb_query(text, top_k=top_k)
        scores.extend([r["id"], round(float(r["distance"]), 6)] for r in results)
        return results

    def recording_truncate(list_data, key, max_token_size):
        out = truncate(list_data, key=key, max_token_size=max_token_size)
        kept.extend("chunk-" + hashlib.md5(c["content"].encode()).hexdigest() for c in out)
        return out

    rag.chunks_vdb.query = recording_query
    _op.truncate_list_by_token_size = recording_truncate
    try:
        context = rag.query(query, param=param)
    finally:
        _op.truncate_list_by_token_size = truncate
    from nano_graphrag.prompt import PROMPTS

    return {
        "corpus": lang,
        "mode": "naive",
        "name": name,
        "query": query,
        "params": {
            "top_k": param.top_k,
            "naive_max_token_for_text_unit": param.naive_max_token_for_text_unit,
            "query_better_than_threshold": threshold,
            "response_type": param.response_type,
        },
        "context": context,
        "is_fail_response": context == PROMPTS["fail_response"],
        "chunk_scores": scores,
        "selected_chunks": kept,
    }


# ----------------------------------------------------------------------------- inside the venv
def build(lang: str, workdir: Path):
    import numpy as np
    from nano_graphrag import GraphRAG
    from nano_graphrag._utils import wrap_embedding_func_with_attrs

    sys.path.insert(0, str(MAIN))
    from graphrag_ui.embedding.embed import HashEmbedder

    @wrap_embedding_func_with_attrs(embedding_dim=HashEmbedder.dim, max_token_size=8192)
    async def hash_embed(texts: list[str]) -> np.ndarray:
        return np.stack([HashEmbedder.vector(t) for t in texts])

    doc_dir = CORPUS / lang / "docs"
    docs = {p.name: p.read_text(encoding="utf-8") for p in sorted(doc_dir.glob("*.txt"))}
    extraction = json.loads((CORPUS / lang / "extraction.json").read_text(encoding="utf-8"))
    llm = make_llm(docs, extraction)

    def rag(threshold: float = 0.2):
        return GraphRAG(
            working_dir=str(workdir),
            embedding_func=hash_embed,
            best_model_func=llm,
            cheap_model_func=llm,
            enable_llm_cache=False,
            enable_naive_rag=True,
            max_graph_cluster_size=MAX_GRAPH_CLUSTER_SIZE,
            graph_cluster_seed=CLUSTER_SEED,
            query_better_than_threshold=threshold,
        )

    if workdir.exists():
        shutil.rmtree(workdir)
    rag().insert(list(docs.values()))
    return rag


class Recorder:
    """Wraps nano's _find_most_related_* helpers and the entity vdb to capture what was selected."""

    def __init__(self, op, insertion_order: bool) -> None:
        self.op = op
        self.orig = {
            name: getattr(op, name)
            for name in (
                "_find_most_related_community_from_entities",
                "_find_most_related_text_unit_from_entities",
                "_find_most_related_edges_from_entities",
            )
        }
        self.insertion_order = insertion_order
        self.selected: dict = {}

    def __enter__(self):
        op, orig, sel = self.op, self.orig, self.selected

        async def communities(node_datas, param, reports):
            sel["entities"] = [n["entity_name"] for n in node_datas]
            out = await orig["_find_most_related_community_from_entities"](node_datas, param, reports)
            sel["communities"] = [r["title"].removeprefix("Cluster ") for r in out]
            return out

        async def text_units(node_datas, param, chunks, graph):
            out = await orig["_find_most_related_text_unit_from_entities"](node_datas, param, chunks, graph)
            sel["chunks"] = ["chunk-" + hashlib.md5(c["content"].encode()).hexdigest() for c in out]
            return out

        async def edges(node_datas, param, graph):
            if self.insertion_order:
                out = await insertion_ordered_edges(op, node_datas, param, graph)
            else:
                out = await orig["_find_most_related_edges_from_entities"](node_datas, param, graph)
            sel["relations"] = [list(e["src_tgt"]) for e in out]
            return out

        op._find_most_related_community_from_entities = communities
        op._find_most_related_text_unit_from_entities = text_units
        op._find_most_related_edges_from_entities = edges
        return self

    def __exit__(self, *exc) -> None:
        for name, fn in self.orig.items():
            setattr(self.op, name, fn)


async def insertion_ordered_edges(op, node_datas, param, graph):
    """nano's edge step with the one fix: undirected pairs deduplicated in first-seen order."""
    pairs: dict[tuple[str, str], None] = {}
    for node in node_datas:
        for edge in await graph.get_node_edges(node["entity_name"]) or []:
            pairs.setdefault(tuple(sorted(edge)), None)
    rows = []
    for src, tgt in pairs:
        data = await graph.get_edge(src, tgt)
        if data is not None:
            rows.append({"src_tgt": (src, tgt), "rank": await graph.edge_degree(src, tgt), **data})
    rows.sort(key=lambda r: (r["rank"], r["weight"]), reverse=True)
    return op.truncate_list_by_token_size(
        rows, key=lambda r: r["description"], max_token_size=param.local_max_token_for_local_context
    )


def run_case(rag_factory, lang: str, name: str, query: str, overrides: dict, insertion_order: bool) -> dict:
    from nano_graphrag import QueryParam, _op

    overrides = dict(overrides)
    threshold = overrides.pop("query_better_than_threshold", 0.2)
    rag = rag_factory(threshold)
    scores: list = []
    vdb_query = rag.entities_vdb.query

    async def recording_query(text, top_k=5):
        results = await vdb_query(text, top_k=top_k)
        scores.extend([r["entity_name"], round(float(r["distance"]), 6)] for r in results)
        return results

    rag.entities_vdb.query = recording_query
    param = QueryParam(mode="local", only_need_context=True, **overrides)
    with Recorder(_op, insertion_order) as rec:
        context = rag.query(query, param=param)
    selected = {k: rec.selected.get(k, []) for k in ("entities", "relations", "communities", "chunks")}
    params = {
        "top_k": param.top_k,
        "level": param.level,
        "local_max_token_for_text_unit": param.local_max_token_for_text_unit,
        "local_max_token_for_local_context": param.local_max_token_for_local_context,
        "local_max_token_for_community_report": param.local_max_token_for_community_report,
        "local_community_single_one": param.local_community_single_one,
        "response_type": param.response_type,
        "query_better_than_threshold": threshold,
    }
    return {
        "corpus": lang,
        "mode": "local",
        "name": name,
        "query": query,
        "params": params,
        "context": context,
        "selected": selected,
        "entity_scores": scores,
    }


def inside() -> None:
    import importlib.metadata as md

    import numpy as np

    OUT.mkdir(parents=True, exist_ok=True)
    lines, global_lines, naive_lines = [], [], []
    differing = []
    for lang, cases in CASES.items():
        workdir = OUT / lang
        rag_factory = build(lang, workdir)
        for name, query, overrides in cases:
            case = run_case(rag_factory, lang, name, query, overrides, insertion_order=False)
            fixed = run_case(rag_factory, lang, name, query, overrides, insertion_order=True)
            if fixed["context"] != case["context"]:
                case["insertion_order"] = {"context": fixed["context"], "selected": fixed["selected"]}
                differing.append(f"{lang}/{name}")
            lines.append(json.dumps(case, ensure_ascii=False))
        for name, query, overrides, script in GLOBAL_CASES[lang]:
            global_lines.append(
                json.dumps(run_global_case(rag_factory, lang, name, query, overrides, script), ensure_ascii=False)
            )
        for name, query, overrides in NAIVE_CASES[lang]:
            naive_lines.append(
                json.dumps(run_naive_case(rag_factory, lang, name, query, overrides), ensure_ascii=False)
            )
        for leftover in workdir.iterdir():
            if leftover.name not in WORKING_FILES:
                leftover.unlink()
    (OUT / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (OUT / "global.jsonl").write_text("\n".join(global_lines) + "\n", encoding="utf-8")
    (OUT / "naive.jsonl").write_text("\n".join(naive_lines) + "\n", encoding="utf-8")
    manifest = {
        "library": f"nano-graphrag=={VERSION}",
        "nano-vectordb": md.version("nano-vectordb"),
        "graspologic": md.version("graspologic"),
        "networkx": md.version("networkx"),
        "numpy": np.__version__,
        "tiktoken": md.version("tiktoken"),
        "python": sys.version.split()[0],
        "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED"),
        "embedder": "hash",
        "max_graph_cluster_size": MAX_GRAPH_CLUSTER_SIZE,
        "graph_cluster_seed": CLUSTER_SEED,
        "enable_naive_rag": True,
        "enable_llm_cache": False,
        "cases_where_insertion_order_differs": differing,
        "global_cases": len(global_lines),
        "naive_cases": len(naive_lines),
    }
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(
        f"wrote {len(lines)} local, {len(global_lines)} global and {len(naive_lines)} naive cases to {OUT}; "
        f"insertion order differs in: {differing or 'none'}"
    )


if __name__ == "__main__":
    if "--inside" in sys.argv:
        # this file is named like the package it drives: never import it instead of nano_graphrag
        here = str(Path(__file__).resolve().parent)
        sys.path[:] = [p for p in sys.path if str(Path(p or ".").resolve()) != here]
        inside()
    else:
        relaunch()
