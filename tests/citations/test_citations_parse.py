"""Issue 28: the citation markers of every answer format, as the references write them and as models bend them."""

from __future__ import annotations

import time

import pytest

from graphrag_ui.citations.graphrag_markers import MAX_IDS, find_markers, read_ids
from graphrag_ui.citations.lightrag_markers import find_entries, references_start
from graphrag_ui.citations.sentences import split


def groups(text: str) -> list[tuple[str, list[str], bool]]:
    return [(g.table, g.ids, g.more) for m in find_markers(text) for g in m.groups]


# --- GraphRAG: [Data: <table> (ids)] -----------------------------------------------------------------

GRAPHRAG_CORPUS = [
    # (answer as a model returns it, the groups read)
    (
        "Anselm Varrick founded the guild [Data: Entities (26, 27); Relationships (3, 12)].",
        [("Entities", ["26", "27"]), ("Relationships", ["3", "12"])],
    ),
    (
        "The flood changed the city [Data: Reports (2, 7, 64, 46, 34, +more)].",
        [("Reports", ["2", "7", "64", "46", "34"])],
    ),
    ("Several sources agree [Data: Sources (1, 2, 3, 4, 5, + more)].", [("Sources", ["1", "2", "3", "4", "5"])]),
    ("See [Data:Entities(5,7);Sources(1)].", [("Entities", ["5", "7"]), ("Sources", ["1"])]),
    ("Loose [ Data : Entities ( 5 , 7 ) ; Claims ( 2 ) ].", [("Entities", ["5", "7"]), ("Claims", ["2"])]),
    ("Comma between tables [Data: Sources (0), Entities (26)].", [("Sources", ["0"]), ("Entities", ["26"])]),
    ("A range [Data: Entities (5-7)].", [("Entities", ["5", "6", "7"])]),
    ("An en-dash range [Data: Reports (3–5, 9)].", [("Reports", ["3", "4", "5", "9"])]),
    ("Spaced range [Data: Sources (1 - 3)].", [("Sources", ["1", "2", "3"])]),
    (
        "Singular names [Data: Entity (5); Report (2); Source (8)].",
        [("Entities", ["5"]), ("Reports", ["2"]), ("Sources", ["8"])],
    ),
    ("Lower case [data: entities (5)].", [("Entities", ["5"])]),
    ("No opening bracket Data: Reports (1, 2)] here.", [("Reports", ["1", "2"])]),
    ("No closing bracket [Data: Reports (1, 2) and on.", [("Reports", ["1", "2"])]),
    ("No brackets at all Data: Sources (4).", [("Sources", ["4"])]),
    ("No Data: prefix [Entities (5, 7)].", [("Entities", ["5", "7"])]),
    ("Hash ids [Data: Entities (#5, #7)].", [("Entities", ["5", "7"])]),
    ("行会由安塞尔姆创立【数据：实体（26，27）；关系（3）】。", [("Entities", ["26", "27"]), ("Relationships", ["3"])]),
    ("水闸建于302年[Data：Sources（0、1）]。", [("Sources", ["0", "1"])]),
    ("报告如是说（Data: Reports (1；2)）。", [("Reports", ["1", "2"])]),
    ("全角括号［Data: Reports (5, +更多)］。", [("Reports", ["5"])]),
    ("Two markers [Data: Entities (1)] and [Data: Reports (2)].", [("Entities", ["1"]), ("Reports", ["2"])]),
]


@pytest.mark.parametrize(("text", "expected"), GRAPHRAG_CORPUS)
def test_graphrag_markers_are_read_as_written(text, expected):
    assert [(table, ids) for table, ids, _more in groups(text)] == expected


def test_more_is_kept_apart_from_the_ids():
    assert groups("[Data: Reports (2, 7, +more)]") == [("Reports", ["2", "7"], True)]
    assert groups("[Data: Reports (2, 7)]") == [("Reports", ["2", "7"], False)]
    assert read_ids("1, 2, 等")[1] is True


def test_marker_text_and_offsets_are_exact():
    text = "He built it [Data: Entities (26); Sources (0)]. Then more."
    (marker,) = find_markers(text)
    assert marker.text == "[Data: Entities (26); Sources (0)]"
    assert text[marker.start : marker.end] == marker.text


def test_what_was_read_loosely_is_said():
    (marker,) = find_markers("Data: Entities (5-7, 1-1000, 9-2")
    notes = " ".join([*marker.notes, *marker.groups[0].notes])
    assert "no opening bracket" in notes and "no closing parenthesis" in notes
    assert (
        "range 5-7 read as 3 ids" in notes and "1-1000 is too wide" in notes and "9-2 is too wide or reversed" in notes
    )
    assert marker.groups[0].ids == ["5", "6", "7", "1-1000", "9-2"]
    (unknown,) = find_markers("[Data: Widgets (1)]")
    assert unknown.groups[0].table == "Widgets"


@pytest.mark.parametrize(
    "text",
    [
        "See the note (below) and [link](http://example.org).",
        "Markdown [text] and (parentheses) and [Note (1)].",
        "Data shows growth (5%).",
        "",
    ],
)
def test_text_that_is_no_marker_is_left_alone(text):
    assert groups(text) == []


