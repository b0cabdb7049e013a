"""Question sets: our JSONL and the public benchmarks' own files, bad records named, bounds kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.evaluation import gold
from graphrag_ui.evaluation.formats import load_questions, read_questions
from graphrag_ui.evaluation.lookup import lookup, norm
from graphrag_ui.index.store_load import load

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "sample"


def test_our_format_round_trips() -> None:
    line = {
        "id": "q1",
        "question": "Who?",
        "answer": "A",
        "evidence": ["fact"],
        "evidence_docs": ["a.md"],
        "evidence_chunks": ["c1"],
        "evidence_entities": ["A"],
        "hl_keywords": ["x"],
        "ll_keywords": ["y"],
        "type": "local",
    }
    qs = read_questions(json.dumps(line) + "\n")
    assert qs.source_format == "jsonl" and qs.questions[0].to_json() == line
    assert read_questions(qs.to_jsonl()).questions == qs.questions


def test_bad_lines_are_named_and_skipped_or_refused() -> None:
    text = "\n".join(
        [
            '{"id": "q1", "question": "ok"}',
            "not json",
            '{"id": "q2"}',
            '["a list"]',
            '{"id": "q1", "question": "again"}',
            '{"id": "q3", "question": "ok", "evidence": [1, 2]}',
            "",
            '{"id": 4, "question": "numeric ids are read as text"}',
        ]
    )
    qs = read_questions(text, "set.jsonl")
    assert [q.id for q in qs.questions] == ["q1", "4"]
    assert [p.line for p in qs.skipped] == [2, 3, 4, 5, 6]
    said = [str(p) for p in qs.skipped]
    assert said[0].startswith("line 2: not JSON")
    assert "'question' must be a non-empty string" in said[1]
    assert "must be a JSON object, got list" in said[2]
    assert "repeats line 1" in said[3]
    assert "'evidence' must be a list of strings" in said[4]
    with pytest.raises(UserError) as refused:
        read_questions(text, "set.jsonl", on_bad="refuse")
    assert "5 bad record(s): line 2: not JSON" in str(refused.value) and "(and 2 more)" in str(refused.value)


def test_a_file_of_nothing_readable_is_refused() -> None:
    with pytest.raises(UserError, match="no readable question"):
        read_questions("garbage\n\n[1, 2\n")


def test_multihop_rag() -> None:
    record = {
        "query": "Did X report Y?",
        "answer": "Yes",
        "question_type": "inference_query",
        "evidence_list": [
            {"title": "Story A", "source": "S", "published_at": "2023", "fact": "X said Y."},
            {"title": "Story A", "source": "S", "published_at": "2023", "fact": "Y happened."},
        ],
    }
    q = read_questions(json.dumps([record, record | {"query": "Second?"}])).questions
    assert (q[0].id, q[0].question, q[0].answer, q[0].type) == ("mh-1", "Did X report Y?", "Yes", "inference_query")
    assert q[0].evidence == ["X said Y.", "Y happened."] and q[0].evidence_docs == ["Story A"]
    assert q[1].id == "mh-2"


def test_hotpotqa_and_2wiki_resolve_supporting_sentences() -> None:
    record = {
        "_id": "abc",
        "question": "Where was B born?",
        "answer": "Paris",
        "type": "bridge",
        "supporting_facts": [["B", 1], ["Paris", 0]],
        "context": [["B", ["B is a painter.", " B was born in Paris."]], ["Paris", ["Paris is in France."]]],
    }
    bad = record | {"_id": "bad", "supporting_facts": [["B", 7]]}
    qs = read_questions(json.dumps([record, bad]))
    (q,) = qs.questions
    assert qs.source_format == "hotpotqa" and q.id == "abc"
    assert q.evidence == ["B was born in Paris.", "Paris is in France."] and q.evidence_docs == ["B", "Paris"]
    assert [p.line for p in qs.skipped] == [2] and "(B, 7) is not in 'context'" in str(qs.skipped[0])


def test_graphrag_bench() -> None:
    lines = [
        {
            "id": "g1",
            "source": "Novel-1",
            "question": "Q?",
            "answer": "A",
            "question_type": "Fact Retrieval",
            "evidence": "E.",
        },
        {"id": "g2", "source": "Novel-1", "question": "Q2?", "answer": "B", "question_type": "Creative Generation"},
    ]
    qs = read_questions("\n".join(json.dumps(x) for x in lines))
    assert qs.source_format == "graphrag-bench"
    assert [(q.id, q.type, q.evidence) for q in qs.questions] == [
        ("g1", "Fact Retrieval", ["E."]),
        ("g2", "Creative Generation", []),
    ]


def test_bounds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match="no such question file"):
        load_questions(tmp_path / "missing.jsonl")
    big = tmp_path / "big.jsonl"
    big.write_text('{"id": "a", "question": "q"}\n' * 3)
    monkeypatch.setattr("graphrag_ui.evaluation.formats.MAX_FILE_BYTES", 10)
    with pytest.raises(UserError, match="more than 10"):
        load_questions(big)
    monkeypatch.setattr("graphrag_ui.evaluation.formats.MAX_FILE_BYTES", 10_000)
    monkeypatch.setattr("graphrag_ui.evaluation.formats.MAX_QUESTIONS", 2)
    many = "\n".join(json.dumps({"id": str(i), "question": "q"}) for i in range(5))
    qs = read_questions(many)
    assert len(qs.questions) == 2 and "more than 2 questions" in str(qs.skipped[0])
    with pytest.raises(ValueError, match="characters long"):
        gold.question_from({"id": "x", "question": "q" * (gold.MAX_TEXT_CHARS + 1)})
    with pytest.raises(ValueError, match="items, more than"):
        gold.question_from({"id": "x", "question": "q", "evidence": ["e"] * (gold.MAX_ITEMS + 1)})
    latin = tmp_path / "latin1.jsonl"
    latin.write_bytes(b'{"id": "q", "question": "caf\xe9"}\n')
    with pytest.raises(UserError, match="not UTF-8"):
        load_questions(latin)
    deep = "[" * 100_000
    with pytest.raises(UserError):
        read_questions(deep)


def test_hostile_text_stays_data() -> None:
    qs = read_questions(json.dumps({"id": "<script>", "question": "\x1b[2J **bold** {evil}", "evidence": ["{0}"]}))
    assert qs.questions[0].question == "\x1b[2J **bold** {evil}" and qs.questions[0].evidence == ["{0}"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_sample_ships_a_gold_set_that_resolves_in_its_index(lang: str) -> None:
    qs = load_questions(SAMPLES / lang / "questions.jsonl", on_bad="refuse")
    assert len(qs.questions) >= 12 and not qs.skipped
    lk = lookup(load(SAMPLES / lang / "index"))
    for q in qs.questions:
        assert q.evidence and q.evidence_docs and q.evidence_entities, q.id
        for value in q.evidence:
            assert lk.chunks_holding(norm(value)), (q.id, value)
        for value in q.evidence_docs:
            assert lk.chunks_of_doc(value), (q.id, value)
        for value in q.evidence_entities:
            assert lk.entities_named(value), (q.id, value)


def test_the_shipped_hotpotqa_subset_reads_as_published() -> None:
    path = SAMPLES.parent / "benchmarks" / "hotpotqa" / "hotpotqa_train_30.json"
    qs = load_questions(path, on_bad="refuse")
    assert qs.source_format == "hotpotqa" and len(qs.questions) == 30 and not qs.skipped
    first = qs.questions[0]
    assert (first.id, first.answer, first.type) == ("5a77ec115542992a6e59dff7", "a spirit", "bridge")
    assert first.evidence_docs == ["Alû", "Lilu (mythology)"]
    assert first.evidence[1] == "A lilu or lilû is a masculine Akkadian word for a spirit, related to Alû, demon."
