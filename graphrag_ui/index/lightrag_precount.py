"""Token counts of every LightRAG 1.4.7 item an index can print, computed once when it is imported.

1.4.7 charges each entity and relation of a query by the o200k_base count of its JSON. Counting
them per query was most of a query's time (10k encodes for 20 queries at 10k entities): every query
meets items no earlier query counted. An entity prints one way; a relation prints as its sorted
pair (local path) or as each of its vector rows' src/tgt (global path). A chunk prints as
its naive row or its KG rows (``naive_row``, ``kg_row``). Each of those texts is
counted at import and kept in the row's ``extra["o200k_rest"]`` as ``[crc32 of the text, tokens]``;
a query looks its text up there by checksum and counts whatever is not found (a built index, an
edited row), so a stored count is only ever used for the very text it was counted from.

The item shapes and their JSON text live here, below retrieval, because the importer counts them;
``retrieval/lightrag/v1_4_7/context.py`` prints and looks them up with the same functions.
"""

from __future__ import annotations

import json
import zlib
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from graphrag_ui.base import tokens
from graphrag_ui.index.model import Chunk, Entity, Index, Relation

ENCODING = "o200k_base"  # LightRAG's TiktokenTokenizer("gpt-4o-mini")
STORED_KEY = "o200k_rest"  # a row's [[crc32 of a rest it prints, its tokens], ...] (precount)


def checksum(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def stored_tokens(row: Any, text: str) -> int | None:
    """The count kept at import for exactly ``text`` (None: none kept, or kept for another text)."""
    kept = row.extra.get(STORED_KEY) if row is not None else None
    if not kept:
        return None
    crc = checksum(text)
    for c, n in kept:
        if c == crc:
            return n
    return None


def entity_item(position: int, name: str, etype: str, description: str) -> dict:
    return {"id": position, "entity": name, "type": etype, "description": description}


def relation_item(position: int, a: str, b: str, description: str) -> dict:
    return {"id": position, "entity1": a, "entity2": b, "description": description}


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _value(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)``: for a string, the encoder's own C escaper, called directly."""
    return encode_basestring(value) if type(value) is str else dumps(value)


def rest_text(item: dict) -> str:
    """JSON of ``item`` after its ``{"id": N`` head (the head is counted separately), built field by
    field exactly as ``json.dumps`` joins them (``", "`` and ``": "``), without dumping the dict."""
    return "".join(f", {_value(k)}: {_value(v)}" for k, v in item.items() if k != "id") + "}"


def entity_text(entity: Entity) -> str:
    return rest_text(entity_item(1, entity.name, entity.type, entity.description))


def relation_texts(relation: Relation) -> list[str]:
    """The rests a relation can print with: its sorted pair, then each vector row's own order."""
    pairs = [tuple(sorted((relation.source, relation.target)))]
    pairs += [(src, tgt) for _key, _vid, src, tgt in relation.extra.get("vdb_rows", [])]
    return list(dict.fromkeys(rest_text(relation_item(1, a, b, relation.description)) for a, b in pairs))


def vector_fields(chunk: Chunk) -> tuple[str, str, int | None]:
    """(content, file_path, created_at) of a chunk as the chunk vector store returns it.

    Imported LightRAG chunks carry the vector row's own fields (``extra["vdb"]``, LightRAG's
    defaults); chunks of other indexes have none, so their text and file path stand in.
    """
    vdb = chunk.extra.get("vdb")
    if vdb is None:
        return chunk.text, chunk.extra.get("file_path", "unknown_source"), None
    return vdb.get("content", chunk.text), vdb.get("file_path", "unknown_source"), vdb.get("created_at")


def naive_row(chunk: Chunk) -> dict[str, Any]:
    """The row 1.4.7's naive query measures and prints for a vector hit."""
    content, file_path, created_at = vector_fields(chunk)
    return {"content": content, "created_at": created_at, "file_path": file_path, "source_type": "vector"} | {
        "chunk_id": chunk.id
    }


def kg_row(chunk: Chunk, source: str) -> dict[str, Any]:
    """The row the KG modes measure and print: vector hits carry the vector store's fields."""
    if source == "vector":
        content, file_path, _ = vector_fields(chunk)
        return {"content": content, "file_path": file_path, "chunk_id": chunk.id}
    return {"content": chunk.text, "file_path": chunk.extra.get("file_path", "unknown_source"), "chunk_id": chunk.id}


def chunk_texts(chunk: Chunk) -> list[str]:
    """The JSON texts a chunk can be measured as: its naive row, its KG rows (vector, graph)."""
    return list(dict.fromkeys(dumps(row) for row in (naive_row(chunk), kg_row(chunk, "vector"), kg_row(chunk, ""))))


def precount(index: Index) -> None:
    """Count every entity's and relation's printable rests and every chunk's rows (one batch encode)
    into their ``extra``."""
    rows: list[tuple[Entity | Relation | Chunk, list[str]]] = [(e, [entity_text(e)]) for e in index.entities]
    rows += [(r, relation_texts(r)) for r in index.relations]
    rows += [(c, chunk_texts(c)) for c in index.chunks]
    texts = [text for _row, texts in rows for text in texts]
    counts = iter(tokens.count_many(texts, ENCODING))
    for row, texts in rows:
        row.extra[STORED_KEY] = [[checksum(text), next(counts)] for text in texts]
