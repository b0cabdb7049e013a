"""Token windows over each document (o200k_base), the way nano-graphrag and LightRAG chunk.

Window ``size`` tokens, stride ``size - overlap``, each window decoded and stripped. Unlike the
references we never emit a broken character where a window edge falls inside a multi-byte UTF-8
sequence (frequent in Chinese): the partial bytes at the edges are dropped, the neighbouring window
holds the whole character thanks to the overlap.
"""

from __future__ import annotations

import hashlib

from graphrag_ui.base import tokens
from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import Chunk, Document


def chunk_id(text: str) -> str:
    return "chunk-" + hashlib.md5(text.encode("utf-8")).hexdigest()


def check_sizes(size: int, overlap: int) -> None:
    if size < 1:
        raise UserError(
            msg("chunk size must be at least 1 token (got {size})", size=size), fix=msg("use e.g. --chunk-size 1200")
        )
    if overlap < 0 or overlap >= size:
        raise UserError(
            msg(
                "chunk overlap must be between 0 and chunk size - 1 (got {overlap} with size {size})",
                overlap=overlap,
                size=size,
            ),
            fix=msg("use e.g. --chunk-overlap 100"),
        )


def split_text(text: str, size: int = 1200, overlap: int = 100, encoding: str = tokens.DEFAULT_ENCODING) -> list[str]:
    """The stripped, non-empty token windows of ``text`` in order."""
    check_sizes(size, overlap)
    enc = tokens.encoding(encoding)
    ids = enc.encode(text, disallowed_special=())
    parts: list[str] = []
    for start in range(0, len(ids), size - overlap):
        piece = enc.decode_bytes(ids[start : start + size]).decode("utf-8", errors="ignore").strip()
        if piece:
            parts.append(piece)
        if start + size >= len(ids):
            break
    return parts


def chunk_documents(
    documents: list[Document], size: int = 1200, overlap: int = 100, encoding: str = tokens.DEFAULT_ENCODING
) -> list[Chunk]:
    """Chunks of all documents in document order; a window repeated verbatim is kept once (same id)."""
    chunks: list[Chunk] = []
    seen: set[str] = set()
    for doc in documents:
        for order, piece in enumerate(split_text(doc.text, size, overlap, encoding)):
            cid = chunk_id(piece)
            if cid in seen:
                continue
            seen.add(cid)
            extra = {"file_path": doc.extra.get("file_path", doc.title)}
            chunks.append(Chunk(cid, doc.id, piece, order, tokens.count(piece, encoding), extra))
    return chunks
