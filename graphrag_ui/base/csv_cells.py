"""CSV cells that a spreadsheet cannot read as a formula.

A cell that starts with ``=``, ``+``, ``-``, ``@`` (or a tab or a carriage return, which some
spreadsheets skip before looking) is a formula to Excel, LibreOffice and Google Sheets:
``=HYPERLINK("http://…", "click")`` in an entity name becomes a live link (or worse) in the analyst's
spreadsheet. Every text cell we write to a CSV (downloads, ``sweep --csv``) goes through ``cell``,
which prefixes such a text with ``'`` — the spreadsheets' own "this is text" mark (OWASP's advice).
Numbers stay numbers. A carriage return inside a cell, which Python's and pandas' writers leave
unquoted with a ``\n`` terminator, makes every text cell quoted, so no text starts a row of its own.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: Any) -> Any:
    """``value`` as a CSV cell: a text that a spreadsheet would run as a formula gets a leading ``'``."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def frame(rows: Any) -> Any:
    """A pandas DataFrame with every text cell passed through ``cell`` (numeric columns as they are)."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    out = rows.copy()
    for name in out.columns:
        if not (is_numeric_dtype(out[name]) or is_bool_dtype(out[name])):
            out[name] = out[name].map(cell)
    return out.rename(columns={c: cell(c) for c in out.columns})


def _quoting(cells: Iterable[Any]) -> int:
    """Minimal quoting, unless a text cell holds a carriage return (which it would leave unquoted)."""
    return csv.QUOTE_NONNUMERIC if any(isinstance(c, str) and "\r" in c for c in cells) else csv.QUOTE_MINIMAL


def text(rows: Any) -> str:
    """A pandas DataFrame as CSV text: ``frame``'s cells, quoted where a line break could start a row."""
    safe = frame(rows)
    cells = [c for name in safe.columns for c in safe[name].tolist()]
    return safe.to_csv(index=False, quoting=_quoting(cells))


def rows_text(header: list[Any], rows: Iterable[list[Any]]) -> str:
    """Plain rows as CSV text, the same way as ``text``."""
    table = [[cell(h) for h in header], *([cell(v) for v in row] for row in rows)]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n", quoting=_quoting(c for row in table for c in row))
    writer.writerows(table)
    return buf.getvalue()
