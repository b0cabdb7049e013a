"""An index whose every text field carries Markdown that would make the browser fetch or style something.

Each payload points at ``http://127.0.0.1:{port}/…`` (the test's own pixel server): an inline image,
a reference-style image, a raw ``<img>``, a link, a Streamlit colour and icon directive and LaTeX. If
any of them were rendered as Markdown, the browser would request the pixel server or style the text.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from graphrag_ui.embedding.embed import get_embedder
from graphrag_ui.index import store
from graphrag_ui.index.model import Chunk, Community, Document, Entity, Index, Manifest, Relation, VectorTable

# an unescaped image, link, tag or directive in text handed to a Markdown element
LIVE = re.compile(
    r"(?<!\\)!(?<!\\)\[|(?<!\\)\]\(|(?<!\\)<img|(?<!\\):red(?<!\\)\[|(?<!\\)\[r\](?<!\\):|(?<!\\):material/"
)


def payload(port: int, tag: str) -> str:
    base = f"http://127.0.0.1:{port}"
    return (
        f'![{tag}]({base}/img-{tag}.png) <img src="{base}/tag-{tag}.png"> [link]({base}/link-{tag}) '
        f":red[styled {tag}] :material/bolt: ![ref {tag}][r] $x^2$ "
        # issue 27: spans over a line break, GFM autolink literals (www., e-mail)
        f"`a\nb` ![span {tag}]({base}/span-{tag}.png) `c` www.pixel-{tag}.example mail-{tag}@pixel.example"
        f"\n\n[r]: {base}/ref-{tag}.png\n\n"
        # issue 27: a ``` with a backtick in its info string is no fence (nothing after it is code)
        f"```a`b\n![fence {tag}]({base}/fence-{tag}.png)\n"
    )


# an anchor a GFM autolink literal of the payload would make (``www.pixel-…``, ``mail-…@pixel.example``)
AUTOLINKS = 'a[href*="pixel-"], a[href*="pixel.example"]'


def pixel_index(port: int) -> Index:
    name = "MARA QUAY " + payload(port, "name")
    other = "Lighthouse " + payload(port, "other")
    text = f"Mara Quay keeps the harbour. {payload(port, 'chunk')} The lighthouse stands on the rock."
    docs = [Document("d1", "notes " + payload(port, "doc"), text)]
    chunks = [Chunk("k1", "d1", text, 0, 60)]
    entities = [
        Entity("e1", name, "PERSON " + payload(port, "type"), "Harbour keeper " + payload(port, "desc"),
               source_chunk_ids=["k1"], occurrence=3, communities=[(0, "c1")]),
        Entity("e2", other, "GEO", "The light " + payload(port, "desc2"), source_chunk_ids=["k1"], occurrence=2,
               communities=[(0, "c1")]),
    ]  # fmt: skip
    rid = "r1 " + payload(port, "rid")
    relations = [  # the same id twice: the load's warning names it (index.row_checks)
        Relation(rid, name, other, "keeps " + payload(port, "rel"), keywords="kw " + payload(port, "kw"),
                 weight=3.0, source_chunk_ids=["k1"]),
        Relation(rid, other, name, "again " + payload(port, "rel2"), weight=2.0, source_chunk_ids=["k1"]),
    ]  # fmt: skip
    title = "Harbour circle " + payload(port, "title")
    communities = [
        Community("c1", 0, None, title, f"# {title}\n{payload(port, 'report')}", 5.0, [e.name for e in entities]),
        Community("c2", 0, None, "Rock " + payload(port, "title2"), "The rock " + payload(port, "report2"),
                  float("nan"), [other]),
    ]  # fmt: skip
    embedder = get_embedder("hash")

    def table(ids: list[str], texts: list[str]) -> VectorTable:
        return VectorTable(ids, np.asarray(embedder.embed(texts), dtype=np.float32))

    vectors = {
        "entities": table([e.id for e in entities], [e.name + " " + e.description for e in entities]),
        "relations": table([rid], [relations[0].description]),
        "chunks": table([c.id for c in chunks], [c.text for c in chunks]),
        "communities": table([c.id for c in communities], [c.report for c in communities]),
    }
    manifest = Manifest(
        source="build",
        embedder="hash",
        dimension=vectors["entities"].matrix.shape[1],
        title="pixels " + payload(port, "manifest"),
        language="en",
    )
    return Index(manifest, docs, chunks, entities, relations, communities, vectors=vectors)


def save_pixel_index(folder: Path, port: int) -> Path:
    out = folder / "pixel-index"
    store.save(pixel_index(port), out, chroma=False)
    return out
