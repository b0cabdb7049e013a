"""A section's candidates whose dropped tail is kept as columns and made into ``Candidate`` objects on read.

nano.local at 100k entities considers ~10⁵ relations per question and keeps a few hundred; building a
``Candidate`` (and its reasons) for every one of them cost most of a slider move, while the page shows the
kept rows, counts and the first 300 dropped ones. ``Candidates`` is the list a mode returns for such a
section: the rows it made (``head``), then a ``Tail`` — every remaining candidate, all dropped, held as
the mode's own columns — whose rows are made when first read and then kept (a reader sees one object
per row, as with a list). Every reader that walks the list gets the same rows, reasons and order as the
eager list; the readers on the page's path (counts, kept rows, binding limits, the first dropped rows)
ask ``in_context``, ``dropped_count``, ``dropped_classes`` and ``dropped_rows`` and make no tail row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from graphrag_ui.retrieval.core.result import Candidate


class Tail(Protocol):
    """The dropped candidates after a section's made rows, as columns (``nano.local_tail``)."""

    def __len__(self) -> int: ...

    def row(self, i: int) -> Candidate:
        """The ``i``-th tail candidate, made now (its ``order`` is its position in the whole section)."""
        ...

    def ids(self) -> list[str]:
        """Each tail row's id, in order (for a reader that looks rows up by id)."""
        ...

    def reasons(self) -> Counter:
        """(reason template, score) -> how many tail rows were dropped for it (``binding`` classifies them)."""
        ...


class Candidates(Sequence):
    """``head`` then the rows of ``tail`` (all dropped), read like a list of ``Candidate``."""

    __slots__ = ("_head", "_tail", "_made")

    def __init__(self, head: list[Candidate], tail: Tail) -> None:
        self._head, self._tail = head, tail
        self._made: list[Candidate | None] | None = None  # tail rows made so far

    def __len__(self) -> int:
        return len(self._head) + (len(self._tail) if self._tail is not None else 0)

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
        n, total = len(self._head), len(self)
        if i < 0:
            i += total
        if not 0 <= i < total:
            raise IndexError("candidate index out of range")
        return self._head[i] if i < n else self._at(i - n)

    def __iter__(self) -> Iterator[Candidate]:
        yield from self._head
        if self._tail is not None:
            for j in range(len(self._tail)):
                yield self._at(j)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (list, Candidates)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # a list is unhashable too

    def __repr__(self) -> str:
        return repr(list(self))

    def __reduce__(self) -> tuple:
        return (list, (list(self),))  # pickled, copied and serialised as the plain list it reads as

    def append(self, item: Candidate) -> None:
        self._materialise()
        self._head.append(item)

    def extend(self, items: Any) -> None:
        self._materialise()
        self._head.extend(items)

    def _materialise(self) -> None:
        """Every tail row made into the head (a mode that appends after the tail: rare, never on a hot path)."""
        if self._tail is not None:
            self._head = list(self)
            self._tail, self._made = None, None

    @property
    def head(self) -> list[Candidate]:
        return self._head

    @property
    def tail(self) -> Tail | None:
        return self._tail

    @property
    def tail_made(self) -> int:
        """How many tail rows a reader has made so far."""
        return sum(1 for c in self._made if c is not None) if self._made is not None else 0


def in_context(items: Sequence[Candidate]) -> list[Candidate]:
    """The candidates in the context, in order, without making a tail row (a tail holds dropped ones only)."""
    made = items.head if isinstance(items, Candidates) else items
    return [c for c in made if c.in_context]


def dropped_count(items: Sequence[Candidate]) -> int:
    """How many candidates were dropped."""
    return len(items) - len(in_context(items))


def dropped_rows(items: Sequence[Candidate]) -> Sequence[Candidate]:
    """The dropped candidates in order: a ``Candidates`` that makes the tail's rows on read."""
    if not isinstance(items, Candidates) or items.tail is None:
        return [c for c in items if not c.in_context]
    head = [c for c in items.head if not c.in_context]
    if len(head) == len(items.head):
        return items  # nothing kept in the head: the dropped rows are the section itself, rows made once
    out = Candidates(head, items.tail)
    out._made = items._cache()  # the same tail rows: made once for both
    return out


def dropped_ids(items: Sequence[Candidate]) -> list[str]:
    """The ids of ``dropped_rows(items)``, in order, without making a tail row."""
    if not isinstance(items, Candidates) or items.tail is None:
        return [c.id for c in items if not c.in_context]
    return [c.id for c in items.head if not c.in_context] + items.tail.ids()


def dropped_reasons(items: Sequence[Candidate]) -> Iterator[tuple[Any, Any, int]]:
    """(dropped reason as given — a ``Reason``, text or a template —, score, how many) over the dropped
    candidates, a tail's rows grouped by their reason's template without making them (``binding``)."""
    made = items.head if isinstance(items, Candidates) else items
    for c in made:
        if not c.in_context:
            yield c.raw("dropped"), c.score, 1
    tail = items.tail if isinstance(items, Candidates) else None
    if tail is not None:
        for (template, score), n in tail.reasons().items():
            yield template, score, n
