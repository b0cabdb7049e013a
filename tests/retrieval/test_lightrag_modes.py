"""Unit and property tests of the lightrag.* steps: polling, truncation, token split, explanations."""

from __future__ import annotations

import json
import threading
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.index.importers import lightrag as importer
from graphrag_ui.index.lightrag_precount import entity_item, relation_item, rest_text, stored_tokens
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Keywords
from graphrag_ui.retrieval.lightrag.chunks import Owner, owners_with_chunks, weighted_polling
from graphrag_ui.retrieval.lightrag.explain import SEED_ORDER
from graphrag_ui.retrieval.lightrag.v1_4_7 import context as ctx
from graphrag_ui.retrieval.registry import get_mode
from tests.conftest import GOLDENS

QUERY = "How is Tidewater Institute related to Kelp Bay?"


@cache
def index(corpus: str = "en"):
    return importer.import_dir(GOLDENS / "lightrag-1.4.7" / corpus, embedder="hash")


def run(
    mode: str,
    params: dict | None = None,
    hl=("location",),
    ll=("Tidewater Institute", "Kelp Bay"),
    query=QUERY,
    corpus="en",
):
    spec = get_mode(f"lightrag.{mode}")
    deps = Deps(embed=HashEmbedder().embed, keywords=Keywords(list(hl), list(ll), "user"))
    return spec.func(index(corpus), query, spec.resolve(params or {}), deps)


def test_weighted_polling_linear_quota_and_leftover():
    owners = [Owner("a", ["a1", "a2"]), Owner("b", ["b1", "b2", "b3", "b4"]), Owner("c", ["c1", "c2"])]
    # quotas 5, 3, 1: a gives 2 (3 left over), b 3, c 1; leftovers go to the first owner with chunks left
    assert [c for c, _ in weighted_polling(owners, 5)] == ["a1", "a2", "b1", "b2", "b3", "c1", "b4", "c2"]
    assert [c for c, _ in weighted_polling([Owner("x", ["1", "2", "3"])], 2)] == ["1", "2"]
    # banker's rounding as Python's round(): n=3, max 4 -> 4, round(2.5)=2, 1
    many = [Owner(str(i), [f"{i}-{j}" for j in range(9)]) for i in range(3)]
    picked = [c for c, _ in weighted_polling(many, 4)]
    assert [c.split("-")[0] for c in picked] == ["0"] * 4 + ["1"] * 2 + ["2"]


def test_owner_dedup_keeps_first_owner_and_sorts_by_occurrence():
    owners, counts, removed = owners_with_chunks(
        [("A", ["c1", "c2"]), ("B", ["c3", "c2"]), ("C", []), ("D", ["c2", "c4", "c9"])], exclude={"c9"}
    )
    assert [o.label for o in owners] == ["A", "B", "D"] and counts["c2"] == 3
    assert owners[0].chunks == ["c2", "c1"] and owners[1].chunks == ["c3"] and owners[2].chunks == ["c4"]
    assert removed == {"c9"}


def test_prefix_fit_is_1_4_7_truncation():
    assert ctx.prefix_fit([5, 5, 5], 0) == 0
    assert ctx.prefix_fit([5, 5, 5], 10) == 2
    assert ctx.prefix_fit([5, 5, 5], 9) == 1
    assert ctx.prefix_fit([5, 5, 5], 15) == 3
    assert ctx.prefix_fit([20, 1], 10) == 0


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=1, max_value=99999),
    st.text(min_size=1, max_size=30),
    st.text(max_size=20),
    st.text(max_size=200),
)
def test_item_token_split_is_exact(position, name, etype, description):
    cache = ctx.TokenCache()
    item = entity_item(position, name, etype, description)
    assert ctx.entity_tokens(cache, item) == ctx.count(json.dumps(item, ensure_ascii=False))
    rel = relation_item(position, name, etype, description)
    assert ctx.relation_tokens(cache, rel) == ctx.count(json.dumps(rel, ensure_ascii=False))


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=40), st.text(max_size=60))
def test_system_overhead_formula(response_type, user_prompt):
    expected = ctx.SYS_PROMPT_TOKENS_EMPTY["kg"] + ctx.slot_tokens(response_type or "Multiple Paragraphs")
    assert ctx.system_overhead("kg", response_type, user_prompt) == expected + ctx.slot_tokens(user_prompt)


