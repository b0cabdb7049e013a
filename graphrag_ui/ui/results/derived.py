"""What the page derives from one ``Retrieval`` — its binding limits, its counts, the answer-trace key, the
marks against the run it is compared with — computed once per result object and kept beside it.

A 100k-entity run holds ~10⁵ candidates; the run line, the empty-state note, the view labels and the grid
marks each read the same numbers, and a view switch reruns the page with the same (cached, shared) result.
The memo lives on the result itself (no module-level table): it goes when the result goes, a new result
(``dataclasses.replace``, a fresh run) starts empty, and a copy made with ``copy.copy`` is recognised by
its identity and recomputes. Results are never changed after they are made (``ui.shell.runner``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from graphrag_ui.retrieval.core.binding import Limit
from graphrag_ui.retrieval.core.binding import limits as _limits
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.ui.results import tables

T = TypeVar("T")
_SLOT = "_ui_derived"  # not a dataclass field: ``asdict``, ``to_json`` and ``==`` never see it


def once(result: Retrieval, name: Hashable, compute: Callable[[Retrieval], T]) -> T:
    """``compute(result)``, computed on the first call for this result object only."""
    held = result.__dict__.get(_SLOT)
    if held is None or held[0] != id(result):  # none yet, or copied over from another object
        held = (id(result), {})
        result.__dict__[_SLOT] = held
    memo: dict[Hashable, Any] = held[1]
    if name not in memo:
        memo[name] = compute(result)
    return memo[name]


def limits(result: Retrieval) -> list[Limit]:
    """``binding.limits`` of the result (the run line and the Budget view both show them)."""
    return once(result, "limits", _limits)


def counts(result: Retrieval) -> dict[str, tuple[int, int]]:
    """kind -> (in context, dropped)."""
    return once(result, "counts", tables.counts)


def against(result: Retrieval, base: Retrieval, compute: Callable[[Retrieval], T], name: str) -> T:
    """``compute(result)`` for the comparison with ``base``: kept while the base is the same object."""
    held = once(result, ("against", name), lambda _: {})
    kept = held.get("base")
    if kept is None or kept() is not base:  # held weakly: a result must not keep its base (and its base's) alive
        held["base"], held["value"] = weakref.ref(base), compute(result)
    return held["value"]
