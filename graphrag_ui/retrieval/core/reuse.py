"""Work that the steps of a sweep share: a vector search's full ranking, made once and cut per step.

A sweep (``graphrag_ui.sweep``) runs one mode at many values of one parameter with the same question.
Inside ``shared()`` the vector searches keep what they computed — the similarity of every row and the
complete order the reference's sort puts them in — keyed by the table and the exact query vector, so
the next step asks only for a cut of that order: ``top_k`` and a similarity threshold are then a slice
and a stopping point, never another product over the table nor another sort.

Only what is provably the same is reused: ``np.argsort(scores)[-k:][::-1]`` is the last ``k`` of the one
full argsort of the same scores, and LanceDB's top ``k`` by (distance, row) is the first ``k`` of the
whole table in that total order (its distances are per row, so computing them for every row gives the
same bits). Outside ``shared()`` nothing is kept and every search runs as before.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import numpy as np

_MEMO: ContextVar[dict[tuple, Any] | None] = ContextVar("graphrag_ui_shared_work", default=None)


@contextlib.contextmanager
def shared() -> Iterator[dict[tuple, Any]]:
    """A scope whose vector searches keep their rankings for the next step (nested scopes share the outer one)."""
    outer = _MEMO.get()
    if outer is not None:
        yield outer
        return
    memo: dict[tuple, Any] = {}
    token = _MEMO.set(memo)
    try:
        yield memo
    finally:
        _MEMO.reset(token)
        memo.clear()


def active() -> bool:
    return _MEMO.get() is not None


def kept(kind: str, table: Any, query: np.ndarray, make: Callable[[], Any], *extra: Any) -> Any:
    """``make()`` once per (kind, table, query vector, extra) inside ``shared()``; the table is held with
    its value so that its id cannot be recycled by another table while the scope lasts."""
    memo = _MEMO.get()
    if memo is None:
        return make()
    q = np.ascontiguousarray(query)
    key = (kind, id(table), q.dtype.str, q.shape, q.tobytes(), *extra)
    found = memo.get(key)
    if found is None or found[0] is not table:
        found = memo[key] = (table, make())
    return found[1]
