"""The references' whole parameter objects through ``query --batch``: golden contexts, unused fields named.

Every case is a golden case replayed with the parameter object its reference's users pass whole:
``asdict(QueryParam(...))`` of LightRAG 1.4.7 / 1.5.7 (every mode, bypass included) and of
nano-graphrag 0.0.8.2, GraphRAG's local-search factory parameters plus its config section, and the
basic-search ones. The context must stay the golden one byte for byte; every field the mode does not
use must be named in the row's warnings; a typo is refused with the closest name.
"""

from __future__ import annotations

import json

import pytest

from graphrag_ui.cli import main
from graphrag_ui.retrieval.lightrag.v1_4_7.context import FAIL_RESPONSE_147
from graphrag_ui.retrieval.registry import get_mode
from tests.conftest import GOLDENS

LIGHTRAG_TIES = {"zh-local-11", "zh-global-11", "zh-hybrid-11", "zh-mix-11"}  # see test_golden_lightrag147
KG_MODES = ("local", "global", "hybrid", "mix")


@pytest.fixture(autouse=True)
def _no_llm(monkeypatch):
    for var in ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_LLM_API_BASE", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def query_param(version: str, mode: str, case: dict) -> dict:
    """``asdict(QueryParam(mode=..., **case params))`` of that lightrag-hku release, as its users pass it."""
    full = {
        "mode": mode,
        "only_need_context": False,
        "only_need_prompt": False,
        "response_type": "Multiple Paragraphs",
        "stream": False,
        "top_k": 40,
        "chunk_top_k": 20,
        "max_entity_tokens": 6000,
        "max_relation_tokens": 8000,
        "max_total_tokens": 30000,
        "hl_keywords": case["hl_keywords"] if mode != "naive" else [],
        "ll_keywords": case["ll_keywords"] if mode != "naive" else [],
        "conversation_history": [],
        "user_prompt": None,
        "enable_rerank": True,
    }
    if version == "1.4.7":
        full.update(history_turns=0, model_func=None)
    else:
        full.update(include_references=False, disable_user_prompt_prefix=False)
    return {**full, **case["params"], "version": version}


