"""Issue 28 done-when: through the local OpenAI-compatible test server, whose replies cite known ids and one
invented, ``query --json --answer`` carries the cited marks, the "not in the context" flag and the unused
token share for ms.local, ms.global, lightrag.hybrid (1.4.7 and 1.5.7) and nano.local (estimate only)."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from graphrag_ui.cli import main
from graphrag_ui.retrieval.core.result import Retrieval
from tests.support.citing_replies import INVENTED_ID, citing_reply, graphrag_ids
from tests.support.llm_server import Script, start_server

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "data" / "sample" / "en" / "index"
QUESTION = "Who founded the Guild of Tidewrights, and what did he build?"
HYBRID = ["--hl", "guild founder", "--ll", "Guild of Tidewrights"]


@pytest.fixture(scope="module")
def server():
    script = Script(citing_reply)
    url, stop = start_server(script)
    yield url, script
    stop()


@pytest.fixture()
def model_env(server, monkeypatch, tmp_path):
    url, _ = server
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-cite")
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path))


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["query", "--index", str(INDEX), *argv])
    return code, out.getvalue(), err.getvalue()


def answered(*argv: str) -> dict:
    code, out, err = run(*argv, "--json", "--answer", "--no-cache", QUESTION)
    assert code == 0, err[-800:]
    assert "sk-test-SECRET-cite" not in out + err
    return json.loads(out)


def _tokens(data: dict, items: set[tuple[str, str]]) -> int:
    r = Retrieval.from_dict({k: v for k, v in data.items() if k not in ("answer", "citations", "support")})
    return sum(
        c.tokens
        for kind in ("entities", "relations", "communities", "chunks")
        for c in r.candidates(kind)
        if c.in_context and (kind, c.id) in items
    )


def _check_share(data: dict) -> None:
    support = data["support"]
    split = support["split"]
    total = sum(s["total"] for s in split)
    used = {(i["kind"], i["item_id"]) for i in support["cited"] + support["parts_cited"]}
    estimated = {(i["kind"], i["item_id"]) for i in support["estimated"]} - used
    assert sum(s["cited"] for s in split) == _tokens(data, used)
    assert sum(s["estimated"] for s in split) == _tokens(data, estimated)
    assert support["unused_share"] == pytest.approx((total - _tokens(data, used | estimated)) / total)
    assert f"{round(support['unused_share'] * 100)} % of the context tokens never used" in support["summary"]


def test_ms_local_cites_its_table_rows_and_flags_the_invented_id(model_env):
    data = answered("--mode", "ms.local")
    shown = graphrag_ids(data["context"])
    entries = {(c["table"], c["ids"][0]["id"]): c for c in data["citations"]}
    for table, ids in shown.items():
        entry = entries[(table, ids[0])]
        assert entry["in_context"] and [i["id"] for i in entry["ids"]] == ids
        for cited in entry["ids"]:
            kind = {"Entities": "entities", "Reports": "communities", "Sources": "chunks"}[table]
            short = {c["id"]: c["data"].get("short_id") for c in data[kind]}
            assert cited["items"] and all(short[i["item_id"]] == cited["id"] for i in cited["items"])
    invented = entries[("Entities", INVENTED_ID)]
    assert invented["in_context"] is False and invented["ids"][0]["items"] == []
    assert invented["sentence"].startswith("One more detail comes from a record the context never held")
    assert data["support"]["not_in_context"] == 1
    assert data["answer"]["text"].startswith("The context answers the question")
    _check_share(data)


def test_ms_global_points_and_reduce_answer_cite_reports(model_env):
    data = answered("--mode", "ms.global")
    scopes = {c["scope"] for c in data["citations"]}
    assert "answer" in scopes and any(s.startswith("point ") for s in scopes)
    point = next(c for c in data["citations"] if c["scope"].startswith("point "))
    assert point["table"] == "Reports" and point["in_context"]
    reduce = [c for c in data["citations"] if c["scope"] == "answer"]
    assert any(c["in_context"] for c in reduce)
    bad = [c for c in reduce if not c["in_context"]]
    assert [c["ids"][0]["id"] for c in bad] == [INVENTED_ID]
    assert data["support"]["not_in_context"] == 1
    _check_share(data)


@pytest.mark.parametrize("version", ["1.4.7", "1.5.7"])
def test_lightrag_hybrid_references_resolve_to_chunks(model_env, version):
    data = answered("--mode", "lightrag.hybrid", "--param", f"version={version}", *HYBRID)
    listed = [c for c in data["citations"] if c["table"] == "References"]
    assert [c["in_context"] for c in listed] == [True, True, False]
    assert listed[2]["text"] == "- [99] invented-document.md"
    chunks = {c["id"]: c["data"]["file_path"] for c in data["chunks"] if c["in_context"]}
    for entry in listed[:2]:
        items = entry["ids"][0]["items"]
        assert items and all(i["kind"] == "chunks" and chunks[i["item_id"]] in entry["text"] for i in items)
    inline = [c for c in data["citations"] if c["table"] == "[n]"]
    assert len(inline) == 1 and inline[0]["in_context"]
    assert data["support"]["not_in_context"] == 1
    _check_share(data)


def test_nano_local_asks_for_no_citations_so_support_is_only_estimated(model_env):
    data = answered("--mode", "nano.local")
    assert data["citations"] == [] and data["support"]["style"] == "none"
    (sentence,) = data["support"]["sentences"]
    assert sentence["cited"] == [] and sentence["estimate"], sentence
    named = data["answer"]["text"].split("context, ", 1)[1].split(" is the entity")[0]
    best = sentence["estimate"][0]
    entity = next(c for c in data[best["kind"]] if c["id"] == best["item_id"])
    assert named.lower() in json.dumps(entity, ensure_ascii=False).lower()
    assert data["support"]["summary"].startswith("answer cites nothing (the prompt asks for no citations)")
    _check_share(data)


def test_batch_answer_rows_carry_citations(model_env, tmp_path):
    cases = tmp_path / "cases.jsonl"
    lines = [
        {"mode": "ms.local", "query": QUESTION},
        {
            "mode": "lightrag.hybrid",
            "query": QUESTION,
            "params": {"version": "1.5.7"},
            "hl_keywords": ["guild"],
            "ll_keywords": ["Guild of Tidewrights"],
        },
    ]
    cases.write_text("\n".join(json.dumps(c) for c in lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code, _, err = run("--batch", str(cases), "--out", str(out), "--answer", "--no-cache")
    assert code == 0, err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["support"]["not_in_context"] for r in rows] == [1, 1]
    assert all(r["citations"] and r["answer"]["text"] for r in rows)


def test_plain_answer_prints_the_run_line(model_env):
    code, out, _ = run("--mode", "ms.local", "--no-cache", QUESTION)
    assert code == 0
    assert "citations not in the context" in out.rsplit("--- answer ---", 1)[1]


def test_answer_flag_misuse_is_said_and_its_advice_works(model_env, monkeypatch):
    code, _, err = run("--mode", "ms.local", "--answer", QUESTION)
    assert code != 0 and "--answer adds the answer to JSON output" in err and "use it with --json" in err
    code, out, _ = run("--mode", "ms.local", "--answer", "--json", QUESTION)  # the advice, followed
    assert code == 0 and json.loads(out)["citations"]
    monkeypatch.delenv("GRAPHRAG_UI_LLM_MODEL")
    code, _, err = run("--mode", "ms.local", "--answer", "--json", QUESTION)
    assert code != 0 and "no language model is configured" in err and "leave out --answer" in err
    code, out, _ = run("--mode", "ms.local", "--json", QUESTION)  # the advice, followed
    assert code == 0 and "citations" not in json.loads(out)