def test_default_overheads_match_1_4_7_measurements():
    assert ctx.system_overhead("kg", "Multiple Paragraphs", "") == 348
    assert ctx.system_overhead("naive", "Multiple Paragraphs", "") == 288


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["local", "global", "hybrid", "mix"]),
    st.integers(min_value=0, max_value=1500),
    st.integers(min_value=0, max_value=2500),
    st.integers(min_value=0, max_value=6000),
    st.integers(min_value=1, max_value=30),
)
def test_budgets_never_exceeded_and_order_kept(mode, ent_budget, rel_budget, total, top_k):
    params = {
        "max_entity_tokens": ent_budget,
        "max_relation_tokens": rel_budget,
        "max_total_tokens": total,
        "top_k": top_k,
    }
    r = run(mode, params)
    for kind, limit in (("entities", ent_budget), ("relations", rel_budget)):
        cands = [c for c in r.candidates(kind) if not c.dropped.startswith("round-robin")]
        flags = [c.in_context for c in cands]
        assert flags == sorted(flags, reverse=True), "kept items must be a prefix"
        assert sum(c.tokens for c in cands if c.in_context) <= limit
    budgets = {b.section: b for b in r.budgets}
    if budgets["chunks"].limit is not None:
        assert budgets["chunks"].used <= max(budgets["chunks"].limit, 0)
    if r.context:
        assert budgets["total"].used <= total or budgets["chunks"].used == 0


def test_explanations_budgets_trace_and_messages():
    r = run("hybrid", {"max_entity_tokens": 400, "top_k": 10})
    assert r.context.startswith("-----Entities(KG)-----")
    assert [t.name for t in r.trace] == [n for n in SEED_ORDER if n in {t.name for t in r.trace}]
    assert {"keywords", "local path", "global path", "round-robin merge", "token control", "assemble"} <= {
        t.name for t in r.trace
    }
    assert all(t.ms >= 0 for t in r.trace)
    whys = [c.why for c in r.entities]
    assert any(w.startswith("local #1 (entity #1 by vector, sim") for w in whys)
    assert any(w.startswith("global #") and " via relation " in w for w in whys)
    assert any(c.dropped.startswith("round-robin: duplicate of local #") for c in r.entities + r.relations)
    assert any(c.dropped.startswith("over max_entity_tokens 400 (") for c in r.entities)
    assert any("WEIGHT" in c.why or "VECTOR" in c.why for c in r.chunks)
    sections = {b.section: b for b in r.budgets}
    assert sections["entities"].limit == 400 and sections["total"].limit == 30000
    assert sections["system prompt"].used == 348 and sections["buffer"].used == 100
    assert r.messages[0]["role"] == "system" and r.context in r.messages[0]["content"]
    assert r.messages[-1] == {"role": "user", "content": QUERY}


def test_dropped_items_are_counted_only_when_read_and_as_1_4_7_counts_them():
    """The cut counts the costs up to the first item over the budget; a reader of the dropped rows gets the
    rest, each the o200k count of its JSON at its position, and the reason's running total is their sum."""
    r = run("hybrid", {"max_entity_tokens": 400, "max_relation_tokens": 500, "top_k": 10})
    for name, item_of, limit in (
        ("entities", lambda c, i: entity_item(i, c.data["name"], c.data["type"], c.data["description"]), 400),
        ("relations", lambda c, i: relation_item(i, c.data["entity1"], c.data["entity2"], c.data["description"]), 500),
    ):
        rows = getattr(r, name)
        costs = rows._tail.costs
        kept = len(rows._head)  # the rows made with the run: the kept ones
        assert 0 < kept < len(costs) and len(costs._made) == kept + 1  # the first over the budget, no further
        assert sum(c.in_context for c in rows) == kept
        over = [c for c in rows if c.dropped.startswith("over max_")]
        assert len(over) == len(costs) - kept and len(costs._made) == len(costs)
        running = 0
        for i, c in enumerate([c for c in rows if c.in_context] + over):
            assert c.tokens == ctx.count(json.dumps(item_of(c, i + 1), ensure_ascii=False)), (name, i)
            running += c.tokens
            if i >= kept:
                assert (
                    c.dropped == f"over max_{name[:-1] if name == 'relations' else 'entity'}_tokens {limit} ({running})"
                )


