"""Read LightRAG's citations as models write them: a ``### References`` list and ``[n]`` markers.

lightrag-hku 1.5.7 (``PROMPTS["rag_response"]``) asks for a ``### References`` section of
``* [n] Document Title`` lines, n being a ``reference_id`` of the context's Reference Document List,
and models also put ``[n]`` markers in the text. 1.4.7's prompt asks for a "References" section of
``[KG] <entity_name>``, ``[KG] <entity1_name> - <entity2_name>`` and ``[DC] <file_path_or_document_name>``
lines. Both are read, with the loose forms models return: a bold or colon heading instead of ``###``,
Chinese headings, full-width ``【1】``, a ``^`` after the bracket, ``[1, 3]``, ``[2-4]``, a list with
no heading at the very end of the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphrag_ui.base.i18n import msg
from graphrag_ui.citations.graphrag_markers import read_ids

_HEADING = re.compile(
    r"^[ \t]{0,3}(?:#{1,6}[ \t]*)?(?:\*\*|__)?[ \t]*(?:references?|sources|citations|参考文献|参考资料|參考資料|引用|参考|来源)"
    r"[ \t]*(?:\*\*|__)?[ \t]*[:：]?[ \t]*(?:\*\*|__)?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_BULLET = r"^[ \t]*(?:[-*+•·]|\d{1,3}[.)、])?[ \t]*"
_ENTRY = re.compile(
    _BULLET + r"[\[【［]\^?[ \t]*(?P<n>\d{1,6})[ \t]*[\]】］][ \t]*[:：.\-–]?[ \t]*(?P<title>.*?)[ \t]*$"
)
_KGDC = re.compile(_BULLET + r"[\[【［][ \t]*(?P<tag>KG|DC)[ \t]*[\]】］][ \t]*[:：]?[ \t]*(?P<title>.*?)[ \t]*$", re.I)
_NO_BRACKET = re.compile(_BULLET.replace(r"|\d{1,3}[.)、]", "") + r"(?P<n>\d{1,6})[.)、][ \t]+(?P<title>\S.*?)[ \t]*$")
_INLINE = re.compile(
    r"[\[【［]\^?[ \t]*(?P<ids>\d{1,6}(?:[ \t]*[,，、\-–~][ \t]*\d{1,6}){0,30})[ \t]*[\]】］](?![(（\[])"
)
MAX_ENTRIES = 200


@dataclass
class Entry:
    """One reference: a list line or an inline marker."""

    text: str
    start: int
    end: int
    tag: str  # "[n]" (a reference id), "KG" or "DC"
    ids: list[str]  # reference ids for "[n]"; the one name or path for KG/DC
    title: str = ""  # the title written after [n] in a list line
    in_list: bool = False
    notes: list[str] = field(default_factory=list)


def references_start(text: str) -> int:
    """Where the references section begins (its heading, or a trailing run of entry lines); len(text) if none."""
    headings = list(_HEADING.finditer(text))
    if headings:
        return headings[-1].start()
    start = len(text)
    lines = text.splitlines(keepends=True)
    offset = len(text)
    for line in reversed(lines):
        offset -= len(line)
        if not line.strip():
            continue
        if _ENTRY.match(line.rstrip("\r\n")) or _KGDC.match(line.rstrip("\r\n")):
            start = offset
            continue
        break
    return start


def find_entries(text: str) -> list[Entry]:
    """The list entries after the references heading, then every inline ``[n]`` before it."""
    cut = references_start(text)
    entries: list[Entry] = []
    offset = cut
    for raw in text[cut:].splitlines(keepends=True):
        line = raw.rstrip("\r\n")
        start, offset = offset, offset + len(raw)
        if _HEADING.fullmatch(line) or not line.strip() or len(entries) >= MAX_ENTRIES:
            continue
        begin = start + len(line) - len(line.lstrip())
        entry = _KGDC.match(line)
        if entry:
            tag = entry.group("tag").upper()
            entries.append(Entry(line.strip(), begin, start + len(line), tag, [entry.group("title")], in_list=True))
            continue
        entry = _ENTRY.match(line)
        if entry:
            n, title = entry.group("n"), entry.group("title")
            entries.append(Entry(line.strip(), begin, start + len(line), "[n]", [n], title, True))
            continue
        entry = _NO_BRACKET.match(line)
        if entry:
            n, title = entry.group("n"), entry.group("title")
            notes = [msg("no brackets around the reference id")]
            entries.append(Entry(line.strip(), begin, start + len(line), "[n]", [n], title, True, notes))
    for found in _INLINE.finditer(text, 0, cut):
        ids, _more, notes = read_ids(found.group("ids"))
        entries.append(Entry(found.group(0), found.start(), found.end(), "[n]", ids, notes=notes))
        if len(entries) >= 2 * MAX_ENTRIES:
            break
    return sorted(entries, key=lambda e: e.start)
