"""Find entities by name or alias on the server, best match first — the browser never gets every name.

A 100k-entity index put 100k names into one selectbox: picking froze the tab for a minute and every
key press lagged seconds. Here the page sends the typed text, and gets back a handful of matches.

Ranking, best first: the whole name, the whole alias, a name starting with the text, an alias
starting with it, a word of the name starting with it, a word of an alias, the text anywhere in the
name, anywhere in an alias. Within a tier: best connected first, then shorter, then by name.
Case, width (full-width letters) and repeated spaces do not matter.
"""

from __future__ import annotations

import heapq
import unicodedata
from dataclasses import dataclass

from graphrag_ui.index.model import Index

LIMIT = 12
# tiers (lower is better)
EXACT, ALIAS_EXACT, PREFIX, ALIAS_PREFIX, WORD, ALIAS_WORD, INSIDE, ALIAS_INSIDE = range(8)


@dataclass(frozen=True)
class Match:
    name: str  # the entity (graph node)
    alias: str | None  # the alias that matched, when it was not the name
    tier: int


@dataclass
class _Table:
    keys: list[str]  # normalised names, then normalised aliases
    owner: list[int]  # entity row of each key
    is_alias: list[bool]
    raw: list[str]  # the key as written (for showing which alias matched)
    names: list[str]
    degree: list[int]
    by_degree: list[int]  # entity rows, best connected first


_ATTR = "_graph_search_table"  # kept on the (shared, read-only) Index object


def normalise(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text or "").casefold().split())


def _table(index: Index) -> _Table:
    """Built once per loaded index and kept with it (two sessions racing both build the same table)."""
    table = getattr(index, _ATTR, None)
    if isinstance(table, _Table) and len(table.names) == len(index.entities):
        return table
    names = [e.name for e in index.entities]
    degree = [index.graph.degree(n) if n in index.graph else 0 for n in names]
    keys, owner, is_alias, raw = [], [], [], []
    for row, entity in enumerate(index.entities):
        keys.append(normalise(entity.name))
        owner.append(row)
        is_alias.append(False)
        raw.append(entity.name)
    for row, entity in enumerate(index.entities):
        for alias in entity.aliases:
            if isinstance(alias, str) and alias.strip() and normalise(alias) != keys[row]:
                keys.append(normalise(alias))
                owner.append(row)
                is_alias.append(True)
                raw.append(alias)
    order = sorted(range(len(names)), key=lambda r: (-degree[r], names[r]))
    table = _Table(keys, owner, is_alias, raw, names, degree, order)
    setattr(index, _ATTR, table)
    return table


def _tier(key: str, query: str, alias: bool) -> int:
    if key == query:
        return ALIAS_EXACT if alias else EXACT
    if key.startswith(query):
        return ALIAS_PREFIX if alias else PREFIX
    if (" " + key).find(" " + query) >= 0:
        return ALIAS_WORD if alias else WORD
    return ALIAS_INSIDE if alias else INSIDE


def search(index: Index, text: str, limit: int = LIMIT) -> tuple[list[Match], int]:
    """The best ``limit`` matches for ``text`` and how many entities matched in all.

    Empty text: the best connected entities (and the number of entities)."""
    table = _table(index)
    query = normalise(text)
    if not query:
        rows = table.by_degree[:limit]
        return [Match(table.names[r], None, EXACT) for r in rows], len(table.names)
    best: dict[int, tuple[int, int]] = {}  # entity row -> (tier, key position) of its best key
    keys = table.keys
    for pos in (i for i, key in enumerate(keys) if query in key):  # the substring test runs in C
        row = table.owner[pos]
        tier = _tier(keys[pos], query, table.is_alias[pos])
        if row not in best or tier < best[row][0]:
            best[row] = (tier, pos)

    def rank(row: int) -> tuple:
        name = table.names[row]
        return (best[row][0], -table.degree[row], len(name), name)

    top = heapq.nsmallest(limit, best, key=rank)
    out = []
    for row in top:
        tier, pos = best[row]
        out.append(Match(table.names[row], table.raw[pos] if table.is_alias[pos] else None, tier))
    return out, len(best)
