"""What an index holds and lacks, in words: the facts the import report and the mode readiness read.

``report(index)`` looks only at the index (no mode, no model): its layout, whether its embedder is
known, per vector kind how many rows have a vector, chunks whose stored vector row has no text
(LightRAG ≤ 1.2 wrote none), community reports, and the importer's own warnings. Which mode can run
on it is decided one layer up (``graphrag_ui.services.readiness``), from these facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.coverage import KINDS, Coverage, coverage
from graphrag_ui.index.model import Index

PLURALS = {
    "entities": msg("entities"),
    "relations": msg("relations"),
    "chunks": msg("chunks"),
    "communities": msg("communities"),
}


def _labels() -> dict[str, str]:
    """Every layout label an importer records, as the translatable message it was written with."""
    from graphrag_ui.index.importers import lightrag, ms_graphrag, nano_graphrag

    return {
        str(m): m
        for m in [
            *lightrag.LAYOUT_LABELS.values(),
            lightrag.PG_LAYOUT,
            *ms_graphrag.LAYOUT_LABELS.values(),
            nano_graphrag.LAYOUT,
        ]
    }


def layout_label(index: Index) -> str:
    """What wrote the index, as its files show it: "LightRAG ≤ 1.1 layout", "GraphRAG 1.x layout", …"""
    settings = index.manifest.settings or {}
    label = settings.get("layout")
    if label:
        return _labels().get(str(label), str(label))
    source = index.manifest.source
    if source == "build":
        return msg("built here")
    if source.startswith("lightrag-"):  # imported before the layout was recorded: the short form
        return msg("LightRAG {version} layout", version=source.split("-", 1)[1])
    if source.startswith("graphrag-"):
        return msg("GraphRAG {version}.x layout", version=source.split("-", 1)[1])
    return msg("{layout}", layout=source)


@dataclass
class IndexReport:
    layout: str
    embedder: str
    embedder_known: bool
    counts: dict[str, int]
    coverage: dict[str, Coverage]
    chunks_without_text: int  # chunk vector rows whose stored row has no text (LightRAG ≤ 1.2)
    reports: int  # communities with a report text
    warnings: list[str] = field(default_factory=list)
    found: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def missing_vectors(kind: str, missing: int, rows: int) -> str:
    """What rows without a vector mean: entities are still found by name, other rows not at all."""
    if kind == "entities":
        return msg(
            "{missing} of {rows} {kinds} have no vector: found by name only until you re-embed",
            missing=missing,
            rows=rows,
            kinds=PLURALS[kind],
        )
    return msg(
        "{missing} of {rows} {kinds} have no vector: vector search never reaches them until you re-embed",
        missing=missing,
        rows=rows,
        kinds=PLURALS[kind],
    )


def _no_text(index: Index) -> int:
    table = index.vectors.get("chunks")
    if table is None:
        return 0
    return sum(
        1
        for cid in table.ids
        if (chunk := index.chunk_by_id.get(cid)) is not None and chunk.extra.get("vdb", {}).get("no_content")
    )


def report(index: Index) -> IndexReport:
    """The facts of ``index`` and two lists of sentences: what was found and what is missing."""
    from graphrag_ui.index.importers.command import import_warnings

    cover = {kind: coverage(index, kind) for kind in KINDS}
    out = IndexReport(
        layout=layout_label(index),
        embedder=index.manifest.embedder,
        embedder_known=index.manifest.embedder not in ("", "unknown"),
        counts=index.counts(),
        coverage=cover,
        chunks_without_text=_no_text(index),
        reports=sum(1 for c in index.communities if c.report),
        warnings=import_warnings(index),
    )
    out.found.append(msg("{layout}, embedder {embedder}", layout=out.layout, embedder=out.embedder))
    for kind in KINDS:
        c = cover[kind]
        if not c.rows:
            continue
        if c.covered:
            out.found.append(
                msg(
                    "{rows} {kinds}, {covered} with a vector",
                    rows=c.rows,
                    kinds=PLURALS[kind],
                    covered=c.covered,
                )
            )
        else:
            out.found.append(msg("{rows} {kinds}, none with a vector", rows=c.rows, kinds=PLURALS[kind]))
        if c.covered and c.missing:
            out.missing.append(missing_vectors(kind, c.missing, c.rows))
    if not out.embedder_known:
        out.missing.append(
            msg(
                "the embedder that made the vectors is unknown: modes that embed the question need it "
                "(name it with --embedder, or re-embed on the Index page)"
            )
        )
    if out.chunks_without_text:
        out.missing.append(
            msg(
                "{n} chunk vector row(s) carry no text (LightRAG ≤ 1.2 layout)",
                n=out.chunks_without_text,
            )
        )
    if not index.communities:
        out.missing.append(msg("no communities"))
    elif not out.reports:
        out.missing.append(msg("{n} communities, none with a report", n=len(index.communities)))
    if not any(c.rows for c in cover.values()):
        out.missing.append(msg("the index is empty"))
    return out
