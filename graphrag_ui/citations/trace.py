"""An answer traced to its context: what it cites, what it invents, what it never used.

``trace_answer(answer, retrieval)`` reads the markers the mode's prompt asks for (GraphRAG's
``[Data: …]`` for ``ms.*``, LightRAG's references and ``[n]`` for ``lightrag.*``; nano-graphrag asks
for none), resolves them against the context, estimates support for the sentences that cite nothing
(``support``), and splits each section's tokens into cited / estimated / unused. Map-reduce points
(``ms.global``) and DRIFT's questions are traced one by one as ``parts``; their cited items count as
used, since the answer was built from them.
"""

from __future__ import annotations

import json

from graphrag_ui.base.i18n import msg
from graphrag_ui.citations import resolve, sentences
from graphrag_ui.citations.items import ContextItems, context_items
from graphrag_ui.citations.model import ITEM_KINDS, Citation, Item, Sentence, Split, Trace
from graphrag_ui.citations.support import Overlap
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.registry import find_mode

MAX_ANSWER = 200_000  # characters of an answer read (a longer reply is read up to here)
MAX_ESTIMATED = 2_000  # sentences whose support is estimated at most


def style_of(mode: str) -> str:
    """The citation style the mode's answer prompt asks for (its spec's ``citation_style``)."""
    spec = find_mode(mode)
    return spec.citation_style if spec is not None else "none"


def trace_answer(answer: str, retrieval: Retrieval) -> Trace:
    """Citations, support and token split of ``answer`` over ``retrieval``'s context (pure, no model)."""
    style = style_of(retrieval.mode)
    items = context_items(retrieval)
    trace = trace_text(str(answer or "")[:MAX_ANSWER], items, style)
    trace.parts = _parts(retrieval)
    used = {*trace.cited, *(i for p in trace.parts for i in p.cited)}
    estimated = {*trace.estimated, *(i for p in trace.parts for i in p.estimated)} - used
    trace.split = _split(items, used, estimated)
    trace.items = sum(s.items for s in trace.split)
    return trace


def trace_text(text: str, items: ContextItems, style: str, scope: str = "answer") -> Trace:
    """One text (an answer, a map point, a DRIFT step's answer) traced against ``items``."""
    citations: list[Citation] = []
    if style == "graphrag":
        citations, spans = resolve.graphrag(text, items, scope)
    elif style == "lightrag":
        citations, spans = resolve.lightrag(text, items, scope)
    else:
        spans = sentences.split(text)
    rows = [Sentence(text[s:e], s, e) for s, e in spans]
    for citation in citations:
        at = sentences.sentence_at(spans, citation.start) if citation.table not in ("References", "KG", "DC") else None
        if at is None or not (spans[at][0] <= citation.start <= spans[at][1]):
            continue
        row = rows[at]
        row.cited.extend(i for i in _unique(i for cid in citation.ids for i in cid.items) if i not in row.cited)
        row.invented += sum(1 for cid in citation.ids if not cid.in_context)
    overlap = Overlap({item: items.text(item) for item in items.all_items()})
    for row in [r for r in rows if not r.cited][:MAX_ESTIMATED]:
        row.estimates = overlap.best(row.text)
    cited = _unique(i for c in citations for cid in c.ids for i in cid.items)
    seen = set(cited)
    estimated = [i for i in _unique(Item(e.kind, e.item_id) for r in rows for e in r.estimates) if i not in seen]
    return Trace(style, scope, citations, rows, cited, estimated)


def _unique(items) -> list[Item]:
    seen: dict[Item, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def _parts(retrieval: Retrieval) -> list[Trace]:
    """Map points (against their own batch's reports) and DRIFT's answered questions (against their step)."""
    parts: list[Trace] = []
    style = style_of(retrieval.mode)
    if retrieval.stages is not None and style == "graphrag":
        for n, point in enumerate(retrieval.stages.points, start=1):
            if not point.in_context or not point.description:
                continue
            items = context_items(retrieval, {"communities": set(point.community_ids)})
            parts.append(trace_text(point.description[:MAX_ANSWER], items, style, f"point {n}"))
    if retrieval.tree is not None:
        for node in retrieval.tree.nodes:
            if node.answer is None or not node.local:
                continue
            text = node.answer if isinstance(node.answer, str) else json.dumps(node.answer, ensure_ascii=False)
            step = Retrieval.from_dict(node.local)
            parts.append(trace_text(text[:MAX_ANSWER], context_items(step), "graphrag", f"question {node.id}"))
    return parts


def _split(items: ContextItems, cited: set[Item], estimated: set[Item]) -> list[Split]:
    out = []
    for kind in ITEM_KINDS:
        kind_items = [i for i in items.all_items() if i.kind == kind]
        if not kind_items:
            continue
        split = Split(kind, items=len(kind_items))
        for item in kind_items:
            tokens = items.tokens(item)
            if item in cited:
                split.cited += tokens
                split.cited_items += 1
            elif item in estimated:
                split.estimated += tokens
            else:
                split.unused += tokens
        out.append(split)
    return out


def summary_line(trace: Trace) -> str:
    """ "answer cites 7 of 31 items; 2 citations not in the context; 64 % of the context tokens never used"."""
    unused = trace.unused_share
    if unused is None:
        return msg("the answer had no context items to cite (nothing was put into the context)")
    share = f"{round(unused * 100)}"
    cited = len({i for i in trace.cited} | {i for p in trace.parts for i in p.cited})
    if trace.style == "none":
        estimated = sum(1 for s in trace.sentences if s.estimates)
        return msg(
            "answer cites nothing (the prompt asks for no citations); support estimated for {n} of {total} sentences; "
            "{share} % of the context tokens never used",
            n=estimated,
            total=len(trace.sentences),
            share=share,
        )
    return msg(
        "answer cites {cited} of {items} items; {bad} citations not in the context; {share} % of the context "
        "tokens never used",
        cited=cited,
        items=trace.items,
        bad=trace.not_in_context,
        share=share,
    )


def cited_items(retrieval: Retrieval, answer: str) -> list[Item]:
    """The context items ``answer`` cites (its own markers and its map points' / DRIFT steps'), unique."""
    trace = trace_answer(answer, retrieval)
    return _unique([*trace.cited, *(i for p in trace.parts for i in p.cited)])


def citation_scores(cited: list[Item], gold: set[Item] | set[tuple[str, str]]) -> dict[str, float | int | None]:
    """Citation precision (cited items that carry gold evidence) and recall (gold items that are cited);
    ``gold`` as ``Item``s or as the evaluation's ``(kind, id)`` pairs (``metrics…gold_rows()``)."""
    gold = {g if isinstance(g, Item) else Item(*g) for g in gold}
    hits = len(set(cited) & gold)
    return {
        "cited": len(set(cited)),
        "gold": len(gold),
        "hits": hits,
        "precision": hits / len(set(cited)) if cited else None,
        "recall": hits / len(gold) if gold else None,
    }


def answer_citation_scores(
    answer: str, retrieval: Retrieval, gold: set[Item] | set[tuple[str, str]]
) -> dict[str, float]:
    """The evaluation's model-free answer scores (its ``AnswerScorer`` shape once ``gold`` is bound):
    ``citation_precision`` and ``citation_recall``, each left out when undefined (nothing cited, no gold)."""
    scores = citation_scores(cited_items(retrieval, answer), gold)
    names = {"precision": "citation_precision", "recall": "citation_recall"}
    return {names[k]: float(v) for k, v in scores.items() if k in names and v is not None}
