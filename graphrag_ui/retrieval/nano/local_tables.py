"""``nano.local``'s context: its four CSV tables (``csv_context``), each row's cells joined once and, in a sweep,
each section's numbered lines shared by the steps whose rows are a prefix of another step's.

A top_k step's Entities are the first rows of a wider step's (its recall is the first hits of the wider one) and
so are its Sources (``local_gather.narrowed``); a budget step cuts the same gathered rows as the others: their
lines are made once (``csv_context.Lines``) and each step joins the first ``n``. The Reports of each top_k come
in their own order (a cluster's count of recalled entities changes), so only budget steps share them; the
Relationships lines are made per gather row by ``local_query._relations``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.nano import csv_context


def rests(index: Index) -> dict[tuple[str, str], str]:
    """Each CSV row's cells after its position, by (section, id): a function of the index and the item (entity
    and degree, relation, report, chunk), kept across a sweep's steps; outside a sweep this run's own."""
    return reuse.once(("nano.local csv rows", id(index)), dict)


def context(
    index: Index,
    seen: tuple,
    entities: tuple[list, list[int]],
    reports: tuple[list, list, tuple],
    sources: tuple[list, list, tuple],
    relations: tuple[list[str], tuple],
    level: int,
) -> str:
    """The four tables: ``entities`` (the hits and their degrees), ``reports`` and ``sources`` (the rows in the
    context, every gathered row in order, the key of this cut), ``relations`` (its CSV lines, the key of its cut);
    ``seen``: the index and the recalled entities' ids (what every gather read)."""
    hits, degrees = entities
    used, report_rows, reports_key = reports
    chunks, unit_rows, units_key = sources
    relation_lines, relations_key = relations
    cells = rests(index)

    def rest(key: tuple[str, str], made: Callable[[], list]) -> str:
        found = cells.get(key)
        if found is None:
            found = cells[key] = csv_context.joined(made())
        return found

    def lines(name: Any, header: list[str], row_rest: Callable[[int], str], prefix: bool) -> csv_context.Lines:
        """A section's numbered lines: shared by the steps whose rows are a prefix of one step's (``prefix``: the
        rows of a recall's first entities, a wider recall's made first) or are the same rows (one gather)."""
        make = lambda: csv_context.Lines(header, row_rest)  # noqa: E731
        return reuse.prefixed(name, *seen, make, lambda wider, _k: wider) if prefix else reuse.once((name, *seen), make)

    entity_lines = lines(
        "nano.entity lines",
        csv_context.ENTITY_HEADER,
        lambda i: rest(
            ("e", hits[i].entity.id),
            lambda: [hits[i].entity.name, hits[i].entity.type, hits[i].entity.description, degrees[i]],
        ),
        True,
    )
    source_lines = lines(
        "nano.source lines",
        csv_context.SOURCE_HEADER,
        lambda i: rest(("u", unit_rows[i][2]), lambda: [unit_rows[i][3].text]),
        True,
    )
    report_lines = lines(
        ("nano.report lines", level),
        csv_context.REPORT_HEADER,
        lambda i: rest(("c", report_rows[i][0]), lambda: [report_rows[i][1].report]),
        False,
    )
    return csv_context.context(
        reuse.once((*reports_key, "csv"), lambda: report_lines.table(len(used))),
        reuse.once(("nano.entities.csv", *seen), lambda: entity_lines.table(len(hits))),
        reuse.once(
            (*relations_key, "csv"),
            lambda: "\n".join([csv_context.joined(csv_context.RELATION_HEADER), *relation_lines]),
        ),
        reuse.once((*units_key, "csv"), lambda: source_lines.table(len(chunks))),
    )