def test_readers_of_one_retrieval_at_once_count_each_dropped_item_once_and_alike():
    """Two threads reading a retrieval's dropped rows at the same time extend its costs and running totals
    together (the first read counts them): every reader gets the rows a lone reader gets."""
    params = {"max_entity_tokens": 400, "max_relation_tokens": 500, "top_k": 10}
    alone = [(c.id, c.tokens, str(c.dropped)) for c in run("hybrid", params).relations]
    shared = run("hybrid", params)
    seen, barrier = [], threading.Barrier(6)

    def read() -> None:
        barrier.wait()
        seen.append([(c.id, c.tokens, str(c.dropped)) for c in shared.relations])

    threads = [threading.Thread(target=read) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [alone] * 6 and len(shared.relations._tail.costs._made) == len(shared.relations._tail.costs)


def test_chunk_drop_reasons():
    r = run("mix", {"chunk_top_k": 2})
    assert sum(c.in_context for c in r.chunks) == 2
    assert any(c.dropped == "beyond chunk_top_k 2" for c in r.chunks)
    assert any(c.why.startswith("vector chunk #1 sim") for c in r.chunks)
    tight = run("local", {"max_total_tokens": 1700})
    assert any(c.dropped.startswith("over chunk budget") for c in tight.chunks)


def test_local_without_ll_runs_global_path_as_1_4_7():
    r = run("local", ll=())
    assert any(w.startswith("low-level keywords are empty") for w in r.warnings)
    assert any("runs the global path" in w for w in r.warnings)
    assert {t.name for t in r.trace} >= {"global path"} and "local path" not in {t.name for t in r.trace}
    assert all(c.data["path"] == "global" for c in r.entities)


def test_both_keywords_empty_long_query_gives_no_context():
    long_query = "Please tell me everything you know about how the institute and the bay are connected."
    r = run("hybrid", hl=(), ll=(), query=long_query)
    assert r.context == "" and any("no context" in w for w in r.warnings)


def test_nothing_found_gives_no_context_with_reason():
    r = run("local", {"max_entity_tokens": 10, "max_relation_tokens": 1}, hl=())
    assert r.context == "" and any("no entity or relation" in w for w in r.warnings)
    assert not any(c.in_context for c in r.chunks)


def test_naive_mode_uses_no_keywords():
    r = run("naive", {"chunk_top_k": 3}, corpus="zh", query="青岚湖研究站和青岚湖之间有什么关系？")
    assert r.context.startswith("\n---Document Chunks(DC)---") and r.keywords.source == ""
    assert len(r.selected_ids("chunks")) == 3
    assert r.messages and "{content_data}" not in r.messages[0]["content"]


def test_ilike_and_hybrid_recall_start_the_local_path():
    r = run("local", {"recall": "ilike"}, ll=("Kelp Bay",))
    assert r.entities and "ILIKE" in r.entities[0].why and r.entities[0].label == "Kelp Bay"
    h = run("local", {"recall": "hybrid", "top_k": 5}, ll=("Kelp Bay",))
    assert h.entities[0].label == "Kelp Bay" and "hybrid" in h.entities[0].why


def test_specs_expose_1_4_7_names_and_defaults():
    spec = get_mode("lightrag.mix")
    defaults = spec.defaults()
    assert defaults["top_k"] == 40 and defaults["chunk_top_k"] == 20
    assert (defaults["max_entity_tokens"], defaults["max_relation_tokens"], defaults["max_total_tokens"]) == (
        6000,
        8000,
        30000,
    )
    assert defaults["kg_chunk_pick_method"] == "VECTOR" and defaults["related_chunk_number"] == 5
    assert defaults["cosine_better_than_threshold"] == 0.2 and defaults["recall"] == "vector"
    assert spec.uses_keywords and not get_mode("lightrag.naive").uses_keywords
    assert "recall" not in get_mode("lightrag.naive").defaults()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.text(min_size=1, max_size=12), st.text(max_size=8), st.text(max_size=60)), max_size=5),
    st.lists(
        st.tuples(st.text(min_size=1, max_size=12), st.text(min_size=1, max_size=12), st.text(max_size=60)), max_size=5
    ),
)
def test_kg_budget_tokens_from_cached_items_are_exact(ents, rels):
    cache = ctx.TokenCache()
    e_items = [entity_item(i + 1, *e) for i, e in enumerate(ents)]
    r_items = [relation_item(i + 1, *r) for i, r in enumerate(rels)]
    assert ctx.array_tokens(cache, e_items) == ctx.count(json.dumps(e_items, ensure_ascii=False) + "\n")
    assert ctx.kg_tokens_for_budget(cache, e_items, r_items) == ctx.count(ctx.kg_context(e_items, r_items, []))
    # the same from each item's part, as a sweep builds it (the parts made at position 1, printed at i + 1)
    e_parts = [ctx.item_part(cache, entity_item(1, *e)) for e in ents]
    r_parts = [ctx.item_part(ctx.TokenCache(), relation_item(1, *r)) for r in rels]
    assert ctx.kg_part(cache, e_parts, r_parts) == (
        ctx.count(ctx.kg_context(e_items, r_items, [])),
        json.dumps(e_items, ensure_ascii=False),
        json.dumps(r_items, ensure_ascii=False),
    )


