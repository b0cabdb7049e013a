"""Why a gold item missed the context, told from the retrieval's own candidates.

Every mode writes, for each candidate it did not put into the context, a ``dropped`` reason in words
(``"below threshold (sim 0.41 < 0.5)"``, ``"beyond chunk_top_k 20"``, ``"over budget (Sources: 7,900+420 >
8,000 tokens)"``, ``"round-robin: duplicate of entity chunk"``). Those reasons are the evidence here: a
missed item is sorted into one of ``REASONS`` from the text the mode wrote, and the text is kept whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_ui.base.i18n import msg, pmsg
from graphrag_ui.evaluation.lookup import Lookup
from graphrag_ui.retrieval.core.candidates import in_context
from graphrag_ui.retrieval.core.result import KINDS, Candidate, Retrieval

REASONS = {
    "not_in_index": pmsg("why missed", "not in the index"),
    "never_candidate": pmsg("why missed", "never a candidate"),
    "below_threshold": pmsg("why missed", "below a threshold"),
    "beyond_top_k": pmsg("why missed", "beyond top_k"),
    "token_budget": pmsg("why missed", "cut by a token budget"),
    "duplicate": pmsg("why missed", "dropped as a duplicate"),
    "other": pmsg("why missed", "dropped for another reason"),
}

# order matters: "over budget … (rank …)" is a budget; "rank 7: below the top drift_k_followups" a top-k
_RULES = (
    ("duplicate", re.compile(r"duplicate|already (in|kept|taken)", re.I)),
    ("token_budget", re.compile(r"budget|over max_\w*tokens|max_\w*tokens|does not fit|did not fit", re.I)),
    ("beyond_top_k", re.compile(r"beyond|top_k|below the top|top \d+|_k\b|only the first", re.I)),
    ("below_threshold", re.compile(r"threshold|below|score|min_community_rank|level \d+ >|rating", re.I)),
)


def classify(dropped: str) -> str:
    """The ``REASONS`` key a candidate's ``dropped`` text names ("other" when none fits)."""
    for reason, pattern in _RULES:
        if pattern.search(dropped or ""):
            return reason
    return "other"


@dataclass
class Missed:
    """Why one gold item is not in the context."""

    reason: str  # a REASONS key
    detail: str  # the mode's own words (the candidate's ``dropped``), or ours
    kind: str = ""  # the candidate that held the item: its kind, id and label
    id: str = ""
    label: str = ""
    score: float | None = None  # its similarity, when the mode had one
    order: int | None = None  # its 1-based place in the order the mode found it
    tokens: int = 0  # what it would have cost in its section

    @property
    def reason_text(self) -> str:
        return REASONS.get(self.reason, REASONS["other"])


def missed_by_candidates(holders: dict[str, list[Candidate]], chunk_ids: list[str], never: str = "") -> Missed:
    """The reason of the best-placed dropped candidate that holds the item (chunks first, then the other
    kinds in the mode's order; a duplicate only when nothing else holds it); with none, "never a candidate" naming the chunks that hold it, or "not in
    the index" when no chunk does (``never``: the words for an item the index has but no step considered)."""
    for kind in ("chunks", *[k for k in KINDS if k != "chunks"]):
        # a duplicate's twin was kept and then lost for its own reason (a budget): that reason comes first
        cands = sorted(holders.get(kind, []), key=lambda c: (classify(c.dropped) == "duplicate", c.order))
        if cands:
            c = cands[0]
            return Missed(
                classify(c.dropped),
                c.dropped or msg("not in the context"),
                kind,
                c.id,
                c.label,
                c.score,
                c.order + 1,
                c.tokens,
            )
    if never:
        return Missed("never_candidate", never)
    if chunk_ids:
        shown = ", ".join(chunk_ids[:3]) + (msg(" (+{n} more)", n=len(chunk_ids) - 3) if len(chunk_ids) > 3 else "")
        return Missed("never_candidate", msg("held by chunk(s) {ids}, which this mode never considered", ids=shown))
    return Missed("not_in_index", msg("no chunk of the index holds this text"))


def _names(items: list[str]) -> str:
    return ", ".join(items[:3]) + (msg(" (+{n} more)", n=len(items) - 3) if len(items) > 3 else "")


def chunk_hint(lk: Lookup, chunk_ids: list[str], result: Retrieval) -> str:
    """Graph-aware words for text no step considered: the entities its chunks were extracted from, and
    whether the mode recalled them ("" for a mode that recalls no entities, or chunks with no entity)."""
    if not result.entities or not chunk_ids:
        return ""
    kept = {c.id for c in in_context(result.entities)}
    sources = list(dict.fromkeys(e for cid in chunk_ids for e in lk.entities_of_chunk(cid)))
    by_id = lk.index.entity_by_id
    names = {e: by_id[e].name for e in sources if e in by_id}
    recalled = [names[e] for e in sources if e in kept and e in names]
    if recalled:
        return msg(
            "held by chunk(s) {ids}, a source of in-context entity {names}, but this mode never took that text",
            ids=_names(chunk_ids),
            names=_names(recalled),
        )
    if sources:
        return msg(
            "held by chunk(s) {ids}, whose entities ({names}) this mode never recalled",
            ids=_names(chunk_ids),
            names=_names([names[e] for e in sources if e in names]),
        )
    return ""


def entity_hint(lk: Lookup, entity_ids: set[str], result: Retrieval) -> str:
    """Graph-aware words for an entity no step considered: the in-context entities it is related to ("" when none)."""
    kept = {c.label for c in in_context(result.entities)}  # a lazy dropped tail stays unmade
    graph = lk.index.graph
    names = [lk.index.entity_by_id[e].name for e in sorted(entity_ids) if e in lk.index.entity_by_id]
    near = list(dict.fromkeys(n for name in names if name in graph for n in graph.neighbors(name) if n in kept))
    if not near:
        return ""
    return msg("a neighbour of in-context entity {names}, but this mode never recalled it", names=_names(near))
