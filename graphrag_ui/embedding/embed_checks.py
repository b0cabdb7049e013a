"""Every embedder reply is checked before anything uses or saves it.

A provider (or a stub, or a misconfigured proxy) may answer with fewer vectors than texts, vectors of
another width, strings, ragged rows, NaN, 1e300 or all zeros. Saved, such rows silently corrupt an
index (34 entities sharing 2 vectors); used as a question, they put every entity "in context" at
similarity NaN. So the rows are checked here — count, width, numbers, finite, within the range where
float32 dot products cannot overflow, not all zero for a text that has words — and a bad reply is
refused with one line that names the row; the caller has not written anything yet.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg

LIMIT = 1e15  # |value| above it: a dot product of two such rows overflows float32 (3.4e38) by a few thousand dims
_WORD = re.compile(r"\w")


class EmbedReplyError(UserError):
    """An embedder's reply that cannot be a vector per text; nothing was saved."""


NOTHING_SAVED = msg("nothing was saved; check the embedding model or its endpoint and run again")
QUESTION_REFUSED = msg("the question was not searched; check the embedding model or its endpoint and ask again")


def _fail(embedder: str, what: str, fix: str | None = None) -> EmbedReplyError:
    return EmbedReplyError(msg("embedder {embedder}: {what}", embedder=embedder, what=what), fix=fix or NOTHING_SAVED)


def _row_name(i: int, texts: Sequence[str], ids: Sequence[str] | None, offset: int) -> str:
    text = " ".join(str(texts[i]).split())
    text = text[:40] + ("…" if len(text) > 40 else "")
    if ids is not None:
        return msg("row {row} (id {id}: {text})", row=offset + i + 1, id=ids[i], text=repr(text))
    return msg("row {row} ({text})", row=offset + i + 1, text=repr(text))


def _numbers(row: Any) -> list[float] | None:
    """The row as floats, or None when it is not a flat list of numbers (a string, a dict, nested lists)."""
    if isinstance(row, np.ndarray):
        return row.astype(np.float64).tolist() if row.ndim == 1 and row.dtype.kind in "fiu" else None
    if isinstance(row, (str, bytes, dict)) or not isinstance(row, Sequence):
        return None
    if not all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in row):
        return None
    return [float(v) for v in row]


def _matrix(rows: Any, texts: Sequence[str], embedder: str, dim: int | None, ids, offset: int) -> np.ndarray:
    """The reply as a numeric matrix of the right count and width (row by row for a raw reply)."""
    if isinstance(rows, np.ndarray) and rows.ndim == 2 and rows.dtype.kind in "fiu":
        listed: Any = rows
    elif isinstance(rows, Sequence) and not isinstance(rows, (str, bytes)):
        listed = list(rows)
    else:
        raise _fail(embedder, msg("the reply is not a list of vectors ({type})", type=type(rows).__name__))
    if len(listed) != len(texts):
        raise _fail(
            embedder,
            msg(
                "{got} vector(s) for {sent} text(s) (rows {first}–{last})",
                got=len(listed),
                sent=len(texts),
                first=offset + 1,
                last=offset + len(texts),
            ),
        )
    if isinstance(listed, np.ndarray):
        if listed.shape[1] == 0:
            raise _fail(embedder, msg("{row} is an empty vector", row=_row_name(0, texts, ids, offset)))
        width = dim or listed.shape[1]
        if listed.shape[1] != width:
            raise _wrong_width(embedder, _row_name(0, texts, ids, offset), listed.shape[1], width)
        with np.errstate(over="ignore", invalid="ignore"):  # 1e300 becomes inf: refused below
            return listed.astype(np.float32, copy=False)
    out = None
    for i, row in enumerate(listed):
        values = _numbers(row)
        if values is None:
            raise _fail(embedder, msg("{row} is not a list of numbers", row=_row_name(i, texts, ids, offset)))
        if not values:
            raise _fail(embedder, msg("{row} is an empty vector", row=_row_name(i, texts, ids, offset)))
        width = (dim or len(values)) if out is None else out.shape[1]
        if len(values) != width:
            raise _wrong_width(embedder, _row_name(i, texts, ids, offset), len(values), width)
        if out is None:
            out = np.zeros((len(listed), width), dtype=np.float64)
        out[i] = values
    return out if out is not None else np.zeros((0, dim or 0), dtype=np.float64)


def _wrong_width(embedder: str, name: str, got: int, dim: int) -> EmbedReplyError:
    return _fail(
        embedder,
        msg("{row} has {got} values where the index's vectors have {dim}", row=name, got=got, dim=dim),
        msg("nothing was saved; embed with the model that made the index's vectors, or re-embed the index"),
    )


def check_rows(
    rows: Any,
    texts: Sequence[str],
    *,
    embedder: str,
    dim: int | None = None,
    ids: Sequence[str] | None = None,
    offset: int = 0,
) -> np.ndarray:
    """``rows`` as an (len(texts), dim) float32 matrix, or ``EmbedReplyError`` naming the first bad row.

    ``dim`` is the width the index (or the embedder) has; None takes the first row's width."""
    return _checked(rows, texts, embedder, dim, ids, offset)


def question_rows(embed: Callable[[list[str]], Any], texts: list[str], embedder: str) -> np.ndarray:
    """``embed(texts)`` checked like any reply, refused as a question (nothing was going to be saved)."""
    try:
        return _checked(embed(texts), texts, embedder, None, None, 0)
    except EmbedReplyError as exc:
        raise EmbedReplyError(exc.what, fix=QUESTION_REFUSED) from None


def _checked(rows: Any, texts: Sequence[str], embedder: str, dim: int | None, ids, offset: int) -> np.ndarray:
    matrix = _matrix(rows, texts, embedder, dim or None, ids, offset)
    with np.errstate(over="ignore", invalid="ignore"):
        matrix = matrix.astype(np.float32, copy=False)
    bad = ~(np.isfinite(matrix) & (np.abs(matrix) <= LIMIT)).all(axis=1)
    if bad.any():
        name = _row_name(int(np.argmax(bad)), texts, ids, offset)
        raise _fail(embedder, msg("{row} has a value that is not a finite number within ±1e15", row=name))
    for i in np.flatnonzero(~matrix.any(axis=1)):
        if _WORD.search(str(texts[i])):
            raise _fail(
                embedder, msg("{row} is all zeros for a text that has words", row=_row_name(i, texts, ids, offset))
            )
    return matrix
