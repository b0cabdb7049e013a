"""LightRAG 1.5.7 token control (retrieval/lightrag/v1_5_7/context.py) against full encodes and a literal oracle.

The module counts each JSON line once and adds the counts; these properties prove that sum equals
encoding the joined text, that the KG template's budget size equals encoding the template, and that
``fit_lines`` keeps exactly what 1.5.7's ``truncate_list_by_token_size`` keeps (written out here
literally, on the full text, as the oracle).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphrag_ui.base import tokens
from graphrag_ui.retrieval.lightrag.v1_5_7 import context as c157

PIECES = [
    "Alice Chen",
    "湖灯节",
    "青岚湖研究站",
    "'s",
    "x.",
    '"quoted"',
    "<SEP>",
    "  ",
    "\n",
    "é",
    "1999",
    "—",
    "🚀",
    "<|endoftext|>",
]
texts = st.lists(st.sampled_from(PIECES) | st.text(max_size=8), max_size=14).map(" ".join)
entity_lines = st.lists(st.tuples(texts, st.sampled_from(["person", "geo", "UNKNOWN"]), texts), max_size=8).map(
    lambda rows: [c157.entity_line(*row) for row in rows]
)
QUICK = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


def literal_fit(lines: list[str], budget: int) -> int:
    """1.5.7's truncate_list_by_token_size(separator="\\n") and TiktokenTokenizer.truncate_by_token_limit,
    step by step on the whole text."""
    if budget <= 0 or not lines:
        return 0
    enc = tokens.encoding("o200k_base")
    full = "\n".join(lines)
    toks = enc.encode(full, disallowed_special=())
    if len(toks) <= budget:
        end = len(full)
    else:
        _, offsets = enc.decode_with_offsets(toks)
        k, step, last, end = min(len(toks), budget), 1, None, None
        while True:
            cut = offsets[k] if k < len(toks) else len(full)
            if cut != last:
                if cut > 0 and len(enc.encode(full[:cut], disallowed_special=())) <= budget:
                    end = cut
                    break
                last = cut
            if k <= 1:
                break
            k, step = max(1, k - step), step * 2
        if end is None:
            if len(enc.encode(full[:1], disallowed_special=())) > budget:
                return 0
            end = 1
    kept, chars = 0, 0
    for i, line in enumerate(lines):
        chars += (1 if i else 0) + len(line)
        if chars > end:
            break
        kept = i + 1
    while kept > 0 and len(enc.encode("\n".join(lines[:kept]), disallowed_special=())) > budget:
        kept -= 1
    return kept


@QUICK
@given(entity_lines)
def test_line_counts_add_up_to_the_joined_text(lines):
    assert c157.joined_tokens(lines) == (tokens.count("\n".join(lines)) if lines else 0)


@QUICK
@given(entity_lines, entity_lines)
def test_kg_budget_size_equals_encoding_the_template(ents, rels):
    expected = c157.count(c157.kg_head(ents, rels) + c157.chunks_tail([], []))
    assert c157.kg_tokens_for_budget(ents, rels) == expected


@QUICK
@given(entity_lines, st.integers(-5, 900))
def test_fit_lines_keeps_what_1_5_7_keeps(lines, budget):
    kept = c157.fit_lines(lines, budget)
    assert kept == literal_fit(lines, budget)
    if kept:
        assert tokens.count("\n".join(lines[:kept])) <= budget


@QUICK
@given(
    st.lists(st.tuples(texts, st.sampled_from(["a.txt", "b.txt", "unknown_source", ""])), max_size=8),
    st.integers(0, 600),
)
def test_chunk_cut_fits_the_rendered_lines(rows, budget):
    rows = [{"content": c, "file_path": f} for c, f in rows]
    kept = c157.fit_chunks(rows, budget)
    if kept:
        assert tokens.count("\n".join(c157.chunk_lines(rows[:kept]))) <= budget
    assert kept <= c157.fit_lines([json.dumps({"content": r["content"]}, ensure_ascii=False) for r in rows], budget)


ODD_STARTS = [
    "",
    " ",
    "  lead",
    "\n",
    "\nline",
    "1999 was",
    '"q"',
    "(x)",
    "_id",
    "'s",
    "中文",
    "🚀",
    "\t",
    "<|endoftext|>",
]
many_paths = st.sampled_from([f"f{i}.txt" for i in range(12)] + ["unknown_source", ""])


@QUICK
@given(st.lists(st.tuples(st.sampled_from(ODD_STARTS), texts, many_paths), max_size=40))
def test_a_chunk_line_costs_its_content_line_plus_its_reference_field(rows):
    """``chunk_line_tokens`` counts no rendered line: each is its ``{"content"}`` line's count plus what the
    ``"reference_id"`` field adds (ids "", 1-digit and 2-digit here); both counts equal encoding the line."""
    rows = [{"content": start + text, "file_path": f} for start, text, f in rows]
    rendered = c157.chunk_lines(rows)
    got = c157.chunk_line_tokens(c157.content_lines(rows), rows)
    assert got == [(tokens.count(line), tokens.count(line + "\n")) for line in rendered]
    assert c157.chunks_joined_tokens(c157.content_lines(rows), rows) == c157.joined_tokens(rendered)


def test_the_reference_field_adds_the_same_to_every_golden_chunk():
    """On every chunk text of the LightRAG goldens (en, zh; both releases) and ids up to four digits."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "goldens"
    contents = {
        row["content"]
        for folder in ("lightrag-1.5.7", "lightrag-1.4.7")
        for lang in ("en", "zh")
        for row in json.loads((root / folder / lang / "kv_store_text_chunks.json").read_text(encoding="utf-8")).values()
    }
    assert len(contents) > 40
    for rid in ("", "1", "9", "10", "123", "1234"):
        extra = c157.reference_field_tokens(rid)
        for content in contents:
            line = c157.dumps({"content": content})
            with_id = c157.dumps({"reference_id": rid, "content": content})
            assert tokens.count(with_id) == tokens.count(line) + extra, (rid, content[:40])


def test_references_are_numbered_by_count_then_first_appearance():
    refs, ids = c157.references(["b.txt", "a.txt", "unknown_source", "a.txt", "", "c.txt", "b.txt", "a.txt"])
    assert refs == [("1", "a.txt"), ("2", "b.txt"), ("3", "c.txt")]
    assert ids == ["2", "1", "", "1", "", "3", "2", "1"]


@pytest.mark.parametrize(
    ("response_type", "user_prompt", "kg", "naive"),
    [  # measured with the lightrag-hku 1.5.7 wheel (rag_response / naive_rag_response, empty context)
        ("Multiple Paragraphs", "", 560, 554),
        ("", "", 560, 554),
        ("Bullet Points", "Answer in one short sentence.", 564, 557),
        ("要点列表", "请简短回答。", 564, 557),
    ],
)
def test_answer_template_sizes_match_the_wheel(response_type, user_prompt, kg, naive):
    assert c157.system_overhead("kg", response_type, user_prompt) == kg
    assert c157.system_overhead("naive", response_type, user_prompt) == naive
