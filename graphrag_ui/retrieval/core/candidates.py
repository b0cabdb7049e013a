"""A section's candidates whose dropped tail is kept as columns and made into ``Candidate`` objects on read.

nano.local and LightRAG at 100k entities consider ~10⁵ relations per question and keep a few hundred;
building a ``Candidate`` (and its reasons) for every one of them cost most of a slider move, while the
page shows the kept rows, counts and the first 300 dropped ones. ``Candidates`` is the list a mode returns
for such a section: the rows it made (``head``), a ``Tail`` — candidates that are all dropped, held as
the mode's own columns — whose rows are made when first read and then kept (a reader sees one object per
row, as with a list), and the rows appended after it (``after``: LightRAG's near misses). Every reader
that walks the list gets the same rows, reasons and order as the eager list; the readers on the page's
path (counts, kept rows, binding limits, the first dropped rows) ask ``in_context``, ``dropped_rows``,
``dropped_ids`` and ``dropped_reasons`` and make no tail row.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from graphrag_ui.retrieval.core.result import Candidate


class Tail(Protocol):
    """Dropped candidates after a section's made rows, as columns (``nano.relation_tail``, ``lightrag.graph_tail``)."""

    def __len__(self) -> int: ...

    def row(self, i: int) -> Candidate:
        """The ``i``-th tail candidate, made now (its ``order`` is its position in the whole section)."""
        ...

    def ids(self) -> list[str]:
        """Each tail row's id, in order (for a reader that looks rows up by id)."""
        ...

    def reasons(self) -> Iterable[tuple[Any, Any, int]]:
        """(dropped reason — a ``Reason``, text or its template —, score, how many rows) over the tail."""
        ...


class ColumnTail:
    """A ``Tail`` given as columns: how many rows, ``ids()`` their ids in order, ``make(i)`` row ``i`` (each
    made when read) and the dropped reasons as runs — (reason or its template, how many rows) — which
    ``binding`` counts (a reader that needs neither ids nor rows makes neither); ``labels()``, when given,
    each row's label in order (``where`` then makes only the rows it matches)."""

    __slots__ = ("_n", "_ids", "_make", "_runs", "labels")

    def __init__(
        self,
        n: int,
        ids: Callable[[], list[str]],
        make: Callable[[int], Any],  # a Candidate (a mode's section may keep its own rows so: ms.local_search.rows)
        runs: list[tuple[Any, int]],
        labels: Callable[[], list[str]] | None = None,
    ) -> None:
        self._n, self._ids, self._make, self._runs, self.labels = n, ids, make, runs, labels

    def __len__(self) -> int:
        return self._n

    def row(self, i: int) -> Candidate:
        return self._make(i)

    def ids(self) -> list[str]:
        return list(self._ids())

    def reasons(self) -> list[tuple[Any, None, int]]:
        return [(reason, None, n) for reason, n in self._runs if n]

    @property
    def runs(self) -> list[tuple[Any, int]]:
        """The reasons as given: (reason or its template, how many rows)."""
        return self._runs


def runs(reasons: Iterable[Any]) -> list[tuple[Any, int]]:
    """(reason, how many in a row) over a column of reasons: the same object repeated is one run."""
    out: list[list[Any]] = []
    for reason in reasons:
        if out and out[-1][0] is reason:
            out[-1][1] += 1
        else:
            out.append([reason, 1])
    return [(reason, n) for reason, n in out]


