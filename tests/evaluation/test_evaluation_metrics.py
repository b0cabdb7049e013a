"""The no-model metrics of issue 26 pinned on a hand-built index and a hand-built Retrieval: every number
below is counted by hand from the texts and candidates written here."""

from __future__ import annotations

import json

import pytest

from graphrag_ui.evaluation.gold import GoldItem, Question
from graphrag_ui.evaluation.lookup import has_word, norm, words
from graphrag_ui.evaluation.metrics import evaluate
from graphrag_ui.evaluation.why import classify
from graphrag_ui.index.model import Chunk, Document, Entity, Index, Manifest, Relation
from graphrag_ui.retrieval.core.result import Budget, Candidate, Retrieval

C1 = "The Varrick Sluice was built in 302 AC by Anselm Varrick."
C2 = "It had forty gates of oak and iron."
C3 = "林晓的静息心率平均是52次/分。"
C4 = "A copy of the first chunk of beta."
C5 = "Lonely text that no mode ever looks at."
C6 = 'The "Great Gate" was closed in an hour.'


def _index() -> Index:
    docs = [
        Document("d1", "alpha.md", C1 + " " + C2),
        Document("d2", "beta.md", C3 + C4),
        Document("d3", "gamma.md", C5),
    ]
    chunks = [
        Chunk("c1", "d1", C1, 0, 20),
        Chunk("c2", "d1", C2, 1, 30),
        Chunk("c3", "d2", C3, 0, 12),
        Chunk("c4", "d2", C4, 1, 9),
        Chunk("c5", "d3", C5, 0, 9),
        Chunk("c6", "d3", C6, 1, 11),
    ]
    entities = [
        Entity(
            "e1",
            "Ysolde Varrick",
            "PERSON",
            "Master of the guild, called the Lock Queen.",
            aliases=["Lock Queen"],
            source_chunk_ids=["c5"],
        ),
        Entity("e2", "Anselm Varrick", "PERSON", "Founder of the guild."),
        Entity("e3", "Tobias Fenn", "PERSON", "Warden of the salt guild."),
        Entity("e4", "Orla Fenn", "PERSON", "His daughter."),
    ]
    relations = [
        Relation("r1", "Ysolde Varrick", "Anselm Varrick", "great-granddaughter of"),
        Relation("r2", "Ysolde Varrick", "Orla Fenn", "ally of"),
    ]
    return Index(Manifest("build", "hash", 8), docs, chunks, entities, relations, [])


def _cand(cid: str, label: str, order: int, tokens: int, dropped: str = "", score: float | None = None) -> Candidate:
    return Candidate(cid, label, {}, order, "why", score=score, in_context=not dropped, dropped=dropped, tokens=tokens)


def _retrieval(context: str | None = None) -> Retrieval:
    entities = [
        _cand("e1", "Ysolde Varrick", 0, 10),
        _cand("e2", "Anselm Varrick", 1, 8, "below threshold (sim 0.410 < 0.5)", score=0.41),
        _cand("e3", "Tobias Fenn", 2, 7, "over budget (Entities: 900+120 > 1000 tokens)"),
    ]
    chunks = [
        _cand("c1", C1[:20], 0, 20),
        _cand("c2", C2[:20], 1, 30),
        _cand("c3", C3[:10], 2, 12, "beyond chunk_top_k 2"),
        _cand("c4", C4[:20], 3, 9, "round-robin: duplicate of entity chunk"),
    ]
    text = context if context is not None else "\n".join(["Ysolde Varrick: Master of the guild.", "r1", C1, C2])
    return Retrieval(
        "test.mode",
        "q",
        {"top_k": 2},
        entities=entities,
        relations=[_cand("r1", "Ysolde Varrick — Anselm Varrick", 0, 5)],
        chunks=chunks,
        budgets=[Budget("total", 65, 1000)],
        context=text,
    )


QUESTION = Question(
    "q1",
    "Who built the sluice?",
    answer="Anselm Varrick built it",
    evidence=["built in 302 AC by Anselm   Varrick. It had FORTY gates", "静息心率平均是52次/分"],
    evidence_docs=["alpha.md"],
    evidence_chunks=["c4"],
    evidence_entities=["Lock Queen", "Anselm Varrick", "Tobias Fenn"],
)