def lightrag_cases(version: str) -> list[tuple[str, dict]]:
    cases, seen = [], {}
    for line in (GOLDENS / f"lightrag-{version}" / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        key = f"{c['corpus']}-{c['mode']}"
        seen[key] = seen.get(key, -1) + 1
        name = f"{key}-{seen[key]:02d}"
        if name in LIGHTRAG_TIES or c["context"] == FAIL_RESPONSE_147 or c["note"]:
            continue  # the golden tests cover ties, the fail response and empty keyword lists
        if c["mode"] in KG_MODES and not (c["hl_keywords"] and c["ll_keywords"]):
            continue
        expected = "" if c["mode"] == "bypass" else c["context"]
        cases.append(
            (
                c["corpus"],
                {
                    "mode": f"lightrag.{c['mode']}",
                    "query": c["query"],
                    "params": query_param(version, c["mode"], c),
                    "expected": expected,
                },
            )
        )
    if version == "1.4.7":  # its goldens have no bypass case: bypass retrieves nothing in every release
        for corpus in ("en", "zh"):
            query = next(case["query"] for c, case in cases if c == corpus)
            bypass = {"hl_keywords": [], "ll_keywords": [], "params": {}}
            params = query_param(version, "bypass", bypass)
            cases.append((corpus, {"mode": "lightrag.bypass", "query": query, "params": params, "expected": ""}))
    return cases


def nano_cases() -> list[tuple[str, dict]]:
    everything = {
        "only_need_context": False,
        "response_type": "Multiple Paragraphs",
        "level": 2,
        "top_k": 20,
        "naive_max_token_for_text_unit": 12000,
        "local_max_token_for_text_unit": 4000,
        "local_max_token_for_local_context": 4800,
        "local_max_token_for_community_report": 3200,
        "local_community_single_one": False,
        "global_min_community_rating": 0,
        "global_max_consider_community": 512,
        "global_max_token_for_community_report": 16384,
        "global_special_community_map_llm_kwargs": {"response_format": {"type": "json_object"}},
    }
    cases = []
    for file, mode in (("cases.jsonl", "local"), ("naive.jsonl", "naive")):
        for line in (GOLDENS / "nano" / file).read_text(encoding="utf-8").splitlines():
            c = json.loads(line)
            if c["context"] is None or c.get("is_fail_response") or "insertion_order" in c:
                continue
            params = {**everything, **c["params"], "mode": mode}
            cases.append(
                (c["corpus"], {"mode": f"nano.{mode}", "query": c["query"], "params": params, "expected": c["context"]})
            )
    return cases


def graphrag_cases(version: str) -> list[tuple[str, dict]]:
    config = {"chat_model_id": "default_chat_model", "embedding_model_id": "default_embedding_model", "prompt": None}
    cases = []
    for line in (GOLDENS / version / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        if "reused_engine_after" in c or c["context"].startswith("[]") or c["params"].get("include_community_rank"):
            continue
        params = {
            **config,
            **c["factory_params"],
            **c["params"],
            "community_level": c["community_level"],
            "response_type": "Multiple Paragraphs",
        }
        params["top_k_entities"] = params["top_k_mapped_entities"]  # the config section's spelling of it
        cases.append(
            (c["corpus"], {"mode": "ms.local", "query": c["query"], "params": params, "expected": c["context"]})
        )
    for line in (GOLDENS / version / "global_cases.jsonl").read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        if c["mode"] != "basic":
            continue
        params = {**config, **c["factory_params"], **c["params"], "response_type": "Multiple Paragraphs"}
        cases.append(
            (c["corpus"], {"mode": "ms.basic", "query": c["query"], "params": params, "expected": c["context"]})
        )
    return cases


LIBS = {
    "lightrag-1.4.7": lightrag_cases("1.4.7"),
    "lightrag-1.5.7": lightrag_cases("1.5.7"),
    "nano": nano_cases(),
    "graphrag-2": graphrag_cases("graphrag-2"),
    "graphrag-3": graphrag_cases("graphrag-3"),
}


@pytest.fixture(scope="module")
def golden_indexes(tmp_path_factory):
    """Each golden working dir imported with the CLI's own ``import`` command (hash embedder)."""
    base = tmp_path_factory.mktemp("golden-indexes")
    out = {}
    for lib in LIBS:
        for corpus in ("en", "zh"):
            target = base / f"{lib}-{corpus}"
            source = GOLDENS / lib / corpus
            assert main(["import", "auto", str(source), "--out", str(target), "--embedder", "hash"]) == 0
            out[(lib, corpus)] = target
    return out


def run_batch(capsys, tmp_path, index, cases: list[dict]) -> list[dict]:
    path = tmp_path / "cases.jsonl"
    lines = [json.dumps({k: v for k, v in case.items() if k != "expected"}, ensure_ascii=False) for case in cases]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    main(["query", "--index", str(index), "--batch", str(path)])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == len(cases)
    return rows


def test_every_reference_mode_is_covered():
    modes = {case["mode"] for cases in LIBS.values() for _, case in cases}
    assert {f"lightrag.{m}" for m in (*KG_MODES, "naive", "bypass")} <= modes
    assert {"nano.local", "nano.naive", "ms.local", "ms.basic"} <= modes
    for version in ("1.4.7", "1.5.7"):
        covered = {case["mode"] for _, case in LIBS[f"lightrag-{version}"]}
        assert covered == {f"lightrag.{m}" for m in (*KG_MODES, "naive", "bypass")}, version
    assert len(LIBS["lightrag-1.4.7"]) >= 80 and len(LIBS["lightrag-1.5.7"]) >= 80


def expected_ignored(lib: str, mode: str) -> set[str]:
    """Warnings the row must carry: the fields this mode does not use (and the reference ignores too)."""
    if lib.startswith("lightrag"):
        short = mode.split(".")[1]
        ignored = (
            {"max_entity_tokens", "max_relation_tokens", "hl_keywords", "ll_keywords"} if short == "naive" else set()
        )
        if short == "bypass":
            ignored = {"top_k", "chunk_top_k", "max_entity_tokens", "max_relation_tokens", "max_total_tokens"}
        return {f"{name} is not used by {mode}; LightRAG ignores it too" for name in ignored}
    if lib == "nano":
        other = "local" if mode == "nano.naive" else "naive"
        names = {
            "global_min_community_rating",
            "global_max_consider_community",
            "global_max_token_for_community_report",
        }
        names |= {"naive_max_token_for_text_unit"} if other == "naive" else {"level", "local_community_single_one"}
        return {f"{name} is not used by {mode}; nano-graphrag ignores it too" for name in names}
    return set()


@pytest.mark.parametrize("lib", list(LIBS))
@pytest.mark.parametrize("corpus", ["en", "zh"])
def test_full_parameter_objects_give_the_golden_context(capsys, tmp_path, golden_indexes, lib, corpus):
    cases = [case for c, case in LIBS[lib] if c == corpus]
    rows = run_batch(capsys, tmp_path, golden_indexes[(lib, corpus)], cases)
    for case, row in zip(cases, rows, strict=True):
        assert "error" not in row, row["error"]
        assert row["context"] == case["expected"], (case["mode"], case["query"])
        warnings = set(row["warnings"])
        missing = expected_ignored(lib, case["mode"]) - warnings
        assert not missing, (case["mode"], missing)
        if lib.startswith("lightrag") and not case["mode"].endswith("bypass"):
            assert any(
                w.startswith(f"enable_rerank is not used by {case['mode']}; LightRAG reranks only") for w in warnings
            )
        if lib.startswith("graphrag"):
            assert any(w.startswith(f"chat_model_id is not used by {case['mode']}") for w in warnings)
        # a field the mode uses is never said to be ignored
        own = {p.name for p in get_mode(case["mode"]).settle(case["params"]).params}
        assert not [w for w in warnings if w.split(" is not used by ")[0] in own]


@pytest.mark.parametrize(
    ("lib", "typo", "suggested"),
    [
        ("lightrag-1.4.7", "top_kk", "top_k"),
        ("lightrag-1.5.7", "max_entity_token", "max_entity_tokens"),
        ("lightrag-1.5.7", "include_reference", "include_references"),
        ("nano", "local_max_token_for_text_units", "local_max_token_for_text_unit"),
        ("graphrag-3", "top_k_entity", "top_k_entities"),
    ],
)
def test_a_typo_gets_the_closest_name(capsys, tmp_path, golden_indexes, lib, typo, suggested):
    corpus, case = LIBS[lib][0]
    bad = {**case, "params": {**case["params"], typo: 3}}
    (row,) = run_batch(capsys, tmp_path, golden_indexes[(lib, corpus)], [bad])
    assert f"no parameter {typo!r}" in row["error"] and f"did you mean {suggested}?" in row["error"]


def test_a_field_the_reference_reads_and_the_explorer_cannot_is_refused(capsys, tmp_path, golden_indexes):
    corpus, case = next((c, x) for c, x in LIBS["graphrag-2"] if x["mode"] == "ms.local")
    bad = {**case, "params": {**case["params"], "column_delimiter": ","}}
    (row,) = run_batch(capsys, tmp_path, golden_indexes[("graphrag-2", corpus)], [bad])
    assert "column_delimiter=',' is not supported by ms.local" in row["error"]


def test_a_mode_field_naming_another_mode_is_refused(capsys, tmp_path, golden_indexes):
    corpus, case = next((c, x) for c, x in LIBS["lightrag-1.5.7"] if x["mode"] == "lightrag.naive")
    bad = {**case, "params": {**case["params"], "mode": "local"}}
    (row,) = run_batch(capsys, tmp_path, golden_indexes[("lightrag-1.5.7", corpus)], [bad])
    assert "mode='local' asks for another LightRAG mode than lightrag.naive" in row["error"]
