"""Builder units: chunking, record parsing, merging, the LLM cache."""

from __future__ import annotations

import json

import pytest

from graphrag_ui.base import tokens
from graphrag_ui.base.errors import UserError
from graphrag_ui.index.builder.cache import CachedLLM, cache_key
from graphrag_ui.index.builder.chunking import chunk_documents, chunk_id, split_text
from graphrag_ui.index.builder.merge import merge, normalise
from graphrag_ui.index.builder.records import EntityRecord, Extraction, RelationRecord, parse_records
from graphrag_ui.index.model import SEP, Chunk, Document

# ---- chunking ---------------------------------------------------------------------------------


def test_chunks_have_the_size_and_overlap_asked_for():
    text = " ".join(f"word{i}" for i in range(3000))
    ids = tokens.encode(text)
    parts = split_text(text, 200, 50)
    assert all(tokens.count(p) <= 200 for p in parts)
    assert all(tokens.count(p) >= 195 for p in parts[:-1])  # only the last window is short
    # consecutive windows share the overlap: the next chunk starts with the previous one's tail
    first, second = tokens.encode(parts[0]), tokens.encode(parts[1])
    assert tokens.decode(first[-50:]).strip()[:20] == tokens.decode(second[:50]).strip()[:20]
    # every token of the text is in some chunk (stride 150 over the token list)
    assert len(parts) == -(-(len(ids) - 200) // 150) + 1


def test_short_text_is_one_chunk_with_the_doc_hash():
    doc = Document("doc-x", "a.txt", "Alice met Bob in Paris.")
    [chunk] = chunk_documents([doc], 1200, 100)
    assert chunk.text == doc.text and chunk.id == chunk_id(doc.text) and chunk.order == 0
    assert chunk.tokens == tokens.count(doc.text) and chunk.doc_id == "doc-x"


def test_chinese_chunks_never_hold_a_broken_character():
    text = "北京大学的张三教授和李四在上海参加了关于人工智能的会议，会后他们去了杭州西湖。" * 60
    parts = split_text(text, 64, 16)
    assert len(parts) > 10
    assert not any("\ufffd" in p for p in parts)
    assert all(tokens.count(p) <= 64 for p in parts)
    # consecutive chunks overlap in text, so nothing is lost at the window edges
    for a, b in zip(parts, parts[1:], strict=False):
        assert b[:5] in a


def test_bad_chunk_settings_are_user_errors():
    with pytest.raises(UserError, match="overlap"):
        split_text("abc", 100, 100)
    with pytest.raises(UserError, match="at least 1"):
        split_text("abc", 0, 0)


def test_repeated_window_is_kept_once():
    docs = [Document("doc-1", "a.txt", "Same text."), Document("doc-2", "b.txt", "Same text.")]
    assert [c.doc_id for c in chunk_documents(docs)] == ["doc-1"]


# ---- record parsing ---------------------------------------------------------------------------

WELL_FORMED = (
    '("entity"<|>"Alice Smith"<|>"PERSON"<|>"Alice is a biologist.")##\n'
    '("entity"<|>Acme Corp<|>organization<|>A company in Paris.<|>Acme; ACME Corporation)##\n'
    '("relationship"<|>"Alice Smith"<|>"Acme Corp"<|>"Alice works at Acme."<|>"employment, work"<|>8)##\n'
    '("relationship"<|>"Acme Corp"<|>"Paris"<|>"Acme is based in Paris."<|>7)##\n'
    '("content_keywords"<|>"biology, companies")<|COMPLETE|>'
)


def test_well_formed_records_quoted_and_unquoted():
    warnings: list[str] = []
    ext = parse_records(WELL_FORMED, "a.txt chunk 0", warnings.append)
    assert warnings == []
    alice, acme = ext.entities
    assert (alice.name, alice.type, alice.description, alice.aliases) == (
        "Alice Smith",
        "person",
        "Alice is a biologist.",
        [],
    )
    assert (acme.name, acme.type, acme.aliases) == ("Acme Corp", "organization", ["Acme", "ACME Corporation"])
    work, based = ext.relations
    assert (work.source, work.target, work.keywords, work.strength) == (
        "Alice Smith",
        "Acme Corp",
        "employment, work",
        8.0,
    )
    assert (based.keywords, based.strength) == ("", 7.0)  # nano's 5-field form
    assert ext.keywords == ["biology", "companies"]


def test_records_on_separate_lines_without_hash_separators():
    text = '("entity"<|>Bob<|>person<|>Bob is a pilot.)\n("entity"<|>Oslo<|>geo<|>A city.)\n<|COMPLETE|>'
    ext = parse_records(text, "x", lambda m: None)
    assert [e.name for e in ext.entities] == ["Bob", "Oslo"]


def test_malformed_records_are_skipped_with_a_warning_naming_chunk_and_line():
    text = (
        "Here are the records:\n"
        '("entity"<|>"Alice"<|>"person"<|>"Alice.")##\n'
        '("entity"<|>"Broken"<|>"person")##\n'
        '("relationship"<|>"Alice"<|>"Bob"<|>"knows"<|>"k"<|>"x"<|>"y"<|>9)##\n'
        '("entity"<|>"Bob"<|>"person"<|>"Bob.")##\n'
        '("relationship"<|>"Alice"<|>"Bob"<|>"Friends."<|>"friendship"<|>high)\n'
        '("entity"<|>"no closing paren"\n'
        '("gadget"<|>"x")<|COMPLETE|>'
    )
    warnings: list[str] = []
    ext = parse_records(text, "notes.md chunk 3", warnings.append)
    assert [e.name for e in ext.entities] == ["Alice", "Bob"]
    assert [(r.source, r.target, r.strength) for r in ext.relations] == [("Alice", "Bob", 1.0)]  # bad strength -> 1.0
    assert len(warnings) == 4
    assert all(w.startswith("notes.md chunk 3, line ") for w in warnings)
    assert "line 3:" in warnings[0] and "4 or 5 fields" in warnings[0]
    assert "line 4:" in warnings[1] and "line 7:" in warnings[2] and "line 8:" in warnings[3]


# ---- merging ----------------------------------------------------------------------------------


def _chunk(i: int) -> Chunk:
    return Chunk(f"chunk-{i}", "doc-1", f"text {i}", i, 2, {"file_path": "a.txt"})


def test_case_and_quote_variants_merge_and_weights_sum():
    e1 = Extraction(
        [
            EntityRecord("Alice Smith", "person", "Alice is a biologist."),
            EntityRecord("Acme", "organization", "A firm."),
        ],
        [RelationRecord("Alice Smith", "Acme", "Alice works at Acme.", "work", 8)],
    )
    e2 = Extraction(
        [
            EntityRecord('"ALICE  SMITH"', "PERSON", "Alice leads a team."),
            EntityRecord("Alice Smith", "person", "Alice is a biologist."),
        ],
        [RelationRecord("acme", "“Alice Smith”", "Acme pays Alice.", "salary, Work", 2)],
    )
    e3 = Extraction([EntityRecord("Alice Smith", "person", "Alice sails.", ["Ally"])], [])
    merged = merge([_chunk(0), _chunk(1), _chunk(2)], [e1, e2, e3])
    names = [e.name for e in merged.entities]
    assert names == ["Alice Smith", "Acme"]
    alice = merged.entities[0]
    assert alice.description == SEP.join(["Alice is a biologist.", "Alice leads a team.", "Alice sails."])
    assert alice.source_chunk_ids == ["chunk-0", "chunk-1", "chunk-2"]
    assert alice.occurrence == 4 and alice.type == "person" and alice.aliases == ["Ally"]
    [rel] = merged.relations
    assert (rel.source, rel.target, rel.weight) == ("Alice Smith", "Acme", 10.0)
    assert rel.description == "Alice works at Acme.<SEP>Acme pays Alice."
    assert rel.keywords == "work, salary" and rel.source_chunk_ids == ["chunk-0", "chunk-1"]
    assert normalise(' "ALICE\tSmith" ') == normalise("alice smith")


def test_relation_to_an_unlisted_entity_creates_it_and_self_loops_are_dropped():
    ext = Extraction(
        [EntityRecord("Bob", "person", "Bob.")],
        [RelationRecord("Bob", "Oslo", "Bob lives in Oslo.", "home", 1), RelationRecord("Bob", "BOB", "x", "", 1)],
    )
    merged = merge([_chunk(0)], [ext])
    oslo = merged.entities[1]
    assert (oslo.name, oslo.type, oslo.description, oslo.source_chunk_ids) == ("Oslo", "unknown", "", ["chunk-0"])
    assert len(merged.relations) == 1 and merged.dropped_self_loops == 1


def test_long_descriptions_are_summarised_by_the_llm_or_cut_offline():
    fragments = [
        f"Alice did thing number {i} which took a long time and many words to explain properly." for i in range(40)
    ]
    exts = [Extraction([EntityRecord("Alice", "person", f)], []) for f in fragments]
    chunks = [_chunk(i) for i in range(40)]
    asked: list[tuple[str, int, bool]] = []

    def summarise(subject: str, frags: list[str], relation: bool) -> str:
        asked.append((subject, len(frags), relation))
        return "Alice did forty things."

    assert merge(chunks, exts, max_tokens=100, summarise=summarise).entities[0].description == "Alice did forty things."
    assert asked == [("Alice", 40, False)]
    offline = merge(chunks, exts, max_tokens=100).entities[0].description
    assert offline.startswith(fragments[0]) and tokens.count(offline) <= 110 and offline.count(SEP) >= 2


# ---- cache ------------------------------------------------------------------------------------


def test_cache_records_each_call_and_replays_it(tmp_path):
    path = tmp_path / "cache.json"
    calls: list[list[dict]] = []

    def llm(messages):
        calls.append(messages)
        return "answer " + messages[-1]["content"]

    live = CachedLLM(llm, "model-a", path)
    msgs = [{"role": "user", "content": "hi"}]
    assert live(msgs, "extract", "a.txt chunk 0") == "answer hi"
    assert live(msgs, "extract", "a.txt chunk 0") == "answer hi" and len(calls) == 1
    data = json.loads(path.read_text(encoding="utf-8"))
    key = cache_key("model-a", msgs)
    assert data == {key: {"model": "model-a", "kind": "extract", "ref": "a.txt chunk 0", "return": "answer hi"}}
    replay = CachedLLM(None, "model-a", path, replay=True)
    assert replay(msgs, "extract", "a.txt chunk 0") == "answer hi"
    with pytest.raises(UserError, match=r"replay cache miss for the report call of community 7"):
        replay([{"role": "user", "content": "other"}], "report", "community 7")


def test_a_failing_model_names_the_call_and_keeps_earlier_answers(tmp_path):
    path = tmp_path / "cache.json"
    answers = iter(["first"])

    def llm(messages):
        try:
            return next(answers)
        except StopIteration:
            raise UserError("LLM openai/x failed: RateLimitError", fix="check the key") from None

    cached = CachedLLM(llm, "openai/x", path)
    cached([{"role": "user", "content": "1"}], "extract", "a.txt chunk 0")
    with pytest.raises(UserError) as info:
        cached([{"role": "user", "content": "2"}], "extract", "a.txt chunk 1")
    text = str(info.value)
    assert "RateLimitError (during the extract call of a.txt chunk 1)" in text
    assert "check the key" in text and "the 1 answers so far are kept in" in text and "resume" in text
    assert len(json.loads(path.read_text(encoding="utf-8"))) == 1


def test_records_glued_together_or_in_a_numbered_list_are_split():
    text = (
        '1. ("entity"<|>"Alice"<|>"person"<|>"A (young) biologist.")("entity"<|>Bob<|>person<|>Bob.)\n'
        '2. ("relationship"<|>Alice<|>Bob<|>Friends.<|>friendship<|>6)<|COMPLETE|>'
    )
    warnings: list[str] = []
    ext = parse_records(text, "x", warnings.append)
    assert [(e.name, e.description) for e in ext.entities] == [("Alice", "A (young) biologist."), ("Bob", "Bob.")]
    assert [(r.source, r.target, r.strength) for r in ext.relations] == [("Alice", "Bob", 6.0)] and warnings == []
