"""Marks beside the rows of every result grid, from any source: one small hook the grids call.

A provider looks at a result and one kind and returns a ``RowMark`` — a column (its key, header and
help) and per item id the text to show — or None when it has nothing to say. A source registers its
providers when its module is imported (``register``): the answer's citations (``citation_marks``,
imported by ``retrieval_view``) are two; a gold-evidence mark is another. The grids add one column per
mark, right after the change column, so the mark is seen first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from graphrag_ui.retrieval.core.result import Retrieval


@dataclass
class RowMark:
    column: str  # the frame's column key (stable from run to run, so a grid keeps its sort)
    header: str  # shown, in the page's language
    help: str
    values: dict[str, str] = field(default_factory=dict)  # item id -> text ("" or absent: no mark)


Provider = Callable[[Retrieval, str, str], "RowMark | None"]


PROVIDERS: list[Provider] = []  # in column order


def register(*providers: Provider) -> None:
    """Add mark sources (once each, however often their module is imported)."""
    PROVIDERS.extend(p for p in providers if p not in PROVIDERS)


def marks_for(result: Retrieval, kind: str) -> list[RowMark]:
    return [mark for provider in PROVIDERS if (mark := provider(result, kind)) is not None]


def add_columns(frame: pd.DataFrame, marks: list[RowMark]) -> pd.DataFrame:
    """``frame`` with one column per mark (by its ``id`` column); an empty frame keeps its shape."""
    if not marks:
        return frame
    frame = frame.copy()
    for mark in marks:
        ids = frame["id"] if "id" in frame.columns else pd.Series(dtype=str)
        frame[mark.column] = ids.map(lambda i, m=mark: m.values.get(str(i), "")) if not frame.empty else ids
    return frame
