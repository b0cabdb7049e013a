"""The offline extractor (no LLM) on small English and Chinese texts, and Leiden levels."""

from __future__ import annotations

from graphrag_ui.index.builder.communities import cluster
from graphrag_ui.index.builder.offline import OfflineExtractor, sentences
from graphrag_ui.index.model import Entity, Relation

ENGLISH = (
    "The Tidewater Institute is a research centre on Kelp Bay. However, its director Alice Chen moved to Paris "
    "in 2021. Dr. Bob Jones, a friend of Alice Chen, works at NASA and at the Bank of England. "
    "This year Chen said the survey would continue. In March the team met again."
)
CHINESE = "张三是北京大学的教授，他和李四一起在上海工作。李四毕业于清华大学。去年，张三和李四在杭州参加了人工智能会议。"


def _run(text: str):
    return OfflineExtractor([text]).extract(text)


def test_english_people_places_and_organisations_without_stop_words():
    ext = _run(ENGLISH)
    found = {e.name: e.type for e in ext.entities}
    assert found["Alice Chen"] == "person"
    assert found["Bob Jones"] == "person"  # "Dr." is a title, not a sentence end
    assert found["Paris"] == "location"
    assert found["Kelp Bay"] == "location"
    assert found["Tidewater Institute"] == "organization"
    assert found["Bank of England"] == "organization"
    assert found["NASA"] == "organization"
    for stop in ("The", "However", "This", "In", "March", "Dr", "Chen"):
        assert stop not in found, stop
    # "Chen" alone is counted as a mention of Alice Chen
    alice = next(e for e in ext.entities if e.name == "Alice Chen")
    assert alice.mentions == 3 and "director Alice Chen moved to Paris" in alice.description


def test_english_relations_link_entities_of_one_sentence():
    ext = _run(ENGLISH)
    pairs = {frozenset((r.source, r.target)): r for r in ext.relations}
    assert frozenset(("Alice Chen", "Paris")) in pairs
    assert "moved" in pairs[frozenset(("Alice Chen", "Paris"))].keywords
    assert frozenset(("Bob Jones", "NASA")) in pairs
    assert frozenset(("Kelp Bay", "Paris")) not in pairs  # different sentences
    assert pairs[frozenset(("Bob Jones", "Alice Chen"))].description.startswith("Dr. Bob Jones, a friend")


def test_chinese_names_places_and_organisations_by_jieba_tags():
    ext = _run(CHINESE)
    found = {e.name: e.type for e in ext.entities}
    assert found["张三"] == "person" and found["李四"] == "person"
    assert found["上海"] == "location" and found["杭州"] == "location"
    assert found["北京大学"] == "organization" and found["清华大学"] == "organization"
    for stop in ("他", "他们", "去年", "一起"):
        assert stop not in found
    pairs = {frozenset((r.source, r.target)): r for r in ext.relations}
    assert pairs[frozenset(("张三", "李四"))].strength == 2.0  # two sentences mention both
    zhang = next(e for e in ext.entities if e.name == "张三")
    assert (
        zhang.description == "张三是北京大学的教授，他和李四一起在上海工作。去年，张三和李四在杭州参加了人工智能会议。"
    )
    assert frozenset(("上海", "清华大学")) not in pairs


def test_sentence_split_keeps_abbreviations_and_splits_chinese():
    assert sentences("Dr. Smith met Mr. Lee. They left.") == ["Dr. Smith met Mr. Lee.", "They left."]
    assert sentences("第一句。第二句！第三句") == ["第一句。", "第二句！", "第三句"]


def test_leiden_levels_for_a_graph_larger_than_the_cluster_size():
    names = [f"N{i:02d}" for i in range(24)]
    entities = [Entity(f"ent-{n}", n, "x", "") for n in names]
    relations = []
    for group in range(2):  # two dense groups of 12, weakly joined
        members = names[group * 12 : group * 12 + 12]
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if (int(a[1:]) + int(b[1:])) % 3:
                    relations.append(Relation(f"rel-{a}{b}", a, b, ""))
    relations.append(Relation("rel-bridge", "N00", "N12", ""))
    result = cluster(entities, relations, max_cluster_size=5, seed=0xDEADBEEF)
    levels = {c.level for c in result.communities}
    assert levels >= {0, 1}
    by_id = {c.id: c for c in result.communities}
    for com in result.communities:
        if com.level == 1:
            assert com.parent in by_id and by_id[com.parent].level == 0
            assert set(com.members) <= set(by_id[com.parent].members)
    assert all(len(result.by_entity[n]) >= 2 for n in names)  # every node sits at level 0 and level 1
    assert [lvl for lvl, _ in result.by_entity["N00"]] == sorted(lvl for lvl, _ in result.by_entity["N00"])
    again = cluster(entities, relations, max_cluster_size=5, seed=0xDEADBEEF)
    assert [(c.id, c.members) for c in again.communities] == [(c.id, c.members) for c in result.communities]


def test_isolated_entities_get_no_community():
    entities = [Entity("ent-a", "A", "x", ""), Entity("ent-b", "B", "x", ""), Entity("ent-c", "C", "x", "")]
    result = cluster(entities, [Relation("rel-ab", "A", "B", "")])
    assert "C" not in result.by_entity and [c.members for c in result.communities] == [["A", "B"]]


def test_titles_eras_and_headlines_do_not_become_entities():
    text = (
        "CORVANE STAR TAKES THE HERON CUP\n\n"
        "In 409 AC Warden Tobias Fenn met Dr. Elspeth Marrin at the Guild of Tidewrights. "
        "The warden said the Master would decide. Later the Lantern Isle ferry left."
    )
    found = {e.name: e.type for e in _run(text).entities}
    assert found["Tobias Fenn"] == "person" and found["Elspeth Marrin"] == "person"
    assert found["Guild of Tidewrights"] == "organization"
    assert found["Lantern Isle"] == "location"
    for wrong in ("AC", "Warden", "Master", "Dr", "CORVANE STAR TAKES THE HERON CUP", "Warden Tobias Fenn"):
        assert wrong not in found, wrong


def test_chinese_words_tagged_nr_without_a_surname_are_not_people():
    found = {e.name: e.type for e in _run("王磊受伤后在医院康复，手表的续航很长，他安静地训练。").entities}
    assert found["王磊"] == "person"
    for word in ("康复", "续航", "安静"):  # all three are tagged nr by jieba
        assert found.get(word) != "person", word
