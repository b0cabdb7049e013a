"""The o200k_base token counts nano-graphrag's local, global and naive queries charge, counted at import.

nano-graphrag re-encodes every chunk, report and edge description it budgets on every query, and so
did we for each text a query met first (``retrieval/nano/prep.py`` memoises per loaded index): with 20
different questions at 10k entities that was a quarter of a warm query's time, since every question
meets texts no earlier one counted. The importer counts them once (one batch encode) and keeps each in
the row's ``extra["o200k"]`` as one int, ``crc32(text) << 32 | tokens``: a query uses a stored count only
for the very text it was counted from (an edited or rebuilt row is counted again), and an int per row
costs a tenth of the memory of a list.
"""

from __future__ import annotations

import zlib
from typing import Any

from graphrag_ui.base import tokens
from graphrag_ui.index.model import Index

ENCODING = "o200k_base"  # nano-graphrag: tiktoken.encoding_for_model("gpt-4o")
STORED_KEY = "o200k"


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def stored(row: Any, text: str) -> int | None:
    """The count kept at import for exactly ``text`` (None: none kept, or kept for another text)."""
    kept = row.extra.get(STORED_KEY)
    if kept is None or kept >> 32 != _crc(text):
        return None
    return kept & 0xFFFFFFFF


def texts(index: Index) -> list[tuple[Any, str]]:
    """Every (row, text) nano's queries count: entity and edge descriptions, chunk texts, report texts."""
    out: list[tuple[Any, str]] = [(e, e.description) for e in index.entities]
    out += [(r, r.description) for r in index.relations]
    out += [(c, c.text) for c in index.chunks]
    out += [(c, c.report) for c in index.communities]
    return out


def precount(index: Index) -> None:
    """Count every text of ``texts`` (one batch encode) into its row's ``extra``."""
    rows = texts(index)
    for (row, text), n in zip(rows, tokens.count_many([t for _r, t in rows], ENCODING), strict=True):
        row.extra[STORED_KEY] = _crc(text) << 32 | n
