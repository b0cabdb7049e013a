"""Score one ``Retrieval`` against one question's gold, with no model: what reached the context, where,
and for every gold item that did not, why — read from the retrieval's own candidates.

- ``evidence_recall``: found gold items / gold items (evidence strings, documents, chunks, entities).
  An evidence string is found when its normalised text (``lookup.norm``) occurs in an in-context item's
  own text (a chunk, a description, a report: however the mode quoted it into the context, as JSON or
  CSV), in the normalised context, or in two in-context chunks of one document that follow each other
  (a fact cut by the chunker); a document or chunk when one of its chunks is an in-context chunk; an entity when an
  in-context entity carries that name or alias.
- ``entity_recall``: found gold entities / gold entities.
- where each found item came in (``Placement``: kind, id, label, 1-based position among the in-context
  items of its kind) and, for each missed one, a ``Missed``: never a candidate, below a threshold,
  beyond top_k, cut by a token budget, dropped as a duplicate (the candidate's own ``dropped`` text,
  score and order), or not in the index at all.
- ``all_evidence``, ``first_evidence_position`` (the best placement's position), ``answer_in_context``,
  ``answer_token_recall`` (the answer's words found in the context as whole words), ``context_tokens``
  (the mode's own count; the context's o200k tokens when it reports no budget), ``unused_token_share``
  (tokens of in-context items that carry no found gold item / tokens of all in-context items).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.base.tokens import count as count_tokens
from graphrag_ui.evaluation.gold import GoldItem, Question
from graphrag_ui.evaluation.lookup import Lookup, has_word, lookup, norm, words
from graphrag_ui.evaluation.why import Missed, chunk_hint, entity_hint, missed_by_candidates
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import in_context, where
from graphrag_ui.retrieval.core.change import context_tokens
from graphrag_ui.retrieval.core.result import KINDS, Candidate, Retrieval


@dataclass
class Placement:
    """Where a found gold item came into the context."""

    kind: str  # "chunks" | "entities" | "relations" | "communities" | "context" (across items)
    id: str
    label: str
    position: int  # 1-based among the in-context items of its kind (0 for "context")


@dataclass
class ItemResult:
    item: GoldItem
    found: bool
    where: list[Placement] = field(default_factory=list)
    missed: Missed | None = None


@dataclass
class RowMetrics:
    """The metrics of one question × mode × setting."""

    question_id: str
    mode: str
    params: dict[str, Any]  # the setting as run (the swept parameter's value included)
    evidence_recall: float | None  # None: the question has no gold item
    entity_recall: float | None  # None: no gold entity
    all_evidence: bool
    first_evidence_position: int | None
    answer_in_context: bool | None  # None: no reference answer
    answer_token_recall: float | None
    context_tokens: int
    unused_token_share: float | None  # None: nothing in the context
    items: list[ItemResult] = field(default_factory=list)
    ms: float = 0.0  # the retrieval's own time
    warnings: list[str] = field(default_factory=list)
    config: Any = None  # the ``plan.Config`` it ran (set by the runner)

    @property
    def missed(self) -> list[ItemResult]:
        return [r for r in self.items if not r.found]

    def gold_rows(self) -> set[tuple[str, str]]:
        """(kind, id) of every in-context item that carries a found gold item: the rows a table marks "gold"."""
        return {(p.kind, p.id) for r in self.items if r.found for p in r.where if p.kind != "context"}


def _in_context(result: Retrieval) -> dict[str, list[Candidate]]:
    return {kind: in_context(result.candidates(kind)) for kind in KINDS}


def _placements(lk: Lookup, shown: dict[str, list[Candidate]], needle: str) -> list[Placement]:
    return [
        Placement(kind, c.id, c.label, pos)
        for kind in KINDS
        for pos, c in enumerate(shown[kind], start=1)
        if needle in lk.text(kind, c.id, c.label)
    ]


OVERLAP_CHARS = 8000  # the chunker's overlap is tokens; no overlap is longer than this many characters
_HEAD = 32  # an overlap is found by b's first characters in a's tail (shorter ones: the chunks are joined by a space)


def _joined(a: str, b: str) -> str:
    """Two neighbouring chunks as one text, their overlap (a's end = b's start, the longest) written once."""
    head = b[:_HEAD]
    start = a.find(head, max(0, len(a) - OVERLAP_CHARS))
    while start != -1:
        if b.startswith(a[start:]):
            return a + b[len(a) - start :]
        start = a.find(head, start + 1)
    return a + " " + b


def _split_across(lk: Lookup, chunks: list[Candidate], needle: str) -> list[Placement]:
    position = {c.id: pos for pos, c in enumerate(chunks, start=1)}
    by_place = {lk.chunk_pos[c.id]: c for c in chunks if c.id in lk.chunk_pos}
    for (doc, order), first in sorted(by_place.items()):
        second = by_place.get((doc, order + 1))
        if second is not None and needle in lk.joined(first.id, second.id, _joined):
            return [Placement("chunks", c.id, c.label, position[c.id]) for c in (first, second)]
    return []


def _evidence(lk: Lookup, result: Retrieval, shown: dict, context: Callable[[], str], item: GoldItem) -> ItemResult:
    needle = norm(item.value)
    if not needle:
        return ItemResult(item, False, missed=Missed("not_in_index", msg("the evidence text is empty")))
    where = _placements(lk, shown, needle)
    if where:  # an in-context item holds it, however the mode wrote the item (JSON, CSV quoting)
        return ItemResult(item, True, where)
    if needle in context():
        return ItemResult(item, True, [Placement("context", "", msg("across several items"), 0)])
    split = _split_across(lk, shown["chunks"], needle)
    if split:
        return ItemResult(item, True, split)
    holders = {
        kind: [c for c in result.candidates(kind) if not c.in_context and needle in lk.text(kind, c.id, c.label)]
        for kind in KINDS
    }
    chunk_ids = lk.chunks_holding(needle)
    return ItemResult(item, False, missed=missed_by_candidates(holders, chunk_ids, chunk_hint(lk, chunk_ids, result)))


def _ids_item(lk: Lookup, result: Retrieval, shown: dict, item: GoldItem) -> ItemResult:
    if item.kind == "entity":
        kind, wanted = "entities", lk.entities_named(item.value)
        name = norm(item.value)
        match = lambda cid, label: cid in wanted or norm(label) == name  # noqa: E731
    else:
        kind = "chunks"
        wanted = set(lk.chunks_of_doc(item.value)) if item.kind == "doc" else ({item.value} & set(lk.chunk_doc))
        match = lambda cid, _label: cid in wanted  # noqa: E731
    placed = [Placement(kind, c.id, c.label, pos) for pos, c in enumerate(shown[kind], start=1) if match(c.id, c.label)]
    if placed:
        return ItemResult(item, True, placed)
    # the candidates of the item's kind it matches: a lazy dropped tail (core.candidates) makes only those rows
    matched = where(result.candidates(kind), match, by_label=kind == "entities")
    if not wanted and not matched:
        what = {
            "entity": msg("no entity of the index has this name or alias"),
            "doc": msg("no document of the index has this id or title"),
            "chunk": msg("no chunk of the index has this id"),
        }[item.kind]
        return ItemResult(item, False, missed=Missed("not_in_index", what))
    # only the item's own kind: another kind's lazy dropped rows (core.candidates) are not made for nothing
    holders = {k: [c for c in matched if not c.in_context] if k == kind else [] for k in KINDS}
    if kind == "entities":
        never = (
            (entity_hint(lk, wanted, result) or msg("this mode never considered the entity"))
            if result.entities
            else msg(
                "this mode puts no entities into its context (only {kinds})",
                kinds=", ".join(k for k in KINDS if shown[k]) or "-",
            )
        )
        return ItemResult(item, False, missed=missed_by_candidates(holders, [], never))
    chunk_ids = sorted(wanted)
    return ItemResult(item, False, missed=missed_by_candidates(holders, chunk_ids, chunk_hint(lk, chunk_ids, result)))


def _tokens(result: Retrieval) -> int:
    """The context's tokens as the mode counted them (its budgets); a mode that reports no budget (DRIFT
    without a model: its prompts) is counted here, so a context is never free."""
    if result.budgets:
        return context_tokens(result)
    return reuse.once(("evaluation.tokens", result.context), lambda: count_tokens(result.context))


def _normalised_context(result: Retrieval) -> Callable[[], str]:
    """The normalised context, made on first need (most gold is found in an item's own text, and a question
    without an answer never needs it) and once per distinct context inside ``reuse.shared()`` (the steps
    of a range past the point where nothing more comes in repeat the same context)."""
    made: list[str] = []

    def context() -> str:
        if not made:
            made.append(reuse.once(("evaluation.norm", result.context), lambda: norm(result.context)))
        return made[0]

    return context


def evaluate(index: Index, result: Retrieval, question: Question, *, ms: float = 0.0) -> RowMetrics:
    """The metrics of ``result`` (one mode at one setting) against ``question``'s gold (see the module docstring)."""
    lk = lookup(index)
    shown = _in_context(result)
    context = _normalised_context(result)
    items = [
        _evidence(lk, result, shown, context, item) if item.kind == "evidence" else _ids_item(lk, result, shown, item)
        for item in question.gold()
    ]
    found = [r for r in items if r.found]
    entities = [r for r in items if r.item.kind == "entity"]
    positions = [p.position for r in found for p in r.where if p.position > 0]
    carrying = {(p.kind, p.id) for r in found for p in r.where}
    total = sum(c.tokens for kind in KINDS for c in shown[kind])
    idle = sum(c.tokens for kind in KINDS for c in shown[kind] if (kind, c.id) not in carrying)
    answer_words = list(dict.fromkeys(words(question.answer))) if question.answer else []
    return RowMetrics(
        question_id=question.id,
        mode=result.mode,
        params=dict(result.params),
        evidence_recall=len(found) / len(items) if items else None,
        entity_recall=sum(r.found for r in entities) / len(entities) if entities else None,
        all_evidence=bool(items) and len(found) == len(items),
        first_evidence_position=min(positions) if positions else None,
        answer_in_context=(norm(question.answer) in context()) if question.answer.strip() else None,
        answer_token_recall=(sum(has_word(context(), w) for w in answer_words) / len(answer_words))
        if answer_words
        else None,
        context_tokens=_tokens(result),
        unused_token_share=idle / total if total else None,
        items=items,
        ms=ms,
        warnings=list(result.warnings),
    )
