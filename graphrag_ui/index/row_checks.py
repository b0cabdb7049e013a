"""Bad rows are named: the load (and an import) finds rows that would change an answer silently.

One bad row in a 100k index used to pass unnoticed: a duplicate id made a row vanish from the id
maps, an empty or repeated name hid an entity from the modes that find entities by name, a NaN
rating or weight made sorting arbitrary, and a huge finite vector ranked first for every question.
``check_rows`` finds each, does one stated thing about it (ignore the later duplicate, read NaN as no
rating / weight 1.0, zero the vector) and returns one message per row naming the row (1-based, in
file order), its id and what was done, so the CLI and the page can say it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import VectorTable
from graphrag_ui.index.validate import squared_norms

# rows named one by one per kind of problem; more are counted in one message
SHOWN = 5
# a vector whose norm is this many times above (or below) the median norm of its kind is far outside
NORM_FACTOR = 100.0
SINGULAR = {
    "documents": "document",
    "chunks": "chunk",
    "entities": "entity",
    "relations": "relation",
    "communities": "community",
}


class _Report:
    """Messages per problem kind, the first ``SHOWN`` in full and the rest counted."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._seen: dict[str, int] = {}

    def add(self, kind: str, line: str) -> None:
        self._seen[kind] = self._seen.get(kind, 0) + 1
        if self._seen[kind] <= SHOWN:
            self.lines.append(line)

    def finish(self) -> list[str]:
        for kind, n in self._seen.items():
            if n > SHOWN:
                self.lines.append(msg("{n} more rows with the same problem ({kind})", n=n - SHOWN, kind=kind))
        return self.lines


def check_rows(
    tables: dict[str, list], vectors: dict[str, VectorTable], squared: dict[str, np.ndarray] | None = None
) -> list[str]:
    """Repair ``tables`` (table name -> rows) and ``vectors`` in place as the messages say; return them.
    ``squared``: the vectors' ``validate.squared_norms`` by kind, when the loader has them already."""
    report = _Report()
    for name in ("documents", "chunks", "entities", "relations", "communities"):
        if name in tables:
            tables[name] = _unique_ids(name, tables[name], report)
    _names(tables.get("entities", []), report)
    relations = tables.get("relations", [])
    for row, rel in enumerate([] if _all_finite([r.weight for r in relations]) else relations, 1):
        if not _finite(rel.weight):
            report.add(
                "weight",
                msg(
                    "relation row {row} (id {id}): weight {value} is not a finite number: 1.0 is used",
                    row=row,
                    id=repr(rel.id),
                    value=repr(rel.weight),
                ),
            )
            rel.weight = 1.0
    for row, com in enumerate(tables.get("communities", []), 1):
        if com.rating is not None and not _finite(com.rating):
            report.add(
                "rating",
                msg(
                    "community row {row} (id {id}): rating {value} is not a finite number: read as no rating",
                    row=row,
                    id=repr(com.id),
                    value=repr(com.rating),
                ),
            )
            com.rating = None
    for kind, table in vectors.items():
        fixed = _norms(kind, table.ids, table.matrix, report, (squared or {}).get(kind))
        if fixed is not None:
            table.matrix = fixed
    return report.finish()


def vector_problems(kind: str, ids: list[str], matrix: np.ndarray, squared: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """``check_rows``'s check of one vector table, on its first read (``model.CheckedOnRead``): the matrix to
    search (far-off rows set to zero) and the lines that say what was done."""
    report = _Report()
    fixed = _norms(kind, ids, matrix, report, squared)
    return (matrix if fixed is None else fixed), report.finish()


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _all_finite(values: list) -> bool:
    """True when every value is a finite int or float, found with two passes in C (the usual case at 10⁵
    rows); False sends the caller through ``_finite`` row by row (which names the rows)."""
    if not set(map(type, values)) <= {float, int}:
        return False
    try:
        return math.isfinite(sum(values))  # a NaN or infinity makes the sum one; a finite sum that overflows
    except OverflowError:  # (huge ints) or an infinite one from huge finite floats only costs the row pass
        return False


def _unique_ids(name: str, rows: list, report: _Report) -> list:
    """``rows`` without the later rows of a repeated id (each named); the same list when there are none."""
    if len({item.id for item in rows}) == len(rows):  # the usual case, a third of the loop below
        return rows
    first: dict[str, int] = {}
    for row, item in enumerate(rows, 1):
        first.setdefault(item.id, row)
    if len(first) == len(rows):
        return rows
    kept = []
    for row, item in enumerate(rows, 1):
        if first[item.id] == row:
            kept.append(item)
            continue
        report.add(
            f"{name} id",
            msg(
                "{table} row {row}: duplicate id {id} (first at row {first}): the later row is ignored",
                table=SINGULAR[name],
                row=row,
                id=repr(item.id),
                first=first[item.id],
            ),
        )
    return kept


def _names(entities: list, report: _Report) -> None:
    """Empty and repeated entity names: the graph and the name lookups hold one entity per name."""
    names = [entity.name for entity in entities]
    if len(set(names)) == len(names) and all(map(str.strip, names)):  # the usual case, without the loop
        return
    first: dict[str, int] = {}
    for row, entity in enumerate(entities, 1):
        if not entity.name.strip():
            report.add(
                "name",
                msg(
                    "entity row {row} (id {id}) has an empty name: kept, but modes that find entities by name "
                    "(nano, LightRAG, the graph) cannot reach it",
                    row=row,
                    id=repr(entity.id),
                ),
            )
        elif entity.name in first:
            report.add(
                "name",
                msg(
                    "entity row {row} (id {id}): name {name} is also row {first}'s: modes that find entities by "
                    "name use row {first} only",
                    row=row,
                    id=repr(entity.id),
                    name=repr(entity.name),
                    first=first[entity.name],
                ),
            )
        else:
            first[entity.name] = row


def _norms(
    kind: str, ids: list[str], matrix: np.ndarray, report: _Report, squared: np.ndarray | None = None
) -> np.ndarray | None:
    """Vectors whose norm is ``NORM_FACTOR`` times off the kind's median are set to zero (and named): the
    repaired copy, or None when every row is kept as it is."""
    if matrix.ndim != 2 or not len(matrix):
        return None  # empty (server engine)
    if squared is None or len(squared) != len(matrix):
        squared = squared_norms(matrix)
    if not np.isfinite(squared).all():
        return None  # not finite: the finite check reports those
    norms = np.sqrt(squared)
    nonzero = norms[norms > 0]
    if not len(nonzero):
        return None
    median = float(np.median(nonzero))
    far = np.flatnonzero((norms > median * NORM_FACTOR) | ((norms > 0) & (norms < median / NORM_FACTOR)))
    if not len(far):
        return None
    inside = np.delete(norms, far)
    low, high = (float(inside.min()), float(inside.max())) if len(inside) else (median, median)
    for i in far.tolist():
        report.add(
            f"{kind} vector",
            msg(
                "{kind} vector row {row} (id {id}): norm {norm} is far outside the index's range "
                "({low} to {high}): the vector is set to zero, so it matches no question",
                kind=kind,
                row=i + 1,
                id=repr(ids[i]),
                norm=f"{norms[i]:.3g}",
                low=f"{low:.3g}",
                high=f"{high:.3g}",
            ),
        )
    fixed = np.array(matrix, dtype=np.float32, copy=True)
    fixed[far] = 0.0
    fixed.setflags(write=False)
    return fixed
