"""Markers read from an answer, resolved to the context items they name — or said to be not in the context.

An id resolves when the context holds it: a GraphRAG table row by its ``id`` column, a LightRAG
reference id of the Reference Document List (1.5.7), an entity or relation name, a file path, or
1.4.7's Document Chunks ``id``. Anything else — an id the table lacks, a reference number past the
list, a table the context does not have — is ``in_context=False`` with a note saying what it missed.
"""

from __future__ import annotations

from graphrag_ui.base.i18n import msg
from graphrag_ui.citations import graphrag_markers, lightrag_markers, sentences
from graphrag_ui.citations.items import ContextItems, norm, path_keys
from graphrag_ui.citations.model import Citation, CitedId, Item

MAX_CITATIONS = 2000  # citations read from one text at most (a marker of ten tables is ten citations)
MAX_SENTENCE = 1000  # characters of a marker and of its sentence kept with each citation (a flood of markers
# in one endless sentence would otherwise copy it once per marker); a longer one ends in "…"


def _sentence(text: str, spans: list[tuple[int, int]], pos: int, fallback: str) -> str:
    at = sentences.sentence_at(spans, pos)
    found = text[spans[at][0] : spans[at][1]] if at is not None else fallback
    return _cut(found)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_SENTENCE else text[: MAX_SENTENCE - 1] + "…"


def _full(out: list[Citation]) -> bool:
    """Whether ``out`` holds ``MAX_CITATIONS`` (its last one then says the rest were not read)."""
    if len(out) < MAX_CITATIONS:
        return False
    more = msg("more than {n} citations: the rest were not read", n=MAX_CITATIONS)
    out[-1].note = f"{out[-1].note}; {more}" if out[-1].note else more
    return True


def graphrag(text: str, items: ContextItems, scope: str = "answer") -> tuple[list[Citation], list[tuple[int, int]]]:
    """``[Data: …]`` markers of ``text`` resolved against the context tables, and the sentence spans."""
    markers = graphrag_markers.find_markers(text)
    spans = sentences.split(text, markers=[(m.start, m.end) for m in markers])
    out = []
    for marker in markers:
        sentence = _sentence(text, spans, marker.start, marker.text)
        for group in marker.groups:
            table = items.tables.get(group.table)
            ids = []
            for raw in group.ids:
                found = (table or {}).get(norm(raw), [])
                if found:
                    note = msg("{n} rows share id {id}", n=len(found), id=raw) if len(found) > 1 else ""
                    ids.append(CitedId(raw, True, list(found), note))
                elif table is None:
                    ids.append(CitedId(raw, False, note=msg("the context has no {table} table", table=group.table)))
                else:
                    ids.append(CitedId(raw, False, note=msg("not in the {table} table", table=group.table)))
            notes = [*marker.notes, *group.notes]
            if not group.ids:
                notes.append(msg("no ids"))
            out.append(
                Citation(
                    _cut(marker.text),
                    group.table,
                    ids,
                    sentence,
                    marker.start,
                    marker.end,
                    group.more,
                    scope,
                    "; ".join(notes),
                )
            )
            if _full(out):
                return out, spans
    return out, spans


def lightrag(text: str, items: ContextItems, scope: str = "answer") -> tuple[list[Citation], list[tuple[int, int]]]:
    """A ``### References`` list and ``[n]`` markers resolved against the reference list or chunks."""
    entries = lightrag_markers.find_entries(text)
    cut = lightrag_markers.references_start(text)
    spans = sentences.split(text, cut, markers=[(e.start, e.end) for e in entries if not e.in_list])
    out = []
    for entry in entries:
        sentence = _cut(entry.text) if entry.in_list else _sentence(text, spans, entry.start, entry.text)
        if entry.tag == "KG":
            ids = [_named(entry.ids[0], items.by_name(entry.ids[0]), msg("no entity or relation of that name"))]
            table = "KG"
        elif entry.tag == "DC":
            ids = [_named(entry.ids[0], items.by_path(entry.ids[0]), msg("no chunk from that document"))]
            table = "DC"
        else:
            ids = [_reference(n, entry.title, items) for n in entry.ids]
            table = "References" if entry.in_list else "[n]"
        out.append(
            Citation(
                _cut(entry.text), table, ids, sentence, entry.start, entry.end, False, scope, "; ".join(entry.notes)
            )
        )
        if _full(out):
            break
    return out, spans


def _named(written: str, found: list[Item], missing: str) -> CitedId:
    return CitedId(written, bool(found), found, "" if found else missing)


def _reference(n: str, title: str, items: ContextItems) -> CitedId:
    """``[n] Title``: by the Reference Document List (1.5.7), else by title, else 1.4.7's chunk ``id``."""
    if items.references:
        path = items.references.get(n)
        if path is not None:
            found = items.by_reference(n) or items.by_path(path)
            note = ""
            if title and not (path_keys(title) & path_keys(path)):
                note = msg("the list names {path} for [{n}], the answer {title}", path=path, n=n, title=title)
            return CitedId(n, True, found, note)
        by_title = items.by_path(title) if title else []
        if by_title:
            return CitedId(n, True, by_title, msg("[{n}] is not in the reference list; read by its title", n=n))
        return CitedId(
            n, False, note=msg("[{n}] is past the reference list ({count} documents)", n=n, count=len(items.references))
        )
    if title:
        by_title = items.by_path(title)
        if by_title:
            return CitedId(n, True, by_title)
    chunks = items.by_kind.get("chunks", [])
    if n.isdigit() and 1 <= int(n) <= len(chunks):
        return CitedId(
            n, True, [Item("chunks", chunks[int(n) - 1].id)], msg("read as the Document Chunks id (no reference list)")
        )
    return CitedId(n, False, note=msg("[{n}] names no document chunk ({count} in the context)", n=n, count=len(chunks)))