def test_one_token_cache_counts_entities_and_relations_of_the_same_strings_apart():
    """The cache's keys are flat (field name, value, …): an entity and a relation whose three fields hold the
    same strings print different JSON and keep their own counts; the same item at another id shares its own."""
    cache = ctx.TokenCache()
    entity, relation = entity_item(1, "A", "B", "same words"), relation_item(1, "A", "B", "same words")
    assert ctx.fields_key(entity, 0) != ctx.fields_key(relation, 0)
    assert ctx.fields_key(entity, 0) == ctx.fields_key(entity_item(7, "A", "B", "same words"), 0)
    for item in (entity, relation, entity_item(7, "A", "B", "same words"), relation):
        assert ctx.entity_tokens(cache, item) == ctx.count(json.dumps(item, ensure_ascii=False))
        for last in (False, True):
            part = ctx.item_part(cache, item)
            text = json.dumps([item], ensure_ascii=False) + "\n" if last else json.dumps(item, ensure_ascii=False) + ","
            head = ctx.count('[{"id": ' + str(item["id"])) if last else ctx.id_tokens(cache, item["id"])
            assert head + (part.last if last else part.inside) == ctx.count(text)
    assert len(cache.parts) == 2 and all(
        type(k) is tuple and not any(type(x) is tuple for x in k) for k in cache.by_fields
    )


def test_vector_pick_ignores_float16_copies_after_a_reembed():
    from graphrag_ui.index.importers import lightrag as imp
    from graphrag_ui.retrieval.lightrag.chunks import f16_vector

    fresh = imp.import_dir(GOLDENS / "lightrag-1.4.7" / "en", embedder="hash")
    cid = fresh.chunks[0].id
    stored = f16_vector(fresh, cid)
    fresh2 = imp.import_dir(GOLDENS / "lightrag-1.4.7" / "en", embedder="hash")
    fresh2.manifest.vector_sources["chunks"] = "re-embedded with use-m3"
    row = fresh2.vectors["chunks"].ids.index(cid)
    fresh2.vectors["chunks"].matrix[row] = 0.5
    assert stored is not None and not (f16_vector(fresh2, cid) == stored).all()
    assert (f16_vector(fresh2, cid) == 0.5).all()


def test_an_open_decodes_a_small_imported_index_s_float16_copies_as_a_query_would(monkeypatch):
    """``decode_f16`` (``prepare_index``): every chunk's copy, each equal to the one a query decodes on its own;
    none for an index over ``F16_AT_OPEN`` chunks, nor for chunk vectors the index made itself (a re-embed)."""
    from graphrag_ui.index import cache as index_cache
    from graphrag_ui.retrieval.lightrag import chunks

    def fresh():  # ``index`` keeps one object: these must not share its cache
        return importer.import_dir(GOLDENS / "lightrag-1.4.7" / "en", embedder="hash")

    opened, lazy = fresh(), fresh()
    assert chunks.decode_f16(opened) == len(opened.chunks) > 0
    copies = index_cache.peek(opened, chunks.F16)
    assert set(copies) == {c.id for c in opened.chunks}
    for c in opened.chunks:
        assert copies[c.id].tobytes() == chunks.f16_vector(lazy, c.id).tobytes()
    monkeypatch.setattr(chunks, "F16_AT_OPEN", len(lazy.chunks) - 1)
    big = fresh()
    assert chunks.decode_f16(big) == 0 and not index_cache.peek(big, chunks.F16)
    monkeypatch.setattr(chunks, "F16_AT_OPEN", 10**6)
    reembedded = fresh()
    reembedded.manifest.vector_sources["chunks"] = "re-embedded with use-m3"
    assert chunks.decode_f16(reembedded) == 0 and not index_cache.peek(reembedded, chunks.F16)


