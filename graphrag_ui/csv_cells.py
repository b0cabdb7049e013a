"""CSV cells that a spreadsheet cannot read as a formula.

A cell that starts with ``=``, ``+``, ``-``, ``@`` (or a tab or a carriage return, which some
spreadsheets skip before looking) is a formula to Excel, LibreOffice and Google Sheets:
``=HYPERLINK("http://…", "click")`` in an entity name becomes a live link (or worse) in the analyst's
spreadsheet. Every text cell we write to a CSV (downloads, ``sweep --csv``) goes through ``cell``,
which prefixes such a text with ``'`` — the spreadsheets' own "this is text" mark (OWASP's advice).
Numbers stay numbers. A cell holding a line break (``\r`` too, which Python's and pandas' writers
leave unquoted with a ``\n`` terminator) is quoted, so no text starts a row of its own.
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


def text(rows: Any) -> str:
    """A pandas DataFrame as CSV text: ``frame``'s cells, every text quoted (line breaks inside a cell too)."""
    return frame(rows).to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC)


def rows_text(header: list[Any], rows: Iterable[list[Any]]) -> str:
    """Plain rows as CSV text, the same way as ``text``."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow([cell(h) for h in header])
    writer.writerows([cell(v) for v in row] for row in rows)
    return buf.getvalue()
