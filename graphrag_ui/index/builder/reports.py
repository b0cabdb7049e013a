"""Community reports: written by the LLM as JSON, or extractive (offline) from top entities and relations.

The report text is rendered as markdown ``# title``, the summary, then ``## finding`` sections, the
shape nano-graphrag's ``report_string`` and GraphRAG's ``full_content`` have. Deeper levels are
reported first so that a parent whose tables are too long can lean on its children's reports. A
reply that is not valid JSON is reported as a warning and that community gets an extractive report.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from graphrag_ui.base import tokens
from graphrag_ui.base.i18n import msg, pmsg
from graphrag_ui.index.builder import prompts
from graphrag_ui.index.builder.cache import CachedLLM
from graphrag_ui.index.model import SEP, Community, Entity, Relation

Warn = Callable[[str], None]
Progress = Callable[[str, int, int], None]
TABLE_TOKENS = 12000
REPORTS = pmsg("progress stage", "reports")  # a progress stage, not the count column "reports"
_TEXT = {
    "en": {"title_sep": ", ", "and": " and ", "size": "{n} entities and {m} relations.", "top": "The most connected are {list}.",
           "rel": "{n} relations", "rating": "Share of all source chunks covered by this community, relative to the largest community."},
    "zh": {"title_sep": "、", "and": "和", "size": "共 {n} 个实体、{m} 条关系。", "top": "连接最多的是{list}。",
           "rel": "{n} 条关系", "rating": "该社区覆盖的文本块占比（相对于最大的社区）。"},
}  # fmt: skip


def render(report: dict) -> str:
    """Markdown text of a report JSON object."""
    sections = []
    for finding in report.get("findings") or []:
        if isinstance(finding, dict):
            sections.append(f"## {finding.get('summary', '')}\n\n{finding.get('explanation', '')}")
        else:
            sections.append(f"## {finding}\n\n")
    return f"# {report.get('title', 'Report')}\n\n{report.get('summary', '')}\n\n" + "\n\n".join(sections)


def parse_report(text: str) -> dict:
    """The JSON object of a report reply (fenced or surrounded by prose); ValueError when unusable."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object in the reply")
    data = json.loads(text[start : end + 1])
    if not isinstance(data, dict) or not isinstance(data.get("title"), str):
        raise ValueError("the JSON object has no title")
    findings = data.get("findings", [])
    if not isinstance(findings, list):
        raise ValueError("findings is not a list")
    try:
        data["rating"] = float(data["rating"]) if data.get("rating") is not None else None
    except (TypeError, ValueError):
        data["rating"] = None  # an unreadable rating does not spoil the report
    return data


class Reporter:
    """Holds the graph facts every report needs (degrees, relations per community)."""

    def __init__(self, entities: list[Entity], relations: list[Relation], language: str = "en") -> None:
        self.entities = {e.name: e for e in entities}
        self.order = {e.name: i for i, e in enumerate(entities)}
        self.relations = relations
        self.degree: dict[str, int] = {}
        self.touching: dict[str, list[Relation]] = {}
        for rel in relations:
            for end in {rel.source, rel.target}:
                self.degree[end] = self.degree.get(end, 0) + 1
                self.touching.setdefault(end, []).append(rel)
        self.text = _TEXT["zh" if language == "zh" else "en"]

    def top_entities(self, members: list[str]) -> list[Entity]:
        ranked = sorted(members, key=lambda n: (-self.degree.get(n, 0), -self.entities[n].occurrence, self.order[n]))
        return [self.entities[n] for n in ranked]

    def community_relations(self, members: list[str]) -> list[Relation]:
        """Relations inside the community first, then those leaving it; each by endpoint degree."""
        inside = set(members)
        seen: dict[str, Relation] = {}
        for name in members:
            for rel in self.touching.get(name, []):
                seen.setdefault(rel.id, rel)

        def rank(rel: Relation) -> tuple:
            internal = rel.source in inside and rel.target in inside
            return (
                not internal,
                -(self.degree.get(rel.source, 0) + self.degree.get(rel.target, 0)),
                -rel.weight,
                rel.id,
            )

        return sorted(seen.values(), key=rank)

    def tables(self, members: list[str]) -> tuple[str, str, bool]:
        """Entity and relation CSV tables within the token budget, and whether rows were cut."""
        budget, cut = TABLE_TOKENS // 2, False
        ent_rows = [["id", "entity", "type", "description", "degree"]]
        used = 0
        for i, ent in enumerate(self.top_entities(members)):
            used += tokens.count(ent.description)
            if used > budget:
                cut = True
                break
            ent_rows.append([str(i), ent.name, ent.type, ent.description, str(self.degree.get(ent.name, 0))])
        rel_rows = [["id", "source", "target", "description", "weight"]]
        used = 0
        for i, rel in enumerate(self.community_relations(members)):
            used += tokens.count(rel.description)
            if used > budget:
                cut = True
                break
            rel_rows.append([str(i), rel.source, rel.target, rel.description, f"{rel.weight:g}"])
        return _csv(ent_rows), _csv(rel_rows), cut

    def extractive(self, members: list[str], coverage: float) -> dict:
        """A report built from the community's most connected entities and strongest relations."""
        t = self.text
        top = self.top_entities(members)
        names = [e.name for e in top[:3]]
        title = t["title_sep"].join(names[:-1]) + t["and"] + names[-1] if len(names) > 1 else names[0]
        rels = [r for r in self.community_relations(members) if r.source in members and r.target in members]
        listed = t["title_sep"].join(
            f"{e.name} ({e.type}, {t['rel'].format(n=self.degree.get(e.name, 0))})" for e in top[:3]
        )
        summary = t["size"].format(n=len(members), m=len(rels)) + " " + t["top"].format(list=listed)
        findings = [{"summary": f"{e.name} ({e.type})", "explanation": _first(e.description)} for e in top[:5]]
        for rel in sorted(rels, key=lambda r: (-r.weight, r.id))[:5]:
            findings.append({"summary": f"{rel.source} — {rel.target}", "explanation": _first(rel.description)})
        return {
            "title": title,
            "summary": summary,
            "rating": round(10 * coverage, 1),
            "rating_explanation": t["rating"],
            "findings": findings,
        }


