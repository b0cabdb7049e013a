"""GraphRAG's dynamic community selection as a pure state machine (the model calls happen elsewhere).

``DynamicCommunitySelection.select``: rate every level-0 report; a report rated ≥ ``threshold`` is
kept, its parent is dropped again (unless ``keep_parent``) and its children that have a report at
level ≤ ``community_level`` are rated next; when a round keeps nothing at all and the next level
exists (≤ ``max_level``), every report of that level is rated. Each rating is the most frequent of
``num_repeats`` answers, read as ``rate_relevancy`` reads them (a JSON answer without ``rating``
counts as 1).

GraphRAG 2.x never descends: ``Community.children`` are ints and its reports are keyed by strings
(3.x converts them), so only the fallback reaches deeper levels there. We reproduce that for 2.x
indexes. The kept reports go on in the order they were kept; GraphRAG takes them from a ``set``
of strings, whose order changes with the process's hash seed (docs/differences/ms.md).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.i18n import joined, msg
from graphrag_ui.index.model import Community, Index
from graphrag_ui.retrieval.core.stages import Rating
from graphrag_ui.retrieval.ms.global_search.community_context import level_reports
from graphrag_ui.retrieval.ms.global_search.params import TYPED
from graphrag_ui.retrieval.ms.global_search.parse import Unreadable, try_parse_json_object
from graphrag_ui.retrieval.ms.prompts import rate_messages
from graphrag_ui.retrieval.spec.schema import Params


class SelectionError(ValueError):
    """GraphRAG stops the whole query here (it raises); the message says why in one line."""


def parse_rating(answer: str) -> object:
    """One answer's rating as ``rate_relevancy`` reads it; 1 when the JSON has no ``rating``."""
    try:
        _, parsed = try_parse_json_object(answer)
    except Unreadable as exc:
        raise SelectionError(msg("the rating answer is broken JSON ({error})", error=exc.args[0])) from None
    if not isinstance(parsed, dict):
        raise SelectionError(
            msg("the rating answer is JSON but not an object ({type}): GraphRAG fails", type=type(parsed).__name__)
        )
    return parsed.get("rating", 1)


def read_rating(answer: str) -> list[dict[str, int]]:
    """A rating call's answer checked the way ``record`` will read it (a ``SelectionError`` when it cannot be).

    The model-call runner uses it before caching an answer: a rating GraphRAG would fail on is never kept.
    """
    return [{"rating": vote([parse_rating(answer)])}]


def vote(ratings: list[object]) -> int:
    """``np.unique`` + ``argmax``: the most frequent rating, the smallest on a tie, then ``int()``."""
    as_text = any(isinstance(r, str) for r in ratings)
    try:
        keys = [str(r) if as_text else float(r) for r in ratings]  # numpy compares str or numbers, not both
        counts = Counter(keys)
        best = max(counts.values())
        return int(min(k for k, n in counts.items() if n == best))
    except (TypeError, ValueError, OverflowError):
        raise SelectionError(
            msg("rating {raw} is not a number GraphRAG can read: it fails", raw=repr(ratings))
        ) from None


@dataclass
class Selection:
    """The selection so far: what to rate next, every rating, what is kept."""

    threshold: float
    keep_parent: bool
    max_level: int
    descend: bool  # False for GraphRAG 2.x (children never match a report key)
    reports: dict[str, Community]
    communities: dict[str, Community]
    levels: dict[int, list[str]]
    queue: list[str]
    level: int = 0
    ratings: list[Rating] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # in the order they were kept

    @property
    def done(self) -> bool:
        return not self.queue


def start(index: Index, community_level: int, params: Mapping[str, Any] | Params) -> Selection:
    """``DynamicCommunitySelection.__init__`` over the reports loaded at ``community_level``."""
    params = TYPED.of(params)
    reports = {c.id: c for c in level_reports(index, community_level)}
    communities = {c.id: c for c in index.communities if c.extra.get("has_report", bool(c.report))}
    levels: dict[int, list[str]] = {}
    for c in index.communities:
        if c.id in communities:
            levels.setdefault(c.level, [])
            if c.id in reports:
                levels[c.level].append(c.id)
    if 0 not in levels:
        raise SelectionError(msg("no community report at level 0: GraphRAG's dynamic selection has nowhere to start"))
    return Selection(
        threshold=float(params.dynamic_search_threshold),
        keep_parent=params.dynamic_search_keep_parent,
        max_level=params.dynamic_search_max_level,
        descend=index.manifest.source not in ("graphrag-1", "graphrag-2"),
        reports=reports,
        communities=communities,
        levels=levels,
        queue=list(levels[0]),
    )


def pending(sel: Selection, query: str, use_summary: bool) -> list[tuple[str, list[dict[str, str]]]]:
    """The rating calls of the current round: (community id, exact messages)."""
    out = []
    for cid in sel.queue:
        c = sel.reports[cid]
        key = "summary" if use_summary else "full_content"
        out.append((cid, rate_messages(c.extra[key] if key in c.extra else c.report, query)))
    return out


def record(sel: Selection, answers: dict[str, list[str]]) -> None:
    """Apply one round's answers (community id -> its ``num_repeats`` answers) and queue the next."""
    first = len(sel.ratings)
    nxt: list[str] = []
    for cid in sel.queue:
        rating = vote([parse_rating(a) for a in answers[cid]])
        c = sel.communities.get(cid)
        if rating >= sel.threshold:
            if cid not in sel.kept:
                sel.kept.append(cid)
            children = [str(x) for x in (c.extra.get("children") or [])] if c and sel.descend else []
            rated_next = [x for x in children if x in sel.reports]
            nxt += rated_next
            if rated_next:
                why = msg(
                    "rated {rating} ≥ threshold {threshold}: kept, its {n} children with reports rated next",
                    rating=rating,
                    threshold=f"{sel.threshold:g}",
                    n=len(rated_next),
                )
            else:
                why = msg("rated {rating} ≥ threshold {threshold}: kept", rating=rating, threshold=f"{sel.threshold:g}")
            if not sel.keep_parent and c and c.parent in sel.kept:
                sel.kept.remove(c.parent)
                _mark_parent_dropped(sel, c.parent, cid)
        else:
            why = msg(
                "rated {rating} < threshold {threshold}: pruned with everything below it",
                rating=rating,
                threshold=f"{sel.threshold:g}",
            )
        sel.ratings.append(Rating(cid, sel.reports[cid].level, float(rating), rating >= sel.threshold, why))
    sel.queue = nxt
    sel.level += 1
    if not sel.queue and not sel.kept and sel.level in sel.levels and sel.level <= sel.max_level:
        sel.queue = list(sel.levels[sel.level])
        for r in sel.ratings[first:]:
            r.why = joined(r.why, msg("nothing kept yet, so every level-{level} report is rated next", level=sel.level))


def _mark_parent_dropped(sel: Selection, parent: str, child: str) -> None:
    for r in sel.ratings:
        if r.community_id == parent and r.kept:
            r.kept = False
            again = msg("dropped again because its child {cid} was kept (dynamic_search_keep_parent off)", cid=child)
            r.why = joined(r.why, again)


def answers_for_tests(ratings: dict[str, int]) -> dict[str, list[str]]:
    """Scripted answers: ``{"rating": n}`` per community (used by the golden tests and benches)."""
    return {cid: [json.dumps({"reason": "scripted", "rating": n})] for cid, n in ratings.items()}