def _by_value(row):
    return {r.item.value: r for r in row.items}


def test_every_metric_of_a_hand_counted_row() -> None:
    row = evaluate(_index(), _retrieval(), QUESTION)
    # found: the split evidence, alpha.md (c1), Lock Queen; missed: the Chinese string, Anselm, Tobias, c4
    assert row.evidence_recall == pytest.approx(3 / 7)
    assert row.entity_recall == pytest.approx(1 / 3)
    assert row.all_evidence is False
    assert row.first_evidence_position == 1
    assert row.answer_in_context is False  # "anselm varrick built it" is not one phrase in the context
    assert row.answer_token_recall == 1.0  # anselm, varrick, built, it: each is a word of the context
    assert row.context_tokens == 65
    assert row.unused_token_share == pytest.approx(5 / 65)  # only r1 carries no found gold item
    assert row.gold_rows() == {("chunks", "c1"), ("chunks", "c2"), ("entities", "e1")}


def test_an_evidence_string_split_across_two_neighbouring_chunks_is_found_in_both() -> None:
    row = evaluate(_index(), _retrieval(context="c1 and c2 kept apart"), QUESTION)  # no direct match in the text
    found = _by_value(row)["built in 302 AC by Anselm   Varrick. It had FORTY gates"]
    assert found.found and [(p.kind, p.id, p.position) for p in found.where] == [
        ("chunks", "c1", 1),
        ("chunks", "c2", 2),
    ]


def test_neighbouring_chunks_join_on_their_overlap() -> None:
    from graphrag_ui.evaluation.metrics import _joined

    a = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda"
    b = "delta epsilon zeta eta theta iota kappa lambda mu nu xi"  # the chunker's overlap: a's tail, b's head
    assert _joined(a, b) == a + " mu nu xi"
    assert _joined("ends here.", ". starts there") == "ends here. . starts there"  # no 1-character "overlap"


def test_an_alias_finds_its_entity_and_names_where() -> None:
    found = _by_value(evaluate(_index(), _retrieval(), QUESTION))["Lock Queen"]
    assert found.found and [(p.kind, p.id, p.label, p.position) for p in found.where] == [
        ("entities", "e1", "Ysolde Varrick", 1)
    ]


def test_a_chinese_string_is_found_across_a_line_break_and_missed_with_its_reason() -> None:
    row = evaluate(_index(), _retrieval(context="林晓的静息\n心率平均是５２次/分"), QUESTION)  # full-width digits: NFKC
    assert _by_value(row)["静息心率平均是52次/分"].found
    missed = _by_value(evaluate(_index(), _retrieval(), QUESTION))["静息心率平均是52次/分"].missed
    assert (missed.reason, missed.kind, missed.id, missed.detail) == (
        "beyond_top_k",
        "chunks",
        "c3",
        "beyond chunk_top_k 2",
    )


@pytest.mark.parametrize(
    ("value", "reason", "detail"),
    [
        ("Anselm Varrick", "below_threshold", "below threshold (sim 0.410 < 0.5)"),
        ("Tobias Fenn", "token_budget", "over budget (Entities: 900+120 > 1000 tokens)"),
        ("c4", "duplicate", "round-robin: duplicate of entity chunk"),
    ],
)
def test_each_drop_reason_is_read_from_the_candidate(value: str, reason: str, detail: str) -> None:
    missed = _by_value(evaluate(_index(), _retrieval(), QUESTION))[value].missed
    assert (missed.reason, missed.detail) == (reason, detail)


def test_below_threshold_keeps_the_score_and_the_place() -> None:
    missed = _by_value(evaluate(_index(), _retrieval(), QUESTION))["Anselm Varrick"].missed
    assert (missed.score, missed.order, missed.tokens) == (0.41, 2, 8)


