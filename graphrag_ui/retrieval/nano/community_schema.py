"""nano-graphrag's community schema and report fields, as ``nano.global`` reads them.

nano's global query does not trust the stored reports for *which* communities exist: it recomputes
``community_schema()`` from the graph's ``clusters`` node attributes (gdb_networkx.py), walking the
nodes in graph order. Per cluster key: the level last written for it, its member nodes and the union
of their chunk ids; ``occurrence`` = that union's size / the largest union over all clusters. The
report store then supplies the text, ``report_json.rating`` (default 0 here, unlike local's -1) and
its own stored ``occurrence`` for the final sort and the map table.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import Community, Index


@dataclass(frozen=True)
class SchemaEntry:
    """One cluster as ``community_schema()`` sees it; ``first_seen`` keeps nano's dict order."""

    level: int
    members: int
    chunk_ids: int
    occurrence: float
    first_seen: int


def community_schema(index: Index) -> dict[str, SchemaEntry]:
    """Cluster key -> entry, in nano's insertion order (first node, in graph order, that names it)."""
    levels: dict[str, int] = {}
    members: dict[str, int] = {}
    chunks: dict[str, set[str]] = {}
    for entity in index.entities:
        if not entity.communities:
            continue  # nano: a node without "clusters" (outside the largest component) is skipped
        # nano splits the raw source_id, so a node without one still contributes the id ""
        ids = entity.source_chunk_ids or [""]
        for level, key in entity.communities:
            levels[key] = level
            members[key] = members.get(key, 0) + 1
            chunks.setdefault(key, set()).update(ids)
    biggest = max((len(found) for found in chunks.values()), default=1)  # sets only grow: nano's running max
    return {
        key: SchemaEntry(levels[key], members[key], len(found), len(found) / biggest, pos)
        for pos, (key, found) in enumerate(chunks.items())
    }


def report_rating(community: Community) -> tuple[object, float, str]:
    """(value nano prints, value nano compares, a note when they had to differ).

    nano reads ``report_json.get("rating", 0)``. An index without nano's ``report_json`` falls back
    to the community's own rating. A rating that is not a number would make nano raise
    ``TypeError`` when comparing it; we count it as 0 and say so.
    """
    report_json = community.extra.get("report_json")
    if isinstance(report_json, dict):
        raw = report_json.get("rating", 0)
    else:
        raw = community.rating if community.rating is not None else 0
    if isinstance(raw, numbers.Real):
        return raw, float(raw), ""
    return (
        0,
        0.0,
        msg("rating {raw} is not a number: counted as 0 (nano-graphrag 0.0.8.2 raises TypeError)", raw=repr(raw)),
    )


def report_occurrence(community: Community, schema: SchemaEntry) -> float:
    """The stored report's ``occurrence`` (what nano sorts and prints); the schema's when none is stored."""
    stored = community.extra.get("occurrence")
    if isinstance(stored, numbers.Real) and not isinstance(stored, bool):
        return stored
    return schema.occurrence
