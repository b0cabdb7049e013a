"""Scripted "LLM" and query cases shared by the GraphRAG 2.x and 3.x golden harnesses.

Runs inside the throwaway golden venvs (only the standard library, numpy and
graphrag_ui.embedding.embed.HashEmbedder from /work/main are needed). The reply to each prompt is derived
from the prompt text alone, so the library's own indexing pipeline can run end to end offline:

* entity/relationship extraction: the document whose text appears in the prompt -> its records from
  the shared corpus ``extraction.json`` in GraphRAG's own tuple format;
* gleaning ("MANY entities ... were missed"): nothing more; loop check: "N";
* description summaries: the listed descriptions, de-duplicated, joined with a space;
* community reports: a JSON report naming the community's entities (title, summary, findings and a
  rating computed from the members, so reports rank differently).
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "scripts" / "goldens" / "corpus"
sys.path.insert(0, str(ROOT))

TUPLE, RECORD, COMPLETE = "<|>", "##", "<|COMPLETE|>"


def hash_vector(text: str) -> list[float]:
    """The project's ``hash`` embedder (graphrag_ui.embedding.embed.HashEmbedder), as a float list."""
    from graphrag_ui.embedding.embed import HashEmbedder

    return [float(x) for x in HashEmbedder.vector(text)]


def ensure_venv(venv: str, requirements: list[str]) -> None:
    """Re-run this script inside its own throwaway venv (created on first use) with PYTHONHASHSEED=0."""
    import os
    import subprocess

    here = Path(sys.prefix).resolve()
    if here == Path(venv).resolve() and os.environ.get("PYTHONHASHSEED") == "0":
        return
    python = Path(venv) / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *requirements], check=True)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    os.execve(str(python), [str(python), *sys.argv], env)


def deterministic_uuid4(seed: int = 0) -> None:
    """GraphRAG ids are uuid4: draw them from a seeded generator so a rerun gives the same files."""
    import random
    import uuid

    rng = random.Random(seed)
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)


def corpus_docs(lang: str) -> dict[str, str]:
    folder = CORPUS / lang / "docs"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt"))}


def corpus_extraction(lang: str) -> dict:
    return json.loads((CORPUS / lang / "extraction.json").read_text(encoding="utf-8"))


def _clean(text: str) -> str:
    return " ".join(str(text).replace(TUPLE, " ").replace(RECORD, " ").split())


class ScriptedLLM:
    """Answers the indexing prompts of GraphRAG 2.x/3.x deterministically for one corpus."""

    def __init__(self, lang: str) -> None:
        self.docs = corpus_docs(lang)
        self.extraction = corpus_extraction(lang)
        self.calls: dict[str, int] = {}

    def _count(self, kind: str) -> None:
        self.calls[kind] = self.calls.get(kind, 0) + 1

    def extraction_records(self, prompt: str) -> str:
        text = _norm(prompt.rsplit("Text:", 1)[-1].split("######")[0])
        probe = text[10:90]  # a chunk may start or end inside a multi-byte character
        hits = [name for name, body in self.docs.items() if probe and probe in _norm(body)]
        if len(hits) != 1:
            raise RuntimeError(f"scripted LLM: cannot tell which document the prompt holds ({hits})")
        data = self.extraction[hits[0]]
        records = []
        for ent in data["entities"]:
            records.append(
                f'("entity"{TUPLE}{_clean(ent["name"])}{TUPLE}{_clean(ent["type"])}{TUPLE}{_clean(ent["description"])})'
            )
        for rel in data["relations"]:
            records.append(
                f'("relationship"{TUPLE}{_clean(rel["source"])}{TUPLE}{_clean(rel["target"])}{TUPLE}'
                f"{_clean(rel['description'])}{TUPLE}{float(rel.get('strength', 1.0)):g})"
            )
        return f"\n{RECORD}\n".join(records) + f"\n{COMPLETE}"

    def summary(self, prompt: str) -> str:
        match = re.search(r"Description List:\s*(\[.*?\])\s*\n#", prompt, re.S)
        if not match:
            raise RuntimeError("scripted LLM: summarize prompt without a description list")
        seen: list[str] = []
        for item in json.loads(match.group(1)):
            if item not in seen:
                seen.append(item)
        return " ".join(seen)

    def report(self, prompt: str) -> dict:
        members = _report_members(prompt)
        if not members:
            raise RuntimeError("scripted LLM: community report prompt without an entity table")
        head = ", ".join(members[:3])
        rating = float(2 + (len(members) * 7 + sum(len(m) for m in members)) % 8)
        findings = [
            {"summary": f"{name} in this community", "explanation": f"{name} is one of the {len(members)} members."}
            for name in members[:3]
        ]
        return {
            "title": f"Community of {head}",
            "summary": f"This community links {', '.join(members)}.",
            "rating": rating,
            "rating_explanation": f"Rated {rating:g} from its {len(members)} members.",
            "findings": findings,
        }

    def reply(self, prompt: str) -> str | dict:
        """Text for extraction/gleaning/summaries, a dict for community reports."""
        if prompt.startswith("MANY entities"):
            self._count("gleaning")
            return ""
        if prompt.startswith("It appears some entities"):
            self._count("loop")
            return "N"
        if "-Real Data-" in prompt and "Entity_types:" in prompt:
            self._count("extract")
            return self.extraction_records(prompt)
        if "Description List:" in prompt:
            self._count("summarize")
            return self.summary(prompt)
        if "-----Entities-----" in prompt and "report" in prompt.lower():
            self._count("report")
            return self.report(prompt)
        raise RuntimeError(f"scripted LLM: unexpected prompt: {prompt[:200]!r}")