def test_never_a_candidate_and_not_in_the_index() -> None:
    q = Question(
        "q2",
        "?",
        evidence=["no mode ever looks", "a sentence nobody wrote"],
        evidence_docs=["gamma.md", "delta.md"],
        evidence_entities=["Orla Fenn", "Nobody"],
    )
    got = {v: (r.found, r.missed.reason) for v, r in _by_value(evaluate(_index(), _retrieval(), q)).items()}
    assert got == {
        "no mode ever looks": (False, "never_candidate"),
        "a sentence nobody wrote": (False, "not_in_index"),
        "gamma.md": (False, "never_candidate"),
        "delta.md": (False, "not_in_index"),
        "Orla Fenn": (False, "never_candidate"),
        "Nobody": (False, "not_in_index"),
    }
    details = {v: r.missed.detail for v, r in _by_value(evaluate(_index(), _retrieval(), q)).items()}
    # graph-aware: the text's chunk is a source of an in-context entity; the entity a neighbour of one
    assert details["no mode ever looks"] == (
        "held by chunk(s) c5, a source of in-context entity Ysolde Varrick, but this mode never took that text"
    )
    assert details["Orla Fenn"] == "a neighbour of in-context entity Ysolde Varrick, but this mode never recalled it"
    naive = _retrieval()
    naive.entities = []  # a mode that recalls no entities gets no entity words
    details = {v: r.missed.detail for v, r in _by_value(evaluate(_index(), naive, q)).items()}
    assert details["no mode ever looks"] == "held by chunk(s) c5, which this mode never considered"


def test_a_fact_with_quotes_is_found_in_its_item_whatever_the_context_quoting() -> None:
    r = _retrieval(context=json.dumps([{"content": C6}]) + '\n"The ""Great Gate"" was closed"')  # JSON and CSV quoting
    r.chunks.append(_cand("c6", C6[:20], 4, 11))
    found = _by_value(evaluate(_index(), r, Question("q", "?", evidence=['the "Great Gate" was closed'])))
    assert [(p.kind, p.id, p.position) for p in found['the "Great Gate" was closed'].where] == [("chunks", "c6", 3)]


def test_a_document_is_found_by_id_title_or_stem() -> None:
    for name in ("d1", "alpha.md", "ALPHA"):
        q = Question("q", "?", evidence_docs=[name])
        assert evaluate(_index(), _retrieval(), q).evidence_recall == 1.0, name


def test_a_question_without_gold_has_no_recall_rather_than_zero() -> None:
    row = evaluate(_index(), _retrieval(), Question("q", "?"))
    assert (row.evidence_recall, row.entity_recall, row.all_evidence, row.answer_in_context) == (
        None,
        None,
        False,
        None,
    )


def test_normalisation() -> None:
    assert norm("  The\u00a0Lock\n\tQUEEN ") == "the lock queen"
    assert norm("ＡＢＣ１２") == "abc12"  # NFKC folds full-width forms
    assert norm("静息 心率\n平均") == "静息心率平均"  # no gap between CJK characters
    assert words("Anselm Varrick, 302 AC; 林晓") == ["anselm", "varrick", "302", "ac", "林", "晓"]
    assert has_word("the lock queen", "lock") and not has_word("the padlock queen", "lock")
    assert has_word("林晓的记录", "晓") and not has_word("林晓", "记")


@pytest.mark.parametrize(
    ("dropped", "reason"),
    [
        ("below threshold (sim 0.410 < 0.5)", "below_threshold"),
        ("after the first score below threshold (nano-vectordb stops there)", "below_threshold"),
        ("below min_community_rank 5 (rating 3)", "below_threshold"),
        ("beyond chunk_top_k 20", "beyond_top_k"),
        ("rank 7: below the top drift_k_followups=3", "beyond_top_k"),
        ("over max_entity_tokens 6000 (6,120 tokens so far)", "token_budget"),
        ("over budget (naive_max_token_for_text_unit: 4100/4000 tokens)", "token_budget"),
        ("#3 by score, over the reduce budget (900/800 tokens, global_max_token_for_community_report)", "token_budget"),
        ("round-robin: duplicate of local #2", "duplicate"),
        ("no community report at level ≤ 1", "other"),
    ],
)
def test_classify_reads_the_modes_own_reasons(dropped: str, reason: str) -> None:
    assert classify(dropped) == reason


def test_goldless_context_items_are_all_idle() -> None:
    row = evaluate(_index(), _retrieval(), Question("q", "?", evidence_entities=["Nobody"]))
    assert row.unused_token_share == 1.0 and row.first_evidence_position is None


def test_gold_item_kinds_in_order() -> None:
    assert [i.kind for i in QUESTION.gold()] == ["evidence", "evidence", "doc", "chunk", "entity", "entity", "entity"]
    assert QUESTION.gold()[2] == GoldItem("doc", "alpha.md")