def _csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().rstrip("\n")


def _first(description: str, limit: int = 600) -> str:
    text = description.split(SEP)[0].strip()
    return text if len(text) <= limit else text[:limit].rstrip() + "…"


def _chunk_union(members: list[str], entities: dict[str, Entity]) -> list[str]:
    seen: dict[str, None] = {}
    for name in members:
        for cid in entities[name].source_chunk_ids:
            seen.setdefault(cid, None)
    return list(seen)


def write_reports(
    communities: list[Community],
    reporter: Reporter,
    llm: CachedLLM | None,
    warn: Warn,
    progress: Progress | None = None,
    workers: int = 1,
) -> None:
    """Fill title, report, rating and extra of every community in place (deepest level first)."""
    by_id = {c.id: c for c in communities}
    children: dict[str, list[str]] = {}
    for com in communities:
        if com.parent is not None:
            children.setdefault(com.parent, []).append(com.id)
    chunk_sets = {c.id: _chunk_union(c.members, reporter.entities) for c in communities}
    biggest = max((len(v) for v in chunk_sets.values()), default=1) or 1

    def one(com: Community) -> None:
        coverage = len(chunk_sets[com.id]) / biggest
        report, source = None, "extractive"
        if llm is not None:
            ents, rels, cut = reporter.tables(com.members)
            subs = ""
            if cut and children.get(com.id):
                subs = "\n\n".join(by_id[c].report for c in children[com.id] if by_id[c].report)
                subs = tokens.decode(tokens.encode(subs)[: TABLE_TOKENS // 3])
            reply = llm(prompts.report_messages(com.id, com.members, ents, rels, subs), "report", f"community {com.id}")
            try:
                report, source = parse_report(reply), "llm"
            except (ValueError, TypeError) as exc:
                warn(
                    msg(
                        "community {id}: the report reply is not usable JSON ({error}); an extractive report is used",
                        id=com.id,
                        error=str(exc),
                    )
                )
        if report is None:
            report = reporter.extractive(com.members, coverage)
        rating = report.get("rating")
        com.title = str(report.get("title") or com.title)
        com.report = render(report)
        com.rating = float(rating) if isinstance(rating, int | float) and math.isfinite(rating) else None
        com.extra = {
            "report_json": report,
            "report_source": source,
            "sub_communities": children.get(com.id, []),
            "chunk_ids": chunk_sets[com.id],
            "occurrence": coverage,
            "size": len(com.members),
        }

    done, total = 0, len(communities)
    if progress:
        progress(REPORTS, 0, total)
    for level in sorted({c.level for c in communities}, reverse=True):
        batch = [c for c in communities if c.level == level]
        if workers > 1 and llm is not None:
            pool = ThreadPoolExecutor(max_workers=workers)
            try:
                for _ in pool.map(one, batch):
                    done += 1
                    if progress:
                        progress(REPORTS, done, total)
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
            continue
        for com in batch:
            one(com)
            done += 1
            if progress:
                progress(REPORTS, done, total)
