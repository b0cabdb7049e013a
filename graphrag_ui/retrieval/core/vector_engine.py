"""Which engine answered a retrieval's vector searches, written on the ``Retrieval``.

The exact numpy search (the default) needs no note. When the index was opened with ``vectors="server"``
the searches went to a chroma server (``index.vector_server`` records each one); ``mark`` then writes
the engine and its overlap with the exact top-k on the Retrieval and ends the ``why`` of every
candidate the server returned with ``by chroma HNSW on host:port``.
"""

from __future__ import annotations

from typing import Any

from graphrag_ui.base.i18n import joined, msg
from graphrag_ui.index.servers.vector_server import Search, exact_table


def summary(searches: list[Search]) -> dict[str, Any]:
    """What the Retrieval records: the engine, and per search the overlap with exact top-k (when local exists)."""
    rows = []
    for s in searches:
        local = exact_table(s.table)
        row: dict[str, Any] = {"kind": s.table.kind, "collection": s.table.collection, "k": s.k, "returned": len(s.ids)}
        row["ms"] = round(s.ms, 3)
        row["ef"] = s.table._ef
        if local is not None:
            exact = s.exact(local)
            row["exact_k"] = len(exact)
            row["overlap"] = len(set(exact) & set(s.ids))
            row["missed"] = [i for i in exact if i not in set(s.ids)]
        rows.append(row)
    where = searches[0].table.where if searches else ""
    return {"engine": f"chroma HNSW on {where}", "server": where, "searches": rows}


def overlaps(info: dict[str, Any]) -> list[tuple[str, int, int, int]]:
    """(kind, k, overlap, exact k) per search that could be compared with the local copy."""
    return [(r["kind"], r["k"], r["overlap"], r["exact_k"]) for r in info.get("searches", []) if "overlap" in r]


def mark(result: Any, searches: list[Search]) -> None:
    """Record the engine on the Retrieval and in the ``why`` of every candidate a server search returned."""
    result.vector_search = summary(searches)
    for s in searches:
        for old, new in s.raised:
            result.warnings.append(
                msg(
                    "the chroma collection {name} on {where} was searched with ef_search {old}, below the {new} "
                    "a top-{k} search asks for (max(100, 4·top_k)): it was raised now, and chroma applies it when "
                    "the server next loads the collection (restart it to get the recall)",
                    name=s.table.collection,
                    where=s.table.where,
                    old=old,
                    new=new,
                    k=s.k,
                )
            )
    found: dict[str, set[str]] = {}
    for s in searches:
        found.setdefault(s.table.kind, set()).update(s.ids)
    for kind, ids in found.items():
        where = next(s.table for s in searches if s.table.kind == kind).where
        by = msg("by chroma HNSW on {where}", where=where)
        for cand in getattr(result, kind, []):
            keys = {cand.id, str(cand.data.get("id", "")), str(cand.data.get("entity_name", "")), cand.label}
            if keys & ids:
                cand.why = joined(cand.why, by)
