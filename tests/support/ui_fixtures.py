"""A tiny index whose names and descriptions try to inject script (for the UI safety tests)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from graphrag_ui.embedding.embed import get_embedder
from graphrag_ui.index import store
from graphrag_ui.index.model import Chunk, Community, Document, Entity, Index, Manifest, Relation, VectorTable

# every payload sets window.__pwned and opens a dialog if it ever runs
SCRIPT_NAME = "</script><script>window.__pwned=1;alert('name')</script>"
IMG_DESC = "Harbour <img src=x onerror=\"window.__pwned=2;alert('desc')\"> keeper"
SVG_NAME = "<svg onload=\"window.__pwned=3;alert('svg')\">Lighthouse"
REL_DESC = "</script><script>window.__pwned=4;alert('rel')</script> guards the light"
TITLE = "<img src=y onerror=\"window.__pwned=5;alert('title')\"> Harbour circle"
PAYLOAD_MARKERS = ("<script>window.__pwned", "<img src=x onerror", "<svg onload", "<img src=y onerror")


def plain(markdown: str) -> str:
    """What a Markdown element's source reads as: the backslash escapes of ``ui.escape.md_escape`` removed."""
    return re.sub(r"\\(.)", r"\1", str(markdown))


def evil_index() -> Index:
    """Three entities, two relations, one community; every text field carries a payload."""
    text = f"Mara Quay keeps the harbour. {SCRIPT_NAME} lit the lamp. {SVG_NAME} stands on the rock."
    docs = [Document("d1", "harbour <b>notes</b>", text)]
    chunks = [Chunk("k1", "d1", text, 0, 40)]
    entities = [
        Entity("e1", "MARA QUAY", "PERSON", IMG_DESC, source_chunk_ids=["k1"], occurrence=3, communities=[(0, "c1")]),
        Entity("e2", SCRIPT_NAME, "PERSON", IMG_DESC, source_chunk_ids=["k1"], occurrence=2, communities=[(0, "c1")]),
        Entity("e3", SVG_NAME, "GEO", REL_DESC, source_chunk_ids=["k1"], occurrence=1, communities=[(0, "c1")]),
    ]
    relations = [
        Relation("r1", "MARA QUAY", SCRIPT_NAME, REL_DESC, keywords="<i>kw</i>", weight=3.0, source_chunk_ids=["k1"]),
        Relation("r2", SCRIPT_NAME, SVG_NAME, IMG_DESC, weight=1.0, source_chunk_ids=["k1"]),
    ]
    communities = [Community("c1", 0, None, TITLE, f"# {TITLE}\n{REL_DESC}", 5.0, [e.name for e in entities])]
    embedder = get_embedder("hash")

    def table(ids: list[str], texts: list[str]) -> VectorTable:
        return VectorTable(ids, np.asarray(embedder.embed(texts), dtype=np.float32))

    vectors = {
        "entities": table([e.id for e in entities], [e.name + " " + e.description for e in entities]),
        "relations": table([r.id for r in relations], [r.description for r in relations]),
        "chunks": table([c.id for c in chunks], [c.text for c in chunks]),
        "communities": table([c.id for c in communities], [c.report for c in communities]),
    }
    manifest = Manifest(
        source="build",
        embedder="hash",
        dimension=vectors["entities"].matrix.shape[1],
        title="evil <script>alert('manifest')</script>",
        language="en",
    )
    return Index(manifest, docs, chunks, entities, relations, communities, vectors=vectors)


def save_evil_index(folder: Path) -> Path:
    out = folder / "evil-index"
    store.save(evil_index(), out)
    return out
