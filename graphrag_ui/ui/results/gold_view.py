"""Explore with the loaded question set's gold: a "gold" mark on the rows that carry a gold item of the
current question, and the recall in one line below the run line.

The question is the set's question whose text is the one asked (after the same normalisation the
evidence match uses), or the one a link from Evaluate names (``gold_q``, with ``gold_item``: the item
that link followed, whose row is marked apart). The marks and the line come from
``evaluation.metrics.evaluate`` on the run shown, the same computation the Evaluate page scores with:
what the two pages say cannot disagree. A link with ``gold=bundled`` loads the index's bundled set.
"""

from __future__ import annotations

import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.evaluation.gold import Question
from graphrag_ui.evaluation.lookup import norm
from graphrag_ui.evaluation.metrics import RowMetrics, evaluate
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.ui.evaluate import eval_set
from graphrag_ui.ui.results import row_marks
from graphrag_ui.ui.results.row_marks import RowMark
from graphrag_ui.ui.shell.escape import md_escape, shown_error
from graphrag_ui.ui.shell.language import t, translate

GOLD = msg("★ gold")
FOLLOWED = msg("★ gold, followed")
SOURCE = "gold"
_KEPT = "_gold_scores"  # session: (id of the run, question id) -> (the run, its metrics); a few at most
_KEEP = 8


def question_of(set_questions: list[Question], asked: str, named: str | None) -> Question | None:
    """The set's question named by the link (when it is the one asked), else the one with the asked text."""
    wanted = norm(asked)
    if named:
        found = next((q for q in set_questions if q.id == named), None)
        if found is not None and norm(found.question) == wanted:
            return found
    return next((q for q in set_questions if norm(q.question) == wanted), None)


def scored(index: Index, result: Retrieval, question: Question) -> RowMetrics:
    """``evaluate`` of the run shown, once per run and question (the grids and the line share it)."""
    kept = st.session_state.setdefault(_KEPT, {})
    key = (id(result), question.id)
    if key not in kept or kept[key][0] is not result:
        if len(kept) >= _KEEP:
            kept.pop(next(iter(kept)))
        kept[key] = (result, evaluate(index, result, question))
    return kept[key][1]


def followed_item() -> int | None:
    """The 0-based item a link from Evaluate followed (``gold_item`` counts from 1, as the page's # does)."""
    raw = st.query_params.get("gold_item")
    try:
        return int(raw) - 1 if raw is not None else None
    except ValueError:
        return None


def link_notices(set_name: str, questions: list[Question], question: Question | None, has_set: bool) -> list[str]:
    """Each gold value of the link that cannot be used: what it said, and what is shown instead."""
    link = st.query_params
    out = []
    if "gold" in link and link["gold"] != eval_set.BUNDLED:
        out.append(
            msg("The link's gold={raw} is not a question set of this app (bundled); it was left out.", raw=link["gold"])
        )
    elif "gold" in link and not has_set:
        out.append(msg("The link's gold=bundled names the index's bundled set, but this index has none."))
    named = link.get("gold_q")
    if named is not None and has_set and all(q.id != named for q in questions):
        out.append(
            msg(
                "The link's gold_q={raw} is no question of the set {name}; the question's text was looked up instead.",
                raw=named,
                name=set_name,
            )
        )
    raw, n = link.get("gold_item"), followed_item()
    if raw is not None and question is not None and (n is None or not 0 <= n < len(question.gold())):
        out.append(
            msg(
                "The link's gold_item={raw} is no item of {id} (it has {n}); no row is marked as followed.",
                raw=raw,
                id=question.id,
                n=len(question.gold()),
            )
        )
    return out


def item_marks(metrics: RowMetrics, kind: str, followed: int | None) -> dict[str, str]:
    """Candidate id -> mark: rows where a gold item came in, and the dropped row that held a missed one."""
    marks: dict[str, str] = {}
    for n, item in enumerate(metrics.items):
        mark = FOLLOWED if n == followed else GOLD
        ids = [p.id for p in item.where if p.kind == kind]
        if item.missed is not None and item.missed.kind == kind and item.missed.id:
            ids.append(item.missed.id)
        for cid in ids:
            if marks.get(cid) != FOLLOWED:
                marks[cid] = mark
    return marks


def use_gold(index: Index, index_key: str) -> None:
    """Explore's first step for gold: a link's ``gold=bundled`` loads the index's bundled set before the
    grids draw (their marks come from ``gold_marks``, registered with the row-mark hook)."""
    if st.query_params.get("gold") == eval_set.BUNDLED and eval_set.loaded(index_key) is None:
        try:
            eval_set.load_bundled(index_key)
        except UserError as exc:
            st.error(shown_error(exc))


def gold_marks(result: Retrieval, kind: str) -> RowMark | None:
    """The grids' gold column: the rows where the question's gold came in, and the dropped rows that held
    a missed item (None when no set is loaded for the open index, or it lacks the question)."""
    index = st.session_state.get("_index")
    current = eval_set.loaded(st.session_state.get("_index_key", ""))
    if index is None or current is None:
        return None
    question = question_of(current.questions.questions, result.query, st.query_params.get("gold_q"))
    if question is None:
        return None
    marks = item_marks(scored(index, result, question), kind, followed_item())
    return RowMark(
        SOURCE,
        t("gold"),
        t(  # a column's help is Markdown: the set's name and the question's id are data
            "what of the question's gold this row carries ({set}, {id})",
            set=md_escape(current.questions.name),
            id=md_escape(question.id),
        ),
        {cid: translate(mark) for cid, mark in marks.items()},
    )


row_marks.register(gold_marks)


def gold_line(index: Index, index_key: str, result: Retrieval) -> None:
    """``gold: 3 of 4 evidence items in the context`` for the question asked, when the loaded set has it."""
    current = eval_set.loaded(index_key)
    questions = current.questions.questions if current else []
    question = question_of(questions, result.query, st.query_params.get("gold_q")) if current else None
    name = current.questions.name if current else ""
    for text in link_notices(name, questions, question, current is not None):
        st.warning(md_escape(translate(text)), icon=":material/link_off:")
    if current is None:
        return
    if question is None:
        st.caption(
            t(
                "gold: the loaded set {name} has no question with this text.",
                name=md_escape(current.questions.name),
            )
        )
        return
    metrics = scored(index, result, question)
    found = sum(r.found for r in metrics.items)
    st.caption(
        t(
            "gold ({id}): {found} of {n} evidence items in the context",
            id=md_escape(question.id),
            found=found,
            n=len(metrics.items),
        )
    )
