"""Typed fields of source records: a wrong type names the file, the record and the field, never a ValueError.

Sources are JSON or GraphML written by other programs (or edited by hand), so a number may arrive as
``"x"``, ``null`` or ``true``. Integral floats and digit strings are accepted (JSON and GraphML blur
them); anything else is an ``IndexFormatError`` such as
``kv_store_text_chunks.json: record 'chunk-1': 'tokens' is 'x', expected an integer``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg

FIX = msg("correct or remove that record (or re-create the source with its library), then import again")


def _bad(value: Any, where: Path | str, record: object, field: str, expected: str) -> IndexFormatError:
    return IndexFormatError(
        msg(
            "record {record}: {field} is {value}, expected {expected}",
            record=f"{str(record)!r:.80}",
            field=repr(field),
            value=f"{value!r:.60}",
            expected=expected,
        ),
        where=str(where),
        fix=FIX,
    )


def as_int(value: Any, where: Path | str, record: object, field: str, default: int = 0) -> int:
    """``value`` as an int (``default`` for a missing/null value)."""
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        raise _bad(value, where, record, field, msg("an integer"))
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise _bad(value, where, record, field, msg("an integer"))


def as_float(value: Any, where: Path | str, record: object, field: str, default: float = 0.0) -> float:
    """``value`` as a finite float (``default`` for a missing/null value)."""
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        raise _bad(value, where, record, field, msg("a number"))
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise _bad(value, where, record, field, msg("a number")) from None
    if not math.isfinite(number):
        raise _bad(value, where, record, field, msg("a finite number"))
    return number