def test_budget_sections_add_up_to_the_total():
    for mode in ("local", "hybrid", "mix", "naive"):
        r = run(mode, {"max_total_tokens": 4000, "top_k": 8})
        sections = {b.section: b.used for b in r.budgets}
        total = sections.pop("total")
        assert sum(sections.values()) == total, (mode, sections, total)
        if mode != "naive":
            assert sections["kg template"] > 0


def test_missing_vector_kinds_are_explained():
    from dataclasses import replace

    bare = replace(index("en"), vectors={"entities": index("en").vectors["entities"]})
    r = run("global", {}, ll=())  # global path on the full index works
    assert r.relations
    spec = get_mode("lightrag.hybrid")
    deps = Deps(embed=HashEmbedder().embed, keywords=Keywords(["location"], ["Kelp Bay"], "user"))
    out = spec.func(bare, QUERY, spec.resolve({}), deps)
    assert any("no relations vectors" in w for w in out.warnings)
    assert all(c.data["path"] == "local" for c in out.entities)
    naive = get_mode("lightrag.naive")
    none = naive.func(bare, QUERY, naive.resolve({}), deps)
    assert none.context == "" and any("no chunks vectors" in w for w in none.warnings)


def test_version_choice_defaults_to_the_writer_and_checks_its_schema():
    from graphrag_ui.base.errors import UserError
    from graphrag_ui.index.model import Manifest
    from graphrag_ui.retrieval.registry import get_mode as mode

    class Written:
        def __init__(self, **settings):
            self.manifest = Manifest(source="x", embedder="hash", dimension=8, settings=settings)

    local = mode("lightrag.local")
    assert local.versions == ("1.4.7", "1.5.7")
    assert local.resolve({})["version"] == "1.4.7"  # built and sample indexes
    assert local.resolve({}, Written(lightrag_version="1.5.7"))["version"] == "1.5.7"
    assert local.resolve({}, Written(lightrag_layout="1.5"))["version"] == "1.5.7"  # imported before it was recorded
    assert local.resolve({"version": "1.4.7"}, Written(lightrag_version="1.5.7"))["version"] == "1.4.7"
    assert "200-token buffer" in next(p.help for p in local.for_version("1.5.7").params if p.name == "max_total_tokens")
    with pytest.raises(UserError, match="must be one of 1.4.7, 1.5.7"):
        local.resolve({"version": "1.6"})
    with pytest.raises(UserError, match=r"lightrag.bypass \(version 1.5.7\) has no parameter 'top_k'"):
        mode("lightrag.bypass").resolve({"version": "1.5.7", "top_k": 3})
    for name in ("local", "global", "hybrid", "mix", "naive"):
        assert "rerank is off" in mode(f"lightrag.{name}").summary


def test_import_time_counts_are_the_counts_of_the_printed_texts():
    from graphrag_ui.index.lightrag_precount import entity_text, relation_texts

    imported = index()
    rows = [(e, [entity_text(e)]) for e in imported.entities] + [(r, relation_texts(r)) for r in imported.relations]
    for row, texts in rows:
        assert [stored_tokens(row, t) for t in texts] == [ctx.count(t) for t in texts]
    entity = imported.entities[0]
    edited = entity_item(1, entity.name, entity.type, entity.description + " (edited)")
    assert stored_tokens(entity, rest_text(edited)) is None  # another text: counted, not looked up
    assert ctx.entity_tokens(ctx.TokenCache(), edited, entity) == ctx.count(json.dumps(edited, ensure_ascii=False))


def test_a_zero_query_vector_is_said_not_computed_into_nan():
    import warnings

    import numpy as np

    spec = get_mode("lightrag.local")
    zero = Deps(
        embed=lambda texts: np.zeros((len(texts), 256), np.float32), keywords=Keywords([], ["Kelp Bay"], "user")
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "invalid value in divide" would fail here
        r = spec.func(
            index(), QUERY, spec.resolve({"kg_chunk_pick_method": "VECTOR", "cosine_better_than_threshold": 0.0}), zero
        )
    assert any("the query vector is all zeros" in w and "used WEIGHT" in w for w in r.warnings), r.warnings
    assert all(c.score is None or c.score == c.score for c in r.chunks)  # no NaN similarity anywhere
