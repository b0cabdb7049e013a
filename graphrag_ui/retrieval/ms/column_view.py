"""GraphRAG's per-level entity lookups worked out on an opened index's Arrow columns, vectorised.

At 100k entities ``level_view`` read every entity's community refs, and ``_compute_community_weights``
every entity's text-unit ids, one row at a time: ~1 s, and ~10⁶ strings, tuples and lists converted into
the rows and kept there. These give the same answers from the columns the rows read those fields from
(``index.stored.shared_column``), and ``None`` whenever they could not give exactly the per-row answer
(rows built or changed here, nulls, community ids that are not canonical integers): the caller then
reads the rows (``indexer_adapters.community_ids_at``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from graphrag_ui.index.model import Entity
from graphrag_ui.index.stored import numbers, shared_column

_CANONICAL = r"^(0|-?[1-9][0-9]*)$"  # an id that ``str(int(id))`` gives back unchanged


class _Names(dict):
    """Community number -> its id string, made once and shared by every entity in that community."""

    def __missing__(self, number: int) -> str:
        name = self[number] = str(number)
        return name


def _refs(entities: list[Entity], level: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Each row's start in the refs at levels <= ``level`` (one more for the end), and those refs'
    community numbers; ``None`` unless every community id of the column is a canonical integer."""
    column = shared_column(entities, "communities")
    if column is None or column.null_count:
        return None
    levels, ids = column.flatten().flatten()  # both honour the column's offset
    if levels.null_count or ids.null_count:
        return None
    if len(ids) and not pc.all(pc.match_substring_regex(ids, _CANONICAL)).as_py():
        return None
    try:
        values = numbers(pc.cast(ids, pa.int64()))
    except (pa.ArrowInvalid, OverflowError):  # beyond int64: the rows' Python ints
        return None
    offsets, at = numbers(column.offsets), numbers(levels)
    if offsets is None or at is None or values is None:
        return None
    kept = at <= level
    before = np.concatenate(([0], np.cumsum(kept)))
    return before[offsets - offsets[0]], values[kept]


def community_ids_by_row(entities: list[Entity], level: int) -> list[list[str]] | None:
    """``community_ids_at(e, level)`` of every row ``e`` (``[]``: none at or below the level), or ``None``."""
    refs = _refs(entities, level)
    if refs is None:
        return None
    starts, ref_numbers = refs
    flat, bounds, names = ref_numbers.tolist(), starts.tolist(), _Names()
    out: list[list[str]] = []
    for a, b in zip(bounds, bounds[1:]):  # noqa: B905  (n + 1 bounds)
        if b - a == 1:
            out.append([names[flat[a]]])
        else:  # the set GraphRAG fills in the same order, iterated as it does (ints hash to themselves)
            out.append([names[n] for n in set(flat[a:b])])
    return out


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The positions ``starts[i]:ends[i]`` for every ``i``, concatenated."""
    lengths = ends - starts
    if not len(lengths):
        return np.zeros(0, dtype=np.int64)
    return np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))


def unit_counts(entities: list[Entity], rows: list[int], level: int) -> dict[str, int] | None:
    """For each community of the entities at ``rows`` (refs at levels <= ``level``), the number of distinct
    text units those entities list, or ``None``: the pairs (community, unit) of each entity, deduplicated."""
    refs = _refs(entities, level)
    units = shared_column(entities, "source_chunk_ids")
    if refs is None or units is None or units.null_count:
        return None
    unit_ids = units.flatten()
    if unit_ids.null_count:
        return None
    starts, ref_numbers = refs
    unit_codes, unit_bounds = numbers(pc.dictionary_encode(unit_ids).indices), numbers(units.offsets)
    if unit_codes is None or unit_bounds is None:
        return None
    unit_codes, unit_bounds = unit_codes.astype(np.int64), unit_bounds.astype(np.int64)
    unit_bounds -= unit_bounds[0]
    picked = np.asarray(rows, dtype=np.int64)
    refs_at = _ranges(starts[picked], starts[picked + 1])  # each picked row's community refs
    owner = np.repeat(picked, starts[picked + 1] - starts[picked])  # the row of each of those refs
    communities, code = np.unique(ref_numbers[refs_at], return_inverse=True)
    width = max(len(unit_codes), 1)
    if len(communities) * width >= 2**62:
        return None
    spans = unit_bounds[owner + 1] - unit_bounds[owner]
    pairs = (
        np.repeat(code.astype(np.int64) * width, spans)
        + unit_codes[_ranges(unit_bounds[owner], unit_bounds[owner + 1])]
    )
    pairs.sort()  # distinct pairs by sorting: np.unique's hash table took 0.5 s at 100k entities
    distinct = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))] if len(pairs) else pairs
    found = np.bincount(distinct // width, minlength=len(communities))
    return {str(n): int(c) for n, c in zip(communities.tolist(), found.tolist(), strict=True)}