class Candidates(Sequence):
    """``head``, the rows of ``tail`` (all dropped), then ``after``: read like a list of ``Candidate``."""

    __slots__ = ("_head", "_tail", "_made", "_after")

    def __init__(self, head: list[Candidate], tail: Tail, after: list[Candidate] | None = None) -> None:
        self._head, self._tail, self._after = head, tail, after if after is not None else []
        self._made: list[Candidate | None] | None = None  # tail rows made so far

    def __len__(self) -> int:
        return len(self._head) + len(self._tail) + len(self._after)

    def _cache(self) -> list[Candidate | None]:
        if self._made is None:
            self._made = [None] * len(self._tail)
        return self._made

    def _at(self, j: int) -> Candidate:
        made = self._cache()
        found = made[j]
        if found is None:
            found = made[j] = self._tail.row(j)
        return found

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        total = len(self)
        if i < 0:
            i += total
        if not 0 <= i < total:
            raise IndexError("candidate index out of range")
        n, m = len(self._head), len(self._tail)
        if i < n:
            return self._head[i]
        return self._at(i - n) if i < n + m else self._after[i - n - m]

    def __iter__(self) -> Iterator[Candidate]:
        yield from self._head
        for j in range(len(self._tail)):
            yield self._at(j)
        yield from self._after

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (list, Candidates)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # a list is unhashable too

    def __add__(self, other: Any) -> list[Candidate]:
        if not isinstance(other, (list, Candidates)):
            return NotImplemented
        return [*self, *other]

    def __radd__(self, other: Any) -> list[Candidate]:
        if not isinstance(other, list):
            return NotImplemented
        return [*other, *self]

    def __repr__(self) -> str:
        return repr(list(self))

    def __reduce__(self) -> tuple:
        return (list, (list(self),))  # pickled, copied and serialised as the plain list it reads as

    def append(self, item: Candidate) -> None:
        self._after.append(item)

    def extend(self, items: Iterable[Candidate]) -> None:
        self._after.extend(items)

    @property
    def head(self) -> list[Candidate]:
        return self._head

    @property
    def tail(self) -> Tail:
        return self._tail

    @property
    def after(self) -> list[Candidate]:
        return self._after

    @property
    def made(self) -> list[Candidate]:
        """The rows made by the mode: head and after (every row in the context is one of them)."""
        return [*self._head, *self._after] if self._after else self._head

    @property
    def tail_made(self) -> int:
        """How many tail rows a reader has made so far."""
        return sum(1 for c in self._made if c is not None) if self._made is not None else 0


def made_rows(items: Sequence[Candidate]) -> Sequence[Candidate]:
    """The rows a mode made, without making a tail row: every row in the context is one of them."""
    if type(items) is list:  # most sections: no ABC instance check (a sweep step asks 10–20 times)
        return items
    return items.made if isinstance(items, Candidates) else items


def in_context(items: Sequence[Candidate]) -> list[Candidate]:
    """The candidates in the context, in order, without making a tail row (a tail holds dropped ones only)."""
    return [c for c in made_rows(items) if c.in_context]


def dropped_rows(items: Sequence[Candidate]) -> Sequence[Candidate]:
    """The dropped candidates in order: a ``Candidates`` that makes the tail's rows on read."""
    if not isinstance(items, Candidates):
        return [c for c in items if not c.in_context]
    head = [c for c in items.head if not c.in_context]
    after = [c for c in items.after if not c.in_context]
    out = Candidates(head, items.tail, after)
    out._made = items._cache()  # the same tail rows: made once for both
    return out


def ids(items: Sequence[Candidate]) -> list[str]:
    """Every candidate's id, in order, without making a tail row."""
    if not isinstance(items, Candidates):
        return [c.id for c in items]
    return [c.id for c in items.head] + items.tail.ids() + [c.id for c in items.after]


def dropped_ids(items: Sequence[Candidate]) -> list[str]:
    """The ids of ``dropped_rows(items)``, in order, without making a tail row."""
    return ids(dropped_rows(items))


def dropped_reasons(items: Sequence[Candidate]) -> Iterator[tuple[Any, Any, int]]:
    """(dropped reason as given — a ``Reason``, text or a template —, score, how many) over the dropped
    candidates, a tail's rows grouped by their reason's template without making them (``binding``)."""
    # each row's reason as stored (``Candidate.raw``, read without a call per row: 10³–10⁵ rows a step)
    if type(items) is list or not isinstance(items, Candidates):
        yield from ((c.__dict__["_dropped"], c.score, 1) for c in items if not c.in_context)
        return
    yield from ((c.__dict__["_dropped"], c.score, 1) for c in items.head if not c.in_context)
    yield from items.tail.reasons()
    yield from ((c.__dict__["_dropped"], c.score, 1) for c in items.after if not c.in_context)


def where(items: Sequence[Candidate], match: Callable[[str, str], bool], *, by_label: bool = True) -> list[Candidate]:
    """The candidates whose (id, label) ``match``, in order, making only the tail rows that match: a tail's ids
    (and, ``by_label``, its ``labels()`` — without them every row is made) say which (an evaluation looks for
    its gold among 10²–10⁴ dropped rows at every step). ``by_label=False``: ``match`` reads the id only."""
    if not isinstance(items, Candidates):
        return [c for c in items if match(c.id, c.label)]
    labels = getattr(items.tail, "labels", None) if by_label else lambda: itertools.repeat("")
    if labels is None:
        return [c for c in items if match(c.id, c.label)]
    n = len(items.head)
    out = [c for c in items.head if match(c.id, c.label)]
    out += [
        items[n + j] for j, (i, label) in enumerate(zip(items.tail.ids(), labels(), strict=False)) if match(i, label)
    ]
    return out + [c for c in items.after if match(c.id, c.label)]
