"""Which retrieval mode can run on an index, and why not: the import report's readiness table.

Each mode declares its needs on its ``ModeSpec`` (``needs``: which vector kinds its search reads, and
so whether it embeds the question, whether it reads community reports, whether its chunks need the
text stored in the vector rows); they are checked here against ``graphrag_ui.index.import_report``'s facts. The CLI prints
the table after an import, the Index page shows it, and ``run_query`` names the real cause when a
mode finds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphrag_ui.base.i18n import msg
from graphrag_ui.index import cache as index_cache
from graphrag_ui.index.coverage import KIND_NAMES
from graphrag_ui.index.import_report import IndexReport, missing_vectors, report
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.registry import find_mode, mode_names
from graphrag_ui.retrieval.spec.needs import Needs

READY, GAPS, CANNOT = "ready", "ready with gaps", "cannot run"
STATUS_TEXT = {READY: msg("ready"), GAPS: msg("ready with gaps"), CANNOT: msg("cannot run")}


@dataclass
class ModeReadiness:
    mode: str
    status: str  # READY | GAPS | CANNOT
    reasons: list[str] = field(default_factory=list)
    reembed_helps: bool = False  # re-embedding the index (new vectors, a known embedder) lifts the block

    @property
    def status_text(self) -> str:
        return STATUS_TEXT[self.status]


_RANK = {READY: 0, GAPS: 1, CANNOT: 2}


def _mark(out: ModeReadiness, status: str) -> None:
    """Raise ``out``'s status to ``status``, never lower it (a gap found later does not undo a block)."""
    if _RANK[status] > _RANK[out.status]:
        out.status = status


def needs_of(mode: str) -> Needs:
    """What ``mode`` reads from an index, as its spec declares (nothing for a name that is no mode)."""
    spec = find_mode(mode)
    return spec.needs if spec is not None else Needs()


def embeds_question(mode: str) -> bool:
    return bool(needs_of(mode).vectors)


def _vectors(facts: IndexReport, mode: str, needs: Needs, out: ModeReadiness) -> None:
    have = [k for k in needs.vectors if facts.coverage[k].covered]
    lacking = [k for k in needs.vectors if facts.coverage[k].rows and not facts.coverage[k].covered]
    for kind in lacking:
        out.reasons.append(msg("no {kind} vectors: {mode} finds none by vector", kind=KIND_NAMES[kind], mode=mode))
    if lacking and (not have or not needs.any_vectors):
        if needs.by_name and "entities" in lacking:
            _mark(out, GAPS)
            out.reasons.append(msg("recall = ilike still finds entities by name"))
        else:
            _mark(out, CANNOT)
        out.reasons.append(msg("re-embed the index to search by vector"))
        out.reembed_helps = True
    elif lacking:
        _mark(out, GAPS)
    for kind in have:
        cover = facts.coverage[kind]
        if cover.missing:
            _mark(out, GAPS)
            out.reasons.append(missing_vectors(kind, cover.missing, cover.rows))


def mode_readiness(index: Index, mode: str, facts: IndexReport | None = None) -> ModeReadiness:
    facts = facts or report(index)
    needs = needs_of(mode)
    out = ModeReadiness(mode, READY)
    if not facts.counts.get("entities") and not facts.counts.get("chunks"):
        return ModeReadiness(mode, CANNOT, [msg("the index is empty")])
    if needs.vectors and not facts.embedder_known:
        _mark(out, CANNOT)
        out.reasons.append(
            msg(
                "{mode} embeds the question, and the embedder that made the index's vectors is unknown: "
                "re-embed the index (Index page, Re-embed) or name its embedder",
                mode=mode,
            )
        )
        out.reembed_helps = True
        if needs.by_name:
            out.reasons.append(msg("with recall = ilike it runs without an embedder (entities by name)"))
    _vectors(facts, mode, needs, out)
    if needs.members and not facts.counts.get("communities"):
        _mark(out, CANNOT)
        out.reasons.append(
            msg(
                "no communities: {mode} loads only entities that belong to a community, as GraphRAG does, "
                "and finds nothing",
                mode=mode,
            )
        )
    elif needs.reports and not facts.reports:
        what = msg("no communities") if not facts.counts.get("communities") else msg("no community reports")
        if needs.reports == "required":
            _mark(out, CANNOT)
            out.reasons.append(msg("{what}: {mode} has nothing to read", what=what, mode=mode))
        else:
            _mark(out, GAPS)
            out.reasons.append(msg("{what}: the reports section stays empty", what=what))
    text_rows = facts.coverage["chunks"].covered
    if needs.chunk_text and facts.chunks_without_text:
        if needs.chunk_text == "required" and facts.chunks_without_text >= text_rows:
            _mark(out, CANNOT)
            out.reasons.append(
                msg(
                    "chunks have no text in vdb_chunks.json (LightRAG ≤ 1.2 layout): {mode} finds nothing, "
                    "as LightRAG itself would",
                    mode=mode,
                )
            )
        else:
            _mark(out, GAPS)
            out.reasons.append(
                msg(
                    "{n} chunk vector row(s) have no text (LightRAG ≤ 1.2 layout): {mode} leaves them out",
                    n=facts.chunks_without_text,
                    mode=mode,
                )
            )
    return out


def kept_readiness(index: Index) -> tuple[IndexReport, list[ModeReadiness]]:
    """``report`` and ``readiness`` of an opened index, worked out once while the object lives (a
    re-embed or re-import loads a new object). The pages ask on every rerun: about 0.2 s at 100k
    entities and 200k relations (measured), so it is kept in ``index.cache``."""
    return index_cache.kept(index, "readiness", lambda: _readiness(index))


def _readiness(index: Index) -> tuple[IndexReport, list[ModeReadiness]]:
    from graphrag_ui.retrieval.registry import mode_names

    facts = report(index)
    return facts, [mode_readiness(index, mode, facts) for mode in mode_names()]


def readiness(index: Index, modes: list[str] | None = None) -> list[ModeReadiness]:
    """One row per mode (every registered mode by default), in the registry's order."""
    facts = report(index)
    return [mode_readiness(index, mode, facts) for mode in (modes or mode_names())]
