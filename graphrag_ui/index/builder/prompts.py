"""Prompt builders of the index builder (our own wording), with markers a scripted LLM can rely on.

Every prompt is a list of chat messages with no system message. The markers below are a stable
interface (tests and the sample-corpus scripts recognise prompts by them); change them only together
with those scripts.

* Extraction — one user message whose first line starts with ``TASK: extract entities and relations``;
  the chunk text appears verbatim between a line ``-----TEXT-----`` and a line ``-----END TEXT-----``.
* Gleaning — the extraction exchange (user, assistant reply) followed by a user message whose first
  line starts with ``TASK: continue extraction``.
* Description summary — one user message starting with ``TASK: summarise descriptions``, then a line
  ``ENTITY: <name>`` (or ``RELATION: <source> -> <target>``), then the fragments, one per line after
  ``-----DESCRIPTIONS-----`` up to ``-----END DESCRIPTIONS-----``.
* Community report — one user message starting with ``TASK: community report``, with a line
  ``COMMUNITY: <id>`` and a line ``MEMBERS: name1 | name2 | ...`` (member names sorted), then the
  entity and relation tables. The reply must be one JSON object (see ``REPORT_FIELDS``).

The extraction reply format is the one parsed by :mod:`graphrag_ui.index.builder.records`.
"""

from __future__ import annotations

from graphrag_ui.index.builder.records import COMPLETE, FIELD_SEP, RECORD_SEP

TEXT_START = "-----TEXT-----"
TEXT_END = "-----END TEXT-----"
EXTRACT_TASK = "TASK: extract entities and relations"
GLEAN_TASK = "TASK: continue extraction"
SUMMARY_TASK = "TASK: summarise descriptions"
REPORT_TASK = "TASK: community report"
DEFAULT_TYPES = ("person", "organization", "location", "event", "concept", "product")
REPORT_FIELDS = ("title", "summary", "rating", "rating_explanation", "findings")

_FORMAT = f"""Answer with records only, separated by {RECORD_SEP} and followed by {COMPLETE}:
("entity"{FIELD_SEP}<name>{FIELD_SEP}<type>{FIELD_SEP}<what the text says about it>{FIELD_SEP}<other names used in the text, separated by "; ", or empty>)
("relationship"{FIELD_SEP}<name of one entity>{FIELD_SEP}<name of the other entity>{FIELD_SEP}<how they are linked, per the text>{FIELD_SEP}<a few keywords, comma separated>{FIELD_SEP}<strength 1-10>)
("content_keywords"{FIELD_SEP}<main themes of the whole text, comma separated>)"""


def _types_line(types: tuple[str, ...]) -> str:
    return ", ".join(types)


def extraction_messages(text: str, types: tuple[str, ...] = DEFAULT_TYPES) -> list[dict[str, str]]:
    """First extraction pass over one chunk."""
    body = f"""{EXTRACT_TASK} from the text below to build a knowledge graph.

1. List every named or important thing the text talks about. Give its name as written in the text
   (capitalise names of people, places and organisations), one type among: {_types_line(types)}
   (or another single lowercase word if none fits), and a description based only on the text.
2. List every pair of those entities the text connects, with a sentence saying how, a few keywords
   for the kind of link, and a strength from 1 (weak) to 10 (essential).
3. Give the main keywords of the whole text.
Write names and descriptions in the language of the text.

{_FORMAT}

{TEXT_START}
{text}
{TEXT_END}"""
    return [{"role": "user", "content": body}]


def gleaning_messages(first: list[dict[str, str]], reply: str) -> list[dict[str, str]]:
    """Ask again for what the previous pass missed (the earlier exchange is kept as history)."""
    ask = f"""{GLEAN_TASK}: the list above is incomplete. Add the entities and relationships of the same
text that are still missing, in the same record format. Do not repeat records already given.
End with {COMPLETE}; if nothing is missing, answer {COMPLETE} only."""
    return [*first, {"role": "assistant", "content": reply}, {"role": "user", "content": ask}]


def summary_messages(
    subject: str, fragments: list[str], max_tokens: int, relation: bool = False
) -> list[dict[str, str]]:
    """Merge several descriptions of one entity (or relation) into one text."""
    label = "RELATION" if relation else "ENTITY"
    listed = "\n".join(f.replace("\n", " ") for f in fragments)
    body = f"""{SUMMARY_TASK} of one knowledge-graph {label.lower()} into a single description.
{label}: {subject}
Combine the facts of all the descriptions below, resolve contradictions if you can, write in the third
person and mention the name so the text stands alone. Keep it under {max_tokens} tokens and use the
language of the descriptions. Answer with the description only.
-----DESCRIPTIONS-----
{listed}
-----END DESCRIPTIONS-----"""
    return [{"role": "user", "content": body}]


def report_messages(
    community_id: str, members: list[str], entities_csv: str, relations_csv: str, sub_reports: str = ""
) -> list[dict[str, str]]:
    """Ask for a JSON report of one community from its entity and relation tables."""
    extra = f"\nReports of its sub-communities:\n{sub_reports}\n" if sub_reports else ""
    body = f"""{REPORT_TASK}
COMMUNITY: {community_id}
MEMBERS: {" | ".join(sorted(members))}
You are helping an analyst understand one community of a knowledge graph. Using only the tables
below, write a report as one JSON object with these keys:
  "title": a short specific name for the community (mention its key entities),
  "summary": a few sentences on how the community is structured and what it is about,
  "rating": a number from 0 to 10 for how important the community is,
  "rating_explanation": one sentence justifying the rating,
  "findings": a list of 3 to 8 objects {{"summary": a one-line insight, "explanation": a paragraph backing it with the data}}.
Use the language of the tables. Answer with the JSON object only.
{extra}
Entities:
{entities_csv}

Relations:
{relations_csv}"""
    return [{"role": "user", "content": body}]
