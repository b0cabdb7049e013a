"""The SQL entity catalog: seed 003's ILIKE (English, Chinese, escaping) and names inside questions."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.index import store
from graphrag_ui.index.model import Entity, Index, Manifest
from graphrag_ui.index.servers import catalog
from graphrag_ui.index.servers.catalog import find_entities_by_name_or_alias as find
from tests.support.store_fixtures import small_index


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    index = small_index()
    index.entities += [
        Entity("e7", "A_B", "X", "underscore", occurrence=1),
        Entity("e8", "AXB", "X", "no underscore", occurrence=9),
        Entity("e9", "ART", "X", "short word", occurrence=1),
        Entity("e10", "猫", "ANIMAL", "single character", occurrence=50),
        Entity("e11", "ALICE SPRINGS", "GEO", "a town", aliases=["the alice"], occurrence=1),
    ]
    index.refresh()
    out = tmp_path_factory.mktemp("cat") / "idx"
    store.save(index, out)
    return store.load(out)


def kinds(hits):
    return [(h["name"], h["matched"]) for h in hits]


def test_forward_ilike_english_case_insensitive(saved):
    hits = find(saved, "alice", 10)
    assert kinds(hits) == [("ALICE", "name"), ("ALICE SPRINGS", "name")]  # then occurrence desc
    assert hits[0]["entity_id"] == "e1" and hits[0]["occurrence_count"] == 7
    assert set(hits[0]) >= {"entity_id", "name", "occurrence_count", "matched"}


def test_forward_alias_match_reports_the_alias(saved):
    hits = find(saved, "peking", 5)
    assert kinds(hits) == [("北京", "alias")] and hits[0]["matched_text"] == "Peking"


def test_chinese_name_and_alias(saved):
    assert kinds(find(saved, "北京", 5)) == [("北京", "name")]
    hits = find(saved, "爱丽", 5)
    assert kinds(hits) == [("ALICE", "alias")] and hits[0]["matched_text"] == "爱丽丝"


def test_non_ascii_case_and_full_width(saved):
    assert kinds(find(saved, "école", 5)) == [("ÉCOLE", "name")]
    assert kinds(find(saved, "ＡＬＩＣＥ ＳＰＲＩＮＧＳ", 5)) == [("ALICE SPRINGS", "name"), ("ALICE", "name in query")]


def test_percent_and_underscore_are_literal(saved):
    assert kinds(find(saved, "a_b", 5)) == [("A_B", "name")]  # not AXB
    assert kinds(find(saved, "50%", 5)) == [("50%_CLUB", "name")]
    assert find(saved, "%%", 5) == [] and find(saved, "x_x", 5) == []
    assert find(saved, "\\", 5) == []


def test_names_inside_a_question(saved):
    hits = find(saved, "Where does Alice live? 爱丽丝住在北京吗？", 10)
    assert kinds(hits) == [("北京", "name in query"), ("ALICE", "name in query")]


def test_quoted_nano_names_are_found_inside_a_question(saved):
    hits = find(saved, "Who is Zed?", 5)
    assert kinds(hits) == [('"ZED"', "name in query")] and hits[0]["matched_text"] == '"ZED"'
    assert kinds(find(saved, "zed", 5)) == [('"ZED"', "name")]


def test_alias_inside_a_question_and_word_boundaries(saved):
    hits = find(saved, "Tell me about the alice and the start of art.", 10)
    names = kinds(hits)
    assert ("ALICE SPRINGS", "alias in query") in names
    assert ("ART", "name in query") in names  # "art" as a word…
    assert len([n for n in names if n[0] == "ART"]) == 1
    assert kinds(find(saved, "starting smart", 10)) == []  # …but not inside "start"/"smart"
    # a one-character name is never found inside a question (it would match everything)
    assert kinds(find(saved, "我的猫叫什么", 10)) == []
    assert kinds(find(saved, "猫", 10)) == [("猫", "name")]  # the forward match still works


def test_order_limit_and_empty_text(saved):
    hits = find(saved, "a", 100)
    order = [(catalog.KINDS.index(h["matched"]), -h["occurrence_count"], h["name"]) for h in hits]
    assert order == sorted(order)
    assert find(saved, "a", 2) == hits[:2]
    assert find(saved, "   ", 5) == [] and find(saved, "alice", 0) == []


def test_unsaved_index_gets_an_in_memory_catalog():
    index = small_index()
    assert kinds(find(index, "zhang 张三", 5)) == [("张三", "name in query")]
    assert catalog.for_index(index) is catalog.for_index(index)
    index.entities = index.entities[:1]
    index.refresh()
    assert find(index, "张三", 5) == []  # rebuilt for the new entity list


def test_catalog_follows_a_resave(tmp_path):
    out = tmp_path / "idx"
    index = small_index()
    store.save(index, out)
    first = catalog.for_index(store.load(out))
    assert kinds(find(first, "张三", 5)) == [("张三", "name")]
    index.entities[4].name = "李四"
    index.refresh()
    store.save(index, out)
    second = catalog.for_index(store.load(out))
    assert second is not first
    assert kinds(find(second, "李四", 5)) == [("李四", "name")] and find(second, "张三", 5) == []


def test_resaves_and_many_indexes_do_not_pile_up_open_catalogs(tmp_path, monkeypatch):
    """A long-lived app that re-saves an index keeps one catalog for its folder, not one per save,
    and never more than KEPT_CATALOGS in all; a let-go engine is disposed."""
    monkeypatch.setattr(catalog, "_cache", type(catalog._cache)())
    out = tmp_path / "idx"
    index = small_index()
    opened = []
    for step in range(5):
        index.entities[4].name = f"李{step}"
        index.refresh()
        store.save(index, out)
        opened.append(catalog.for_index(store.load(out)))
        assert kinds(find(opened[-1], f"李{step}", 5)) == [(f"李{step}", "name")]
    assert len(catalog._cache) == 1 and next(iter(catalog._cache.values())) is opened[-1]
    monkeypatch.setattr(catalog, "KEPT_CATALOGS", 3)
    for n in range(5):
        store.save(small_index(), tmp_path / f"other{n}")
        catalog.open_catalog(tmp_path / f"other{n}")
    assert len(catalog._cache) == 3
    assert [Path(k[0]).parent.name for k in catalog._cache] == ["other2", "other3", "other4"]
    assert find(opened[-1], "李4", 5)  # a let-go catalog still answers (it reconnects), never a crash


def test_queries_from_many_threads(saved):
    memory = small_index()
    errors, results = [], []

    def work():
        try:
            for _ in range(20):
                results.append(len(find(saved, "alice in 北京", 10)) + len(find(memory, "ALICE", 10)))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and set(results) == {len(find(saved, "alice in 北京", 10)) + 1}


def test_any_sqlalchemy_url(tmp_path):
    index = small_index()
    url = f"sqlite:///{tmp_path / 'other.db'}"
    assert catalog.write_catalog(index.entities, url, table_name="idx_entities") == len(index.entities)
    opened = catalog.open_catalog(url, table_name="idx_entities")
    assert opened.count() == len(index.entities)
    assert kinds(find(opened, "beijing", 5)) == [("北京", "alias")]


def test_missing_catalog_is_a_clear_error(tmp_path):
    with pytest.raises(IndexFormatError, match="entity catalog is missing"):
        catalog.open_catalog(tmp_path)
    empty = Index(Manifest(source="build", embedder="hash", dimension=256), [], [], [], [], [])
    assert find(empty, "anything", 5) == []
