"""Issue 28: citations resolved against real sample contexts, and the support estimate on hand-made cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag_ui.citations import Item, citation_scores, citations_json, cited_items, summary_line, trace_answer
from graphrag_ui.index import store
from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.services.query import run_query

ROOT = Path(__file__).resolve().parents[2]
EN = ROOT / "data" / "sample" / "en" / "index"
QUESTION = "Who founded the Guild of Tidewrights, and what did he build?"


@pytest.fixture(scope="module")
def index():
    return store.load(EN)


@pytest.fixture(scope="module")
def ms_local(index) -> Retrieval:
    return run_query(index, "ms.local", QUESTION)


@pytest.fixture(scope="module", params=["1.4.7", "1.5.7"])
def hybrid(index, request) -> Retrieval:
    return run_query(
        index,
        "lightrag.hybrid",
        QUESTION,
        {"version": request.param},
        hl=["guild founder"],
        ll=["Guild of Tidewrights"],
    )


def _by_short_id(r: Retrieval, kind: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for c in r.candidates(kind):
        if c.in_context:
            out.setdefault(str(c.data["short_id"]), []).append(c.id)
    return out


def test_ms_local_ids_resolve_to_their_rows_and_invented_ones_are_flagged(ms_local):
    entities = _by_short_id(ms_local, "entities")
    first, second = list(entities)[:2]
    answer = (
        f"Anselm Varrick founded the guild [Data: Entities ({first}, {second}); Reports (0)]. "
        "He built a sluice [Data: Entities (99999); Relationships (1)]. The sluice had forty gates."
    )
    trace = trace_answer(answer, ms_local)
    by_table = {(c.table, c.sentence[:20]): c for c in trace.citations}
    ents = by_table[("Entities", "Anselm Varrick found")]
    assert [i.items for i in ents.ids] == [
        [Item("entities", entities[first][0])],
        [Item("entities", entities[second][0])],
    ]
    assert all(i.in_context for i in ents.ids)
    assert by_table[("Reports", "Anselm Varrick found")].ids[0].items == [Item("communities", "0")]
    invented = by_table[("Entities", "He built a sluice [D")]
    assert not invented.in_context and invented.ids[0].note == "not in the Entities table"
    assert invented.sentence == "He built a sluice [Data: Entities (99999); Relationships (1)]."
    relationships = by_table[("Relationships", "He built a sluice [D")]
    assert not relationships.ids[0].in_context  # none of the relationships reached this context
    assert trace.not_in_context == 2
    # the third sentence cites nothing: its support is estimated, and kept apart from the cited items
    last = trace.sentences[-1]
    assert not last.cited and last.estimates and all(e.score >= 0.35 for e in last.estimates)
    assert not set(trace.estimated) & set(trace.cited)
    line = summary_line(trace)
    assert line.startswith("answer cites 3 of ") and "2 citations not in the context" in line


def test_sources_that_share_an_id_all_resolve_and_say_so(ms_local):
    (citation,) = trace_answer("It says so [Data: Sources (0)].", ms_local).citations
    chunks = [c.id for c in ms_local.chunks if c.in_context]
    assert [i.item_id for i in citation.ids[0].items] == chunks
    assert citation.ids[0].note == f"{len(chunks)} rows share id 0"


def test_unused_share_counts_the_tokens_of_items_never_cited(ms_local):
    report = next(c for c in ms_local.communities if c.in_context)
    trace = trace_answer(f"A claim [Data: Reports ({report.data['short_id']})].", ms_local)
    total = sum(
        c.tokens
        for k in ("entities", "relations", "communities", "chunks")
        for c in ms_local.candidates(k)
        if c.in_context
    )
    assert sum(s.total for s in trace.split) == total
    reports = next(s for s in trace.split if s.section == "communities")
    assert reports.cited == report.tokens and reports.cited_items == 1
    assert trace.unused_share == pytest.approx((total - report.tokens) / total)


def test_lightrag_references_resolve_per_version(hybrid):
    version = hybrid.params["version"]
    chunks = [c for c in hybrid.chunks if c.in_context]
    first_path = chunks[0].data["file_path"]
    answer = f"Anselm Varrick founded the guild [1].\n\n### References\n\n- [1] {first_path}\n- [77] invented.md\n"
    trace = trace_answer(answer, hybrid)
    listed = [c for c in trace.citations if c.table == "References"]
    assert [c.in_context for c in listed] == [True, False]
    behind = {Item("chunks", c.id) for c in chunks if c.data["file_path"] == first_path}
    assert set(listed[0].ids[0].items) == behind
    inline = next(c for c in trace.citations if c.table == "[n]")
    assert inline.in_context and inline.sentence == "Anselm Varrick founded the guild [1]."
    if version == "1.5.7":
        assert "past the reference list" in listed[1].ids[0].note
    else:
        assert inline.ids[0].note == "read as the Document Chunks id (no reference list)"
        assert inline.ids[0].items == [Item("chunks", chunks[0].id)]


def test_lightrag_147_kg_and_dc_citations(index):
    r = run_query(
        index, "lightrag.hybrid", QUESTION, {"version": "1.4.7"}, hl=["guild founder"], ll=["Guild of Tidewrights"]
    )
    entity = next(c for c in r.entities if c.in_context)
    relation = next(c for c in r.relations if c.in_context)
    chunk = next(c for c in r.chunks if c.in_context)
    answer = (
        "An answer.\n\nReferences:\n"
        f"- [KG] {entity.data['name']}\n- [KG] {relation.data['entity2']} - {relation.data['entity1']}\n"
        f"- [DC] {chunk.data['file_path']}\n- [KG] Nobody At All\n"
    )
    got = [(c.table, c.in_context, [i.kind for i in c.ids[0].items][:1]) for c in trace_answer(answer, r).citations]
    assert got == [("KG", True, ["entities"]), ("KG", True, ["relations"]), ("DC", True, ["chunks"]), ("KG", False, [])]


def test_citations_json_is_one_entry_per_marker_with_resolved_items(ms_local):
    trace = trace_answer("X [Data: Reports (0, 99999)].", ms_local)
    (entry,) = citations_json(trace)
    assert entry["text"] == "[Data: Reports (0, 99999)]" and entry["table"] == "Reports"
    assert entry["ids"][0] == {
        "id": "0",
        "in_context": True,
        "items": [{"kind": "communities", "item_id": "0"}],
        "note": "",
    }
    assert entry["ids"][1]["in_context"] is False and entry["ids"][1]["items"] == []
    json.dumps(entry)


def test_citation_precision_and_recall_for_the_evaluation(ms_local):
    cited = cited_items(ms_local, "X [Data: Reports (0, 1)].")
    assert cited == [Item("communities", "0"), Item("communities", "1")]
    scores = citation_scores(cited, {Item("communities", "0"), Item("chunks", "c-9")})
    assert scores == {"cited": 2, "gold": 2, "hits": 1, "precision": 0.5, "recall": 0.5}
    assert citation_scores([], set())["precision"] is None
    assert citation_scores(cited, {("communities", "0")})["precision"] == 0.5  # the evaluation's (kind, id) pairs
    from graphrag_ui.citations import answer_citation_scores

    got = answer_citation_scores("X [Data: Reports (0, 1)].", ms_local, {("communities", "1"), ("chunks", "c")})
    assert got == {"citation_precision": 0.5, "citation_recall": 0.5}
    assert answer_citation_scores("No markers.", ms_local, set()) == {}


# --- the support estimate, pinned on hand-made contexts -------------------------------------------------


def _retrieval(mode: str, entities: dict[str, str], chunks: dict[str, str]) -> Retrieval:
    return Retrieval(
        mode=mode,
        query="q",
        params={},
        entities=[Candidate(k, k, {"description": v}, i, "", tokens=10) for i, (k, v) in enumerate(entities.items())],
        chunks=[Candidate(k, k[:10], {"text": v}, i, "", tokens=100) for i, (k, v) in enumerate(chunks.items())],
    )


EN_CONTEXT = _retrieval(
    "nano.local",
    {
        "ANSELM": "Anselm Varrick, engineer who founded the Guild of Tidewrights in 288 AC.",
        "ORLA": "Orla Fenn, Warden of the Saltbinders' Guild, who published the accounts.",
        "SLUICE": "The Varrick Sluice, forty oak-and-iron gates across the narrows.",
        "CITY": "Marrowick, a port city on low islands in the delta.",
        "COURANT": "The Marrowick Courant, the city's newspaper.",
    },
    {
        "chunk-1": "Anselm Varrick founded the guild and built the Varrick Sluice, completed in 302 AC after fourteen years.",
        "chunk-2": "Orla Fenn brought the Tide Ledger to the Courant; the scandal ended her father's wardenship.",
        "chunk-3": "Salt pans on the Brackwater Shoals need sea water; the levees were cut for feed channels.",
    },
)


def test_english_support_estimate_on_hand_made_sentences():
    answer = (
        "Anselm Varrick founded the Guild of Tidewrights in 288 AC. "
        "The sluice was completed in 302 AC after fourteen years. "
        "Orla Fenn published the accounts. "
        "Nobody knows what the weather was like."
    )
    trace = trace_answer(answer, EN_CONTEXT)
    assert trace.style == "none" and trace.citations == []
    best = [[(e.item_id, e.score) for e in s.estimates] for s in trace.sentences]
    assert best[0][0] == ("ANSELM", 1.0)
    assert best[1][0] == ("chunk-1", 1.0)
    assert best[2][0][0] == "ORLA" and best[2][0][1] == 1.0
    assert best[3] == []  # no context item holds these words: unsupported, said so
    assert not trace.sentences[3].supported
    assert summary_line(trace).startswith(
        "answer cites nothing (the prompt asks for no citations); support estimated for 3 of 4"
    )
    split = {s.section: s for s in trace.split}
    assert split["chunks"].estimated == 200 and split["chunks"].unused == 100 and split["chunks"].cited == 0


ZH_CONTEXT = _retrieval(
    "nano.local",
    {
        "跑步记录": "跑步记录保存在训练日志应用里，每次跑步的距离和配速都有记录。",
        "游泳": "游泳课程每周二在体育馆举行。",
        "体检报告": "年度体检报告由社区医院出具，存放在健康档案中。",
    },
    {"chunk-zh": "我把每次跑步的距离和配速都记在训练日志应用里，周末会整理成表格。"},
)


def test_chinese_support_estimate_uses_jieba_words():
    answer = "你的跑步数据记录在训练日志应用里。游泳课程在周二。今天天气很好。"
    trace = trace_answer(answer, ZH_CONTEXT)
    best = [[e.item_id for e in s.estimates] for s in trace.sentences]
    assert [s.text for s in trace.sentences] == [
        "你的跑步数据记录在训练日志应用里。",
        "游泳课程在周二。",
        "今天天气很好。",
    ]
    assert best[0][:2] == ["chunk-zh", "跑步记录"] or best[0][:2] == ["跑步记录", "chunk-zh"]
    assert best[1] == ["游泳"]
    assert best[2] == []


def test_a_cited_sentence_gets_no_estimate():
    r = EN_CONTEXT
    r2 = Retrieval(**{**r.__dict__, "mode": "ms.local"})
    for i, c in enumerate(r2.entities):
        c.data = {**c.data, "short_id": str(i)}
    trace = trace_answer("Anselm Varrick founded the Guild of Tidewrights [Data: Entities (0)].", r2)
    assert trace.sentences[0].cited == [Item("entities", "ANSELM")] and trace.sentences[0].estimates == []


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "\x00\x01",
        "[" * 10000,
        "[Data: " * 5000,
        "### References\n" + "- [1] x\n" * 3000,
        "。" * 50000,
        "a. " * 40000,
    ],
)
def test_hostile_answers_trace_without_error(answer, ms_local):
    trace = trace_answer(answer, ms_local)
    assert trace.unused_share is None or 0 <= trace.unused_share <= 1


def test_drift_questions_are_traced_one_by_one_against_their_own_step(ms_local):
    from graphrag_ui.retrieval.core.tree import QuestionNode, QuestionTree

    first = next(c for c in ms_local.entities if c.in_context)
    step = f"The founder [Data: Entities ({first.data['short_id']}, 99999)]."
    tree = QuestionTree(
        status="done",
        nodes=[
            QuestionNode(0, QUESTION, 0),
            QuestionNode(1, "Who founded it?", 1, answer=step, local=ms_local.to_dict()),
            QuestionNode(2, "Never run", 1),
        ],
    )
    drift = Retrieval(mode="ms.drift", query=QUESTION, params={}, entities=ms_local.entities, tree=tree)
    trace = trace_answer("In short, the guild's founder built the sluice.", drift)
    (part,) = trace.parts
    assert part.scope == "question 1" and part.cited == [Item("entities", first.id)]
    assert [c.scope for c in trace.all_citations()] == ["question 1"] and trace.not_in_context == 1
    split = {s.section: s for s in trace.split}
    assert split["entities"].cited == first.tokens  # a step's citation counts as used in the answer's context


def test_an_empty_context_is_said_plainly():
    trace = trace_answer("The capital is Paris.", Retrieval(mode="lightrag.bypass", query="q", params={}))
    assert trace.unused_share is None and trace.items == 0
    assert summary_line(trace) == "the answer had no context items to cite (nothing was put into the context)"