def _norm(text: str) -> str:
    return " ".join(text.split())


def _report_members(prompt: str) -> list[str]:
    """Entity titles of the last ``-----Entities-----`` CSV table in a report prompt."""
    block = prompt.rsplit("-----Entities-----", 1)[-1].strip("\n")
    block = re.split(r"\n\s*\n|\n-----", block, maxsplit=1)[0]
    rows = list(csv.reader(io.StringIO(block)))
    if not rows:
        return []
    header = rows[0]
    col = header.index("title") if "title" in header else 1
    return [row[col] for row in rows[1:] if len(row) > col]


# ---------------------------------------------------------------------------------------------
# Query cases: >= 8 per corpus, each a query and build_context overrides of the factory params.

QUERIES = {
    "en": [
        "Who directs the Tidewater Institute and what is Project Seawatch?",
        "What does Halden Robotics build for the sensor network?",
        "Which storm hit the Harbor District and how did the city council respond?",
        "Tell me about the Ocean Data Summit in Lisbon",
        "Who is Brigid O'Neill?",
        "What happens at the Harbor Festival?",
        "Northgate University students and their field season",
        "kelp forests temperature salinity oxygen",
    ],
    "zh": [
        "谁领导青岚湖研究站？清波计划是什么？",
        "星河科技为传感器网络制造了什么？",
        "台风“海燕”袭击老码头区后云港市政府如何应对？",
        "亚太湖泊数据论坛在新加坡讨论了什么？",
        "王建国是谁？",
        "湖灯节上发生了什么？",
        "临川大学的学生和野外考察季",
        "水温 溶解氧 浮标 数据",
    ],
}

# parameter sets (names as LocalSearchMixedContext.build_context / the factory use them)
PARAM_SETS: list[dict] = [
    {},
    {"top_k_mapped_entities": 3, "top_k_relationships": 2},
    {"max_context_tokens": 1500},
    {"max_context_tokens": 400},  # tiny: the "[]" artefact when no report fits
    {"text_unit_prop": 0.2, "community_prop": 0.4},
    {"community_level": 0},
    {"include_entity_rank": False, "include_relationship_weight": False},
    {"top_k_mapped_entities": 5, "top_k_relationships": 1, "max_context_tokens": 2500},
    {"community_level": 1, "include_community_rank": True},
    {"max_context_tokens": 120},
]


def cases(lang: str) -> list[dict]:
    """Every query with the default parameters, plus each non-default set on a rotating query."""
    out = [{"query": q, "params": {}} for q in QUERIES[lang]]
    queries = QUERIES[lang]
    for i, params in enumerate(PARAM_SETS[1:]):
        for j in range(2):
            out.append({"query": queries[(i * 2 + j) % len(queries)], "params": dict(params)})
    out.append({"query": "", "params": {}})  # empty query: top-k entities by degree
    out.append({"query": STALE_SECOND[lang], "params": {}})
    return out


# The stale-`links` demonstration: STALE_SECOND asked on an engine that already answered one of
# STALE_FIRSTS. Its top entity has one relationship, so that relationship's `links` is only ever
# written by an earlier query; a fresh engine prints no links column for it (docs/differences/ms.md).
STALE_SECOND = {"en": "Osaka is Hana Sato's home city.", "zh": "吴雨桐来自哪个城市？成都？"}


def stale_firsts(lang: str) -> list[str]:
    return QUERIES[lang][:3]


# Queries whose LanceDB distances tie (graphrag 2.3 goldens): equal float32 distances to several
# entities, so the order among them is decided by the search kernel's rounding and its tie order.
TIE_QUERIES: dict[str, list[str]] = {"en": ["Atlantic monitoring", "Sato", "Inês Moura"], "zh": ["刘", "都", "刘静"]}


def tie_cases(lang: str) -> list[dict]:
    return [{"query": q, "params": params} for q in TIE_QUERIES[lang] for params in ({}, {"top_k_mapped_entities": 3})]
