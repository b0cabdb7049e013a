"""The stages after LightRAG's entity and relation cut, shared by a sweep's steps that keep the same items.

Past the token cut a KG run reads only the kept hits: the chunk picks, their merge, the chunk budget, the
budgets and the context are a pure function of those hits (each at its position), of the parameters other
than ``top_k`` and, in mix, of the vector chunk search. A top_k sweep's wider steps mostly keep the same
items (the entity and relation budgets bind: at 10k entities a hybrid step keeps ~53 entities and ~90
relations from top_k 30 on), so inside ``reuse.shared`` such a step gets copies of what the first step with
those kept hits made — its chunk rows (the tail of dropped chunks shared read only, as ``fill_graph``
shares its tails), budgets, context, warnings and trace laps — instead of picking and measuring again.

The hits are held by the sweep's scope (``search``'s ``reuse.once`` tables make each hit once per position),
so a kept list is named by its hits' ids: while the scope holds the recorded lists, no other hit has them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import Candidates
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.lightrag.explain import Clock


def after_cut(
    label: str,
    index: Any,
    query: str,
    mode: str,
    r: Retrieval,
    clock: Clock,
    kept: tuple[Sequence, Sequence],
    run: Callable[[], None],
    *,
    chunk_top_k: int,
) -> None:
    """``run()`` (the stages after the cut: it sets ``r.chunks``, ``r.budgets`` and ``r.context``, adds warnings
    and laps) per kept entities and relations and parameters but ``top_k`` inside ``reuse.shared`` (mix's chunk
    search reads ``top_k`` when ``chunk_top_k`` is 0: then it stays in the key): from the third step with the
    same, copies of what the second made (as ``reuse.replayed`` keeps a stage)."""
    if not reuse.active():
        run()
        return
    try:
        read = mode == "mix" and not chunk_top_k  # the chunk search's top
        params = tuple((k, v) for k, v in r.params.items() if read or k != "top_k")
        key = ("lightrag.after cut", label, id(index), query, mode, params)
        key += (tuple(map(id, kept[0])), tuple(map(id, kept[1])))
        hash(key)
    except TypeError:  # a parameter value that does not hash: the step runs on its own
        run()
        return
    # the first step with a key runs alone (most keys of a sweep are met once: a top_k step's relations mostly
    # change); the second keeps copies of what it made, each later one gets copies of those
    slot: list = reuse.once(key, list)
    if not slot:
        slot.append((list(kept[0]), list(kept[1])))  # the hits the key names, held while the scope lasts
        run()
        return
    if len(slot) == 1:
        warned, clock.recorded = len(r.warnings), []
        try:
            run()
            slot.append((_held(r.chunks), _copies(r.budgets), r.context, r.warnings[warned:], clock.recorded))
        finally:
            clock.recorded = None
        return
    chunks, budgets, context, warnings, laps = slot[1]
    r.chunks = _fresh(chunks)
    r.budgets, r.context = _copies(budgets), context
    r.warnings.extend(warnings)
    for lap in laps:
        clock.lap(*lap)


def _copies(items: Sequence) -> list:
    return [reuse.copied(c) for c in items]


def _held(chunks: Sequence) -> tuple:
    """The step's chunk candidates as kept for later steps: copies of its made rows, its lazy tail as it is."""
    if isinstance(chunks, Candidates):
        return _copies(chunks.head), chunks.tail, _copies(chunks.after)
    return _copies(chunks), None, []


def _fresh(held: tuple) -> Sequence:
    """A step's own chunk candidates from the kept ones: copies of the rows, the same tail (read only)."""
    head, tail, after = held
    if tail is None:
        return _copies(head)
    return Candidates(_copies(head), tail, _copies(after))
