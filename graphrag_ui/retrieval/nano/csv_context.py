"""nano-graphrag's context text: its CSV cell rule, its four fenced sections, its token cut.

Kept apart from the mode so the exact byte-level rules sit in one small place:

* a number prints as ``str(x)`` (``3``, ``9.0``); anything else is stripped of whitespace, then of
  single quotes, then of double quotes at both ends, and wrapped in double quotes — no escaping, so
  inner quotes and newlines stay raw;
* cells are joined by a comma and a TAB, rows by a newline;
* a section is cut by a prefix rule: running token sum of one key field, the item that crosses the
  budget and everything after it are dropped, a budget <= 0 keeps nothing.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import Any

ENTITY_HEADER = ["id", "entity", "type", "description", "rank"]
RELATION_HEADER = ["id", "source", "target", "description", "weight", "rank"]
REPORT_HEADER = ["id", "content"]
SOURCE_HEADER = ["id", "content"]


def cell(value: Any) -> str:
    kind = type(value)
    if kind is str:  # most cells: checked first, without the ABC check ``numbers.Number`` costs
        return '"' + value.strip().strip("'").strip('"') + '"'
    if kind is int or kind is float or isinstance(value, numbers.Number):
        return str(value)
    return '"' + str(value).strip().strip("'").strip('"') + '"'


def table(rows: Sequence[Sequence[Any]]) -> str:
    return "\n".join(",\t".join(cell(v) for v in row) for row in rows)


def numbered(header: Sequence[str], rests: Iterable[str]) -> str:
    """``table([header, *rows])`` for rows that are their position then cells already joined (``joined``):
    a row's cells after its id are the same at every step of a sweep, which keeps them (``reuse.once``)."""
    return "\n".join([_header(tuple(header)), *(f"{i},\t{rest}" for i, rest in enumerate(rests))])


@functools.lru_cache(maxsize=16)
def _header(header: tuple[str, ...]) -> str:
    return ",\t".join(cell(h) for h in header)


class Lines:
    """``numbered(header, rests)`` of a list's first ``n`` rows for any ``n`` (``table(n)``), each line made and
    joined once: the first rows of a longer list are numbered the same, so a sweep's steps whose rows are a
    prefix of one list (nano.local's entities and sources at each top_k, its reports at each budget) cut one
    text (the table of ``n`` rows is the first characters of the table of more, up to the end of row ``n``)."""

    def __init__(self, header: Sequence[str], rest: Callable[[int], str]) -> None:
        self.text = _header(tuple(header))
        self.ends = [len(self.text)]  # where the header and each row made so far end in ``text``
        self.rest = rest  # row i's cells after its id, joined (``joined``)

    def table(self, n: int) -> str:
        ends = self.ends
        if n >= len(ends):
            lines, end = [], ends[-1]
            for i in range(len(ends) - 1, n):
                line = f"{i},\t{self.rest(i)}"
                lines.append(line)
                end += 1 + len(line)
                ends.append(end)
            self.text = "\n".join([self.text, *lines])
        return self.text if n == len(ends) - 1 else self.text[: ends[n]]


def joined(values: Iterable[Any]) -> str:
    """A row's cells, joined as ``table`` joins them."""
    return ",\t".join([cell(v) for v in values])


def context(reports: str, entities: str, relations: str, sources: str) -> str:
    """The four tables in nano's layout: leading newline, fenced csv blocks, trailing newline."""
    return (
        "\n-----Reports-----\n```csv\n"
        f"{reports}\n```\n-----Entities-----\n```csv\n"
        f"{entities}\n```\n-----Relationships-----\n```csv\n"
        f"{relations}\n```\n-----Sources-----\n```csv\n"
        f"{sources}\n```\n"
    )


def prefix_cut(costs: Sequence[int], limit: int) -> tuple[int, list[int]]:
    """(how many items fit, running token totals) under nano's truncate_list_by_token_size rule."""
    running: list[int] = []
    total = 0
    for cost in costs:
        total += cost
        running.append(total)
    if limit <= 0:
        return 0, running
    for i, upto in enumerate(running):
        if upto > limit:
            return i, running
    return len(running), running


def cut_items(items: list, cost: Callable[[Any], int], limit: int) -> tuple[list, list[int], int]:
    """Apply ``prefix_cut`` to ``items``; returns (kept items, running totals, kept count)."""
    kept, running = prefix_cut([cost(i) for i in items], limit)
    return items[:kept], running, kept
