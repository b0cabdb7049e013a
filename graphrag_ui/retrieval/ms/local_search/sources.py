"""GraphRAG local search, step 4: the Sources section (``LocalSearchMixedContext._build_text_unit_context``).

Text units of the selected entities in (entity order, −#relationships) order, the header counted, then one
row at a time until the first that does not fit; that unit and every one after it are the section's tail,
made on read (a ``core.candidates.ColumnTail`` of rows). In a sweep the units of a prefix of the selected entities are cut from a
wider step's (``reuse.prefixed``).
"""

from __future__ import annotations

import bisect

from graphrag_ui.base.i18n import Reason, lmsg
from graphrag_ui.index.model import Chunk, Index, Relation
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import ColumnTail
from graphrag_ui.retrieval.ms.indexer_adapters import EntityView, index_view
from graphrag_ui.retrieval.ms.local_search.rows import Row, Section, ids_of
from graphrag_ui.retrieval.ms.text import count


def _count_unit_relationships(index: Index, entity_rels: list[Relation], unit: Chunk, ids: set[str] | None) -> int:
    """``count_relationships``: via the unit's relationship_ids, else the relations' text_unit_ids (``ids``: the
    relations' ids, made once per entity by ``entity_units``)."""
    unit_rels = unit.extra.get("relationship_ids") or []
    if unit_rels:
        ids = {r.id for r in entity_rels} if ids is None else ids
        return sum(1 for rid in unit_rels if rid in ids)
    return sum(1 for r in entity_rels if unit.id in r.source_chunk_ids)


def entity_units(index: Index, ev: EntityView) -> list[tuple[Chunk, int]]:
    """An entity's text units (its source chunks the index holds, in its order, each once) and how many of its
    relationships each has: the same for every question, so kept on its view (``EntityView.units``) — a wide
    step's ~10² entities counted them again at every query."""
    if ev.units is None:
        view = index_view(index)
        entity_rels = index.relations_by_entity.get(ev.entity.name, [])
        ids = {r.id for r in entity_rels}
        out: list[tuple[Chunk, int]] = []
        for tid in dict.fromkeys(ev.entity.source_chunk_ids):
            if tid in view.chunks:
                unit = view.chunks[tid]
                out.append((unit, _count_unit_relationships(index, entity_rels, unit, ids)))
        ev.units = out
    return ev.units


def _units(index: Index, selected: list[EntityView]) -> list[tuple[Chunk, int, int]]:
    """(text unit, entity position, #relationships) in ``_build_text_unit_context``'s order; the budget
    is not read here, so a sweep's budget steps share it (``reuse.prefixed``)."""
    infos: list[tuple[Chunk, int, int]] = []
    seen: set[str] = set()
    for i, ev in enumerate(selected):
        for unit, n in entity_units(index, ev):
            if unit.id not in seen:
                infos.append((unit, i, n))
                seen.add(unit.id)
    infos.sort(key=lambda x: (x[1], -x[2]))
    return infos


def _first_units(infos: list[tuple[Chunk, int, int]], k: int) -> list[tuple[Chunk, int, int]]:
    """``_units`` of the first ``k`` selected entities, from the units of more of them: a unit belongs to
    the first entity that has it, its count is that entity's own, and the stable sort's keys do not
    depend on later entities, so those units come in the same order — sorted by entity first, they are the
    wider list's first ones (``_Prefix``: it names that list)."""
    return _Prefix(infos[: bisect.bisect_left(infos, k, key=lambda info: info[1])], getattr(infos, "root", infos))


class _Prefix(list):
    """The first units of a wider step's ``_units`` (``root``): its rows are that list's first rows, each the
    same (a unit's row reads the unit, its entity's place and name, its count: the same in both)."""

    def __init__(self, items: list, root: list) -> None:
        super().__init__(items)
        self.root = root


def build_sources(index: Index, selected: list[EntityView], budget: int) -> Section:
    """``_build_text_unit_context``: text units in (entity order, −#relationships) order."""
    section = Section("", 0, budget)
    view = index_view(index)
    ids = ids_of(selected)
    infos = reuse.prefixed("ms.local sources", id(index), ids, lambda: _units(index, selected), _first_units)
    if not infos:
        return section
    # in a sweep each kept unit's row, line and candidate are the same at every step that lists these units
    shared = reuse.active()
    root = getattr(infos, "root", infos)  # a narrower step's units are the first of its root's: their rows too
    rows_made, made = reuse.once(("ms.local unit rows", id(root)), _kept) if shared else _kept()
    section.made = made if shared else None
    text = "-----Sources-----\nid|text\n"
    used = count(text)

    def unit_row(order: int) -> tuple[Row, str]:
        unit, i, n = infos[order]
        short = view.unit_short_id[unit.id]
        line, tokens = view.unit_row(unit)
        name = selected[i].entity.name
        why = lmsg("text unit of {name} (entity #{n}), {count} of its relationships", name=name, n=i + 1, count=n)
        return Row(unit.id, short, order, tokens=tokens, why=why), line

    lines = []
    for order in range(len(infos)):
        if order == len(rows_made):
            rows_made.append(unit_row(order))
        row, line = rows_made[order]
        if used + row.tokens > budget:  # it and every unit after it are left out

            def make(j: int, start: int = order, used: int = used) -> Row:
                row = unit_row(start + j)[0]
                row.dropped = _over(used, row.tokens, budget)
                return row

            n = len(infos) - order
            section.tail = ColumnTail(
                n, lambda start=order: [u.id for u, _i, _n in infos[start:]], make, [(_OVER_SOURCES, n)]
            )
            break
        row.in_context = True  # a kept row (read only once kept: every step that keeps it keeps it the same)
        section.rows.append(row)
        lines.append(line)
        used += row.tokens
    text += "".join(lines)
    section.text, section.used = text, used
    return section


def _kept() -> tuple[list, list]:
    """(rows and lines made, their candidates made): ``build_sources``'s and ``rows.section_candidates``' own."""
    return [], []


def _over(used: int, tokens: int, limit: int) -> Reason:
    return lmsg("over budget (Sources: {used}+{tokens} > {limit} tokens)", used=used, tokens=tokens, limit=limit)


_OVER_SOURCES = _over(0, 0, 0).template  # the tail's one reason (``binding`` counts by template)