def test_hostile_markers_stay_bounded():
    huge = "[Data: Entities (" + ", ".join(str(i) for i in range(5000)) + ")]"
    (marker,) = find_markers(huge)
    assert 0 < len(marker.groups[0].ids) <= MAX_IDS and "no closing parenthesis" in marker.groups[0].notes
    assert len(read_ids(", ".join(str(i) for i in range(5000)))[0]) == MAX_IDS
    started = time.perf_counter()
    find_markers("[Data: " * 20000 + "Entities (" * 5000)
    find_markers("[" * 50000 + "Data:" + "(" * 50000)
    assert time.perf_counter() - started < 5


# --- LightRAG: ### References and [n] ------------------------------------------------------------------

LIGHTRAG_157 = """## The founder

Anselm Varrick founded the Guild of Tidewrights in 288 AC [1]. He built the Varrick Sluice [1, 2], later
rebuilt [3-4]【5】 and [^6].

### References

- [1] 02-guild-of-tidewrights.md
* [2] 03-saltbinders-guild.md
- [12] invented.md
"""


def test_lightrag_157_list_and_inline_markers():
    entries = find_entries(LIGHTRAG_157)
    inline = [(e.ids, e.text) for e in entries if not e.in_list]
    listed = [(e.ids, e.title) for e in entries if e.in_list]
    assert inline == [(["1"], "[1]"), (["1", "2"], "[1, 2]"), (["3", "4"], "[3-4]"), (["5"], "【5】"), (["6"], "[^6]")]
    assert listed == [
        (["1"], "02-guild-of-tidewrights.md"),
        (["2"], "03-saltbinders-guild.md"),
        (["12"], "invented.md"),
    ]


@pytest.mark.parametrize(
    "heading",
    [
        "### References",
        "**References**",
        "References:",
        "## References：",
        "### 参考文献",
        "**参考资料：**",
        "References",
    ],
)
def test_reference_headings_as_models_write_them(heading):
    text = f"Answer [1].\n\n{heading}\n\n- [1] a.md\n- [2] b.md\n"
    listed = [e.ids for e in find_entries(text) if e.in_list]
    assert listed == [["1"], ["2"]], heading


def test_a_trailing_list_without_a_heading_is_the_reference_list():
    text = "Answer with no heading.\n\n[1] a.md\n[2] b.md\n"
    assert references_start(text) == text.index("[1] a.md")
    assert [e.title for e in find_entries(text)] == ["a.md", "b.md"]


def test_lightrag_147_kg_and_dc_lines():
    text = """Anselm Varrick founded the guild.

References:
1. [KG] Anselm Varrick
2. [KG] Anselm Varrick - Guild of Tidewrights
- [DC] 02-guild-of-tidewrights.md
- 【DC】 03-saltbinders-guild.md
"""
    got = [(e.tag, e.ids) for e in find_entries(text)]
    assert got == [
        ("KG", ["Anselm Varrick"]),
        ("KG", ["Anselm Varrick - Guild of Tidewrights"]),
        ("DC", ["02-guild-of-tidewrights.md"]),
        ("DC", ["03-saltbinders-guild.md"]),
    ]


def test_chinese_references_with_full_width_brackets():
    text = (
        "安塞尔姆创立了潮工行会【1】。他修建了水闸［2］。\n\n### 参考文献\n\n- 【1】 02-guild.md\n- ［2］：03-salt.md\n"
    )
    entries = find_entries(text)
    assert [(e.ids, e.title, e.in_list) for e in entries] == [
        (["1"], "", False),
        (["2"], "", False),
        (["1"], "02-guild.md", True),
        (["2"], "03-salt.md", True),
    ]


def test_numbered_list_without_brackets_is_read_and_said():
    text = "Answer.\n\n### References\n1. 02-guild.md\n"
    (entry,) = find_entries(text)
    assert entry.ids == ["1"] and entry.title == "02-guild.md" and "no brackets" in " ".join(entry.notes)


def test_markdown_links_are_no_markers():
    assert find_entries("See [the guide](http://x) and [Table 1](#t).") == []


def test_hostile_lightrag_answers_stay_bounded():
    started = time.perf_counter()
    entries = find_entries("### References\n" + "- [1] x.md\n" * 5000 + "[" * 40000)
    find_entries("[1, " * 30000)
    assert len([e for e in entries if e.in_list]) <= 200
    assert time.perf_counter() - started < 5


# --- sentences ---------------------------------------------------------------------------------------


def test_sentences_keep_markers_with_the_claim_they_follow():
    text = "# Title\n\nThe guild was founded in 288 AC. It built a sluice. [Data: Sources (0)]\n- A bullet, 3,100 crowns!\n"
    markers = [(m.start, m.end) for m in find_markers(text)]
    got = [text[s:e] for s, e in split(text, markers=markers)]
    assert got == [
        "The guild was founded in 288 AC.",
        "It built a sluice. [Data: Sources (0)]",
        "A bullet, 3,100 crowns!",
    ]


def test_chinese_sentences_end_at_full_width_stops():
    text = "安塞尔姆创立了行会。他修建了水闸【数据：实体（1）】。最后一句"
    got = [text[s:e] for s, e in split(text)]
    assert got == ["安塞尔姆创立了行会。", "他修建了水闸【数据：实体（1）】。", "最后一句"]
