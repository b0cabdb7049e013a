"""How GraphRAG counts a context's tokens and writes its ``|`` tables (local and global search).

GraphRAG's CLI counts through litellm, which uses tiktoken's cl100k_base for OpenAI models; its
context builders write each table with ``pandas.DataFrame.to_csv(index=False, sep="|")``.
"""

from __future__ import annotations

import csv
import io
import os
from functools import lru_cache

from graphrag_ui.base import tokens

ENCODING = "cl100k_base"


@lru_cache(maxsize=4096)
def count(text: str) -> int:
    """cl100k_base tokens of a short text (table headers): cached process-wide."""
    return tokens.count(text, ENCODING)


def count_text(text: str) -> int:
    """cl100k_base tokens of a whole section (not cached: each is built once)."""
    return tokens.count(text, ENCODING)


def csv_table(header: list[str], rows: list[list[str]]) -> str:
    """``pandas.DataFrame.to_csv(index=False, sep="|")``: minimal quoting, doubled quotes, os.linesep."""
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter="|", quotechar='"', quoting=csv.QUOTE_MINIMAL, lineterminator=os.linesep)
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def csv_line(cells: list[str]) -> str:
    """One row of ``csv_table`` (its writer keeps no state between rows: a table is its rows' lines joined)."""
    return csv_table(cells, [])
