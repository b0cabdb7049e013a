"""The one cache for what is worked out from an opened index: lookups, token counts, norms, reports.

Every mode keeps per-index work (LightRAG's relation-row map, nano's token memo, GraphRAG's level views,
the keyword catalogue, the readiness rows…) so that only the first query pays for it. They all keep it
here, under a name, for an *owner*: the ``Index`` object itself or one of its ``VectorTable`` objects
(a table's row norms belong to that table: a re-embed puts new tables in the same index).

- Keyed by the object, weakly: an ``Index`` is an unhashable dataclass, so the key is its ``id`` with a
  weak reference that must still point at it (a recycled id never returns another index's values), and
  the entry goes as soon as the object is collected — nothing here keeps an index alive.
- Bounded: at most ``KEPT_OWNERS`` owners, least recently used dropped first — as many indexes as the
  app keeps open (``KEPT_INDEXES``, ``ui.state``), each with its vector tables.
- Dropped when the index closes: ``close(index)`` forgets the index and its tables. ``Index.close``
  calls it; so do ``Index.refresh`` (its tables changed), a re-embed (its vectors were replaced) and the
  app when it lets an index go.

Values are built outside the lock (a 100k-entity lookup takes a second; other indexes' queries do not
wait for it); two threads that build the same value at once both return the one kept first.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

KEPT_INDEXES = 6  # the app keeps this many opened indexes (``ui.state``)
KEPT_OWNERS = KEPT_INDEXES * 5  # each with up to four vector tables (``model.VECTOR_KINDS``)

# id(owner) -> (a weak reference to the owner, name -> value), least recently used first
_KEPT: OrderedDict[int, tuple[weakref.ref, dict[str, Any]]] = OrderedDict()
_LOCK = threading.Lock()
_DEAD: list[tuple[weakref.ref, int]] = []  # collected while the lock was held: dropped on the next call


def _gone(ref: weakref.ref, key: int) -> None:
    """The owner was collected: drop its entry now, or on the next call if the lock is held — the
    collector may run inside a call of this module, on this very thread."""
    if _KEPT is None:  # the interpreter is exiting and has cleared this module
        return
    _DEAD.append((ref, key))
    if _LOCK.acquire(blocking=False):
        try:
            _drop_dead()
        finally:
            _LOCK.release()


def _drop_dead() -> None:
    while _DEAD:
        ref, key = _DEAD.pop()
        held = _KEPT.get(key)
        if held is not None and held[0] is ref:  # not a newer owner that got the recycled id
            del _KEPT[key]


def values(owner: object) -> dict[str, Any]:
    """The owner's own dict of kept values (a new, empty one the first time or after ``close``)."""
    key = id(owner)
    held = _KEPT.get(key)  # a hit takes no lock: each OrderedDict call is atomic (every query asks ~10 times)
    if held is not None and held[0]() is owner:
        try:
            _KEPT.move_to_end(key)
        except KeyError:  # dropped by another thread meanwhile: the dict is still this call's answer
            pass
        return held[1]
    with _LOCK:
        _drop_dead()
        held = _KEPT.get(key)
        if held is not None and held[0]() is owner:  # another thread made it meanwhile
            return held[1]
        held = _KEPT[key] = (weakref.ref(owner, lambda ref, key=key: _gone(ref, key)), {})
        while len(_KEPT) > KEPT_OWNERS:
            _KEPT.popitem(last=False)
        return held[1]


def kept(owner: object, name: str, make: Callable[[], T]) -> T:
    """``make()`` once per owner and name while the owner lives and is kept."""
    found = values(owner)
    value = found.get(name, _MISSING)
    if value is _MISSING:
        value = found.setdefault(name, make())
    return value


def peek(owner: object, name: str) -> Any:
    """The value kept for (owner, name), or None: without building it or touching the order."""
    with _LOCK:
        held = _KEPT.get(id(owner))
    return held[1].get(name) if held is not None and held[0]() is owner else None


def close(index: Any) -> None:
    """Forget everything kept for ``index`` and its vector tables (it is being replaced or let go)."""
    owners = [index, *getattr(index, "vectors", {}).values()]
    with _LOCK:
        for owner in owners:
            held = _KEPT.get(id(owner))
            if held is not None and held[0]() is owner:
                del _KEPT[id(owner)]


def size() -> int:
    """How many owners have values kept (for tests and the benchmarks)."""
    with _LOCK:
        _drop_dead()
        return len(_KEPT)


_MISSING = object()
