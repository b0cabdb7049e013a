"""The text each row is embedded from, in the style of the system the index follows.

The references embed different strings for the same row, and a query's similarity scores depend
on it, so the builder and ``reembed`` both take the text from here:

| style      | entity                       | relation                                        | community      | chunk |
|------------|------------------------------|-------------------------------------------------|----------------|-------|
| ``lightrag`` | ``f"{name}\\n{description}"`` | ``f"{keywords}\\t{a}\\n{b}\\n{description}"``, a ≤ b | report         | text  |
| ``nano``     | ``name + description``       | (nano embeds none; LightRAG's form)             | report         | text  |
| ``graphrag`` | ``f"{name}:{description}"``  | description                                     | report (full)  | text  |

An index built here (``source == "build"``) uses the LightRAG forms: they carry the name, the
endpoints and the keywords, which is what recall by meaning needs. A community without a report
is embedded from its title.
"""

from __future__ import annotations

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg, pmsg
from graphrag_ui.index.model import VECTOR_KINDS, Chunk, Community, Entity, Index, Relation

STYLES = ("lightrag", "nano", "graphrag")
# each kind as the progress stage "embed {kind}" names it (the Index page shows stages translated)
_STAGE_KINDS = {
    "entities": pmsg("index statistics", "entities"),
    "relations": msg("relations"),
    "chunks": msg("chunks"),
    "communities": msg("communities"),
}


def embed_stage(kind: str) -> str:
    """The progress stage that embeds ``kind``: ``embed entities``, ``embed chunks``, …"""
    return msg("embed {kind}", kind=_STAGE_KINDS.get(kind, kind))


def style_for(source: str) -> str:
    """Embedding-text style for a manifest ``source`` ("build", "nano-graphrag", "graphrag-2", …)."""
    if source.startswith("nano"):
        return "nano"
    if source.startswith("graphrag"):
        return "graphrag"
    return "lightrag"


def entity_text(entity: Entity, style: str = "lightrag") -> str:
    if style == "nano":
        return entity.name + entity.description
    if style == "graphrag":
        return f"{entity.name}:{entity.description}"
    return f"{entity.name}\n{entity.description}"


def relation_text(relation: Relation, style: str = "lightrag") -> str:
    if style == "graphrag":
        return relation.description
    a, b = sorted((relation.source, relation.target))
    return f"{relation.keywords}\t{a}\n{b}\n{relation.description}"


def chunk_text(chunk: Chunk, style: str = "lightrag") -> str:
    return chunk.text


def community_text(community: Community, style: str = "lightrag") -> str:
    return community.report or community.title


def texts_for(
    index: Index, kind: str, ids: list[str] | None = None, style: str | None = None
) -> tuple[list[str], list[str]]:
    """(ids, texts) to embed for ``kind``: the given ids (e.g. an existing vector table's) or every row."""
    if kind not in VECTOR_KINDS:
        raise ValueError(f"unknown vector kind {kind!r}")
    style = style or style_for(index.manifest.source)
    rows, by_id, fn = {
        "entities": (index.entities, index.entity_by_id, entity_text),
        "relations": (index.relations, index.relation_by_id, relation_text),
        "chunks": (index.chunks, index.chunk_by_id, chunk_text),
        "communities": (index.communities, index.community_by_id, community_text),
    }[kind]
    if ids is None:
        return [r.id for r in rows], [fn(r, style) for r in rows]
    texts = []
    for i in ids:
        row = by_id.get(i)
        if row is None:
            raise IndexFormatError(
                msg("vector id {i} has no row in the {kind} table", i=repr(i), kind=kind),
                where=index.path or "index",
                fix=msg("re-import the index so vector ids are row ids"),
            )
        texts.append(fn(row, style))
    return list(ids), texts


def texts_to_embed(index: Index, style: str | None = None) -> dict[str, tuple[list[str], list[str]]]:
    """kind -> (row ids, texts) for every row of every kind, rows in table order."""
    return {kind: texts_for(index, kind, style=style) for kind in VECTOR_KINDS}
