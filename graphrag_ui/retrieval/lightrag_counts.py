"""Token counts of every LightRAG 1.4.7 item an index can print, computed once when it is imported.

1.4.7 charges each entity and relation of a query by the o200k_base count of its JSON. Counting
them per query was most of a query's time (10k encodes for 20 queries at 10k entities): every query
meets items no earlier query counted. An entity prints one way; a relation prints as its sorted
pair (local path) or as each of its vector rows' src/tgt (global path). Each of those texts is
counted at import and kept in the row's ``extra["o200k_rest"]`` as ``[crc32 of the text, tokens]``;
a query looks its text up there by checksum and counts whatever is not found (a built index, an
edited row), so a stored count is only ever used for the very text it was counted from.
"""

from __future__ import annotations

from graphrag_ui import tokens
from graphrag_ui.index.model import Entity, Index, Relation
from graphrag_ui.retrieval import lightrag_context as ctx


def entity_text(entity: Entity) -> str:
    return ctx.rest_text(ctx.entity_item(1, entity.name, entity.type, entity.description))


def relation_texts(relation: Relation) -> list[str]:
    """The rests a relation can print with: its sorted pair, then each vector row's own order."""
    pairs = [tuple(sorted((relation.source, relation.target)))]
    pairs += [(src, tgt) for _key, _vid, src, tgt in relation.extra.get("vdb_rows", [])]
    return list(dict.fromkeys(ctx.rest_text(ctx.relation_item(1, a, b, relation.description)) for a, b in pairs))


def precount(index: Index) -> None:
    """Count every entity's and relation's printable rests (one batch encode) into their ``extra``."""
    rows: list[tuple[Entity | Relation, list[str]]] = [(e, [entity_text(e)]) for e in index.entities]
    rows += [(r, relation_texts(r)) for r in index.relations]
    texts = [text for _row, texts in rows for text in texts]
    counts = iter(tokens.count_many(texts, ctx.ENCODING))
    for row, texts in rows:
        row.extra[ctx.STORED_KEY] = [[ctx.checksum(text), next(counts)] for text in texts]
