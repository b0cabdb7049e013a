"""``python -m graphrag_ui query`` end to end: one question, --context-only, --json, --batch, bad input.

Runs on the shipped samples (data/sample/{en,zh}/index, use-m3 vectors) and on the golden
fixtures imported through the ``import`` command: the CLI must print the reference libraries'
context strings byte for byte (stdout adds nothing, not even a newline).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from graphrag_ui.cli import main
from graphrag_ui.index import store
from graphrag_ui.model_calls.keywords import OFFLINE_NOTICE
from graphrag_ui.retrieval.core.result import KINDS, Retrieval
from graphrag_ui.retrieval.lightrag.v1_4_7.context import FAIL_RESPONSE_147
from graphrag_ui.retrieval.registry import mode_names
from graphrag_ui.services.query import run_query
from tests.conftest import GOLDENS, ROOT, SAMPLES

EN, ZH = SAMPLES / "en" / "index", SAMPLES / "zh" / "index"
LLM_VARS = ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_LLM_API_BASE", "GRAPHRAG_UI_LLM_API_KEY")
LIGHTRAG_TIES = {"zh-local-11", "zh-global-11", "zh-hybrid-11", "zh-mix-11"}  # see test_golden_lightrag147


@pytest.fixture(autouse=True)
def _no_llm(monkeypatch):
    """No model configured: keywords come from the offline extractor, nothing leaves the machine."""
    for var in LLM_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(ROOT)


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["query", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in LLM_VARS}
    env["PYTHONIOENCODING"] = "ascii"  # the context must still come out as UTF-8 bytes
    return env


# ------------------------------------------------------------------ golden cases through the CLI


def _golden_cases() -> dict[str, list[tuple[str, str, dict]]]:
    """(golden dir, corpus, batch case with the expected context) for every case the CLI can replay.

    Left out, as documented by the golden tests: nano's None context, LightRAG's
    tied chunks, fail response and empty keyword lists (the CLI fills empty lists offline), GraphRAG's
    "[]" artefact, unstable rating sort and reused-engine cases.
    """
    out: dict[str, list] = {"nano": [], "lightrag-1.4.7": [], "graphrag-2": [], "graphrag-3": []}
    for line in (GOLDENS / "nano" / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        if c["context"] is not None:  # set-ordered ties: we print nano's output with insertion order
            expected = c["insertion_order"]["context"] if "insertion_order" in c else c["context"]
            case = {"mode": "nano.local", "query": c["query"], "params": c["params"], "expected": expected}
            out["nano"].append((c["corpus"], c["name"], case))
    seen: dict[str, int] = {}
    for line in (GOLDENS / "lightrag-1.4.7" / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        key = f"{c['corpus']}-{c['mode']}"
        seen[key] = seen.get(key, -1) + 1
        name = f"{key}-{seen[key]:02d}"
        uses_keywords = c["mode"] != "naive"
        if name in LIGHTRAG_TIES or c["context"] == FAIL_RESPONSE_147:
            continue
        if uses_keywords and not (c["hl_keywords"] and c["ll_keywords"]):
            continue
        case = {"mode": f"lightrag.{c['mode']}", "query": c["query"], "params": c["params"], "expected": c["context"]}
        if uses_keywords:
            case.update(hl_keywords=c["hl_keywords"], ll_keywords=c["ll_keywords"])
        out["lightrag-1.4.7"].append((c["corpus"], name, case))
    for version in ("graphrag-2", "graphrag-3"):
        for n, line in enumerate((GOLDENS / version / "cases.jsonl").read_text(encoding="utf-8").splitlines()):
            c = json.loads(line)
            if "reused_engine_after" in c or c["context"].startswith("[]") or c["params"].get("include_community_rank"):
                continue
            params = {**c["params"], "community_level": c["community_level"]}
            case = {"mode": "ms.local", "query": c["query"], "params": params, "expected": c["context"]}
            out[version].append((c["corpus"], f"{c['corpus']}-{n:02d}", case))
    return out


GOLDEN_CASES = _golden_cases()


@pytest.fixture(scope="module")
def golden_indexes(tmp_path_factory):
    """Each golden working dir imported with the CLI's own ``import`` command (hash embedder)."""
    base = tmp_path_factory.mktemp("golden-indexes")
    out = {}
    for lib in GOLDEN_CASES:
        for corpus in ("en", "zh"):
            target = base / f"{lib}-{corpus}"
            assert (
                main(["import", "auto", str(GOLDENS / lib / corpus), "--out", str(target), "--embedder", "hash"]) == 0
            )
            out[(lib, corpus)] = target
    return out


def _param_args(params: dict) -> list[str]:
    args = []
    for name, value in params.items():
        args += ["--param", f"{name}={value if isinstance(value, str) else json.dumps(value)}"]
    return args


def test_golden_cases_cover_every_family():
    assert len(GOLDEN_CASES["nano"]) >= 20
    assert len(GOLDEN_CASES["lightrag-1.4.7"]) >= 80
    assert len(GOLDEN_CASES["graphrag-3"]) >= 30 and len(GOLDEN_CASES["graphrag-2"]) >= 30


PICKS = [
    ("nano", "en", "threshold_035"),
    ("nano", "zh", "defaults"),
    ("nano", "zh", "isolated_entity"),
    ("lightrag-1.4.7", "en", "en-local-00"),
    ("lightrag-1.4.7", "zh", "zh-hybrid-06"),
    ("lightrag-1.4.7", "zh", "zh-naive-03"),
    ("graphrag-3", "zh", "zh-45"),
    ("graphrag-3", "en", "en-08"),
    ("graphrag-2", "en", "en-00"),
]


@pytest.mark.parametrize(("lib", "corpus", "name"), PICKS)
def test_context_only_prints_the_reference_context_byte_for_byte(golden_indexes, lib, corpus, name):
    case = next(c for co, n, c in GOLDEN_CASES[lib] if co == corpus and n == name)
    argv = [sys.executable, "-m", "graphrag_ui", "query", "--index", str(golden_indexes[(lib, corpus)])]
    argv += ["--mode", case["mode"], "--context-only", *_param_args(case["params"])]
    if "hl_keywords" in case:
        assert not any("," in k for k in case["hl_keywords"] + case["ll_keywords"])
        argv += ["--hl", ",".join(case["hl_keywords"]), "--ll", ",".join(case["ll_keywords"])]
    done = subprocess.run([*argv, case["query"]], capture_output=True, cwd=ROOT, env=clean_env(), timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == case["expected"].encode("utf-8")
    assert all(line.startswith("warning: ") for line in done.stderr.decode().splitlines())


@pytest.mark.parametrize("lib", list(GOLDEN_CASES))
def test_batch_reproduces_every_replayable_golden_case(golden_indexes, tmp_path, capsys, lib):
    for corpus in ("en", "zh"):
        cases = [c for co, _, c in GOLDEN_CASES[lib] if co == corpus]
        batch, results = tmp_path / f"{corpus}.jsonl", tmp_path / f"{corpus}-out.jsonl"
        batch.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
        code, _, err = cli(
            capsys, "--index", str(golden_indexes[(lib, corpus)]), "--batch", str(batch), "--out", str(results)
        )
        assert code == 0, err
        rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
        assert [r["line"] for r in rows] == list(range(1, len(cases) + 1))
        mismatched = [r["line"] for r in rows if r["context"] != r["input"]["expected"]]
        assert mismatched == [], f"{lib}/{corpus}: lines whose context differs from the reference"
        assert f"{len(cases)} case(s) ran, 0 failed" in err


# ------------------------------------------------------------------ one question on the samples


@pytest.mark.parametrize(
    ("index", "question"),
    [(EN, "How does climate research at the Tidewater Institute guide funding?"), (ZH, "我之前完成的跑步数据怎么样？")],
)
@pytest.mark.parametrize("mode", mode_names())
def test_context_only_equals_the_query_service(capsys, index, question, mode):
    code, out, err = cli(capsys, "--index", str(index), "--mode", mode, "--context-only", question)
    assert code == 0, err
    expected = run_query(store.load(index), mode, question)
    if expected.stages is not None:  # a map-reduce mode prints every batch under its header
        from graphrag_ui.cli.stages import staged_context

        assert out == staged_context(expected.stages)
    else:
        assert out == expected.context
    if mode == "lightrag.bypass":  # retrieves nothing by design, and says so
        assert out == "" and any("bypass" in w for w in expected.warnings)
    else:
        assert out.strip(), f"{mode} found nothing for a question about the sample"


def test_json_is_the_whole_retrieval(capsys):
    code, out, err = cli(capsys, "--index", str(EN), "--mode", "nano.local", "--json", "--param", "top_k=3", "Kelp Bay")
    assert code == 0, err
    result = Retrieval.from_dict(json.loads(out))
    assert result.mode == "nano.local" and result.params["top_k"] == 3
    assert len([c for c in result.entities if c.in_context]) <= 3
    assert set(result.timings_ms) >= {"embed", "context", "keywords"}
    assert result.context and result.messages and result.trace and result.budgets


def test_summary_without_a_model_prints_the_prompt(capsys):
    code, out, err = cli(
        capsys, "--index", str(EN), "--mode", "lightrag.hybrid", "Who directs the Tidewater Institute?"
    )
    assert code == 0, err
    assert "keywords (offline)" in out and "--- prompt that would be sent ---" in out
    assert "[system]" in out and "Tidewater Institute" in out
    assert f"warning: {OFFLINE_NOTICE}" in out


@pytest.mark.parametrize("index", [EN, ZH])
def test_lightrag_without_a_model_uses_offline_keywords(capsys, index):
    question = "Who directs the Tidewater Institute?" if index == EN else "吴雨桐的跑步数据"
    code, out, err = cli(capsys, "--index", str(index), "--mode", "lightrag.local", "--json", question)
    assert code == 0, err
    result = Retrieval.from_dict(json.loads(out))
    assert result.keywords.source == "offline" and result.keywords.ll
    assert OFFLINE_NOTICE in result.warnings


def test_user_keywords_win(capsys):
    argv = ["--index", str(ZH), "--mode", "lightrag.hybrid", "--json", "--hl", "训练, 比赛", "--ll", "吴雨桐"]
    code, out, err = cli(capsys, *argv, "吴雨桐最近怎么样？")
    assert code == 0, err
    result = Retrieval.from_dict(json.loads(out))
    assert (result.keywords.hl, result.keywords.ll, result.keywords.source) == (["训练", "比赛"], ["吴雨桐"], "user")
    assert OFFLINE_NOTICE not in result.warnings


def test_context_only_says_why_a_context_is_empty_on_stderr(capsys):
    code, out, err = cli(capsys, "--index", str(EN), "--mode", "lightrag.naive", "--context-only", "?!")
    assert code == 0 and "warning:" not in out
    assert "warning: the question has no words" in err


def test_keywords_for_a_mode_without_keywords_are_ignored_with_a_warning(capsys):
    code, out, _ = cli(capsys, "--index", str(EN), "--mode", "nano.local", "--json", "--hl", "x", "Kelp Bay")
    assert code == 0
    assert any("does not use keywords" in w for w in json.loads(out)["warnings"])


@pytest.mark.parametrize("strategy", ["ilike", "hybrid"])
def test_recall_flag_switches_entity_recall(capsys, strategy):
    code, out, err = cli(capsys, "--index", str(ZH), "--mode", "nano.local", "--json", "--recall", strategy, "跑步")
    assert code == 0, err
    result = Retrieval.from_dict(json.loads(out))
    assert result.params["recall"] == strategy
    picked = [c for c in result.entities if c.in_context]
    assert picked and all(f"by {strategy}" in c.why for c in picked)


# ------------------------------------------------------------------ batch on the samples


def test_batch_runs_every_mode_and_reports_per_line_errors(capsys, tmp_path):
    good = [{"mode": m, "query": "吴雨桐的跑步数据", "params": {}} for m in mode_names()]
    good.append({"mode": "lightrag.local", "query": "吴雨桐", "hl_keywords": ["跑步"], "ll_keywords": ["吴雨桐"]})
    good.append({"mode": "nano.local", "query": "跑步", "recall": "hybrid", "params": {"top_k": 4}})
    bad = [
        "{not json",
        json.dumps({"mode": "nano.nope", "query": "x"}),
        json.dumps({"mode": "nano.local", "query": "x", "params": {"top_kk": 3}}),
        json.dumps({"mode": "nano.local", "query": "x", "params": {"top_k": 100000}}),
        json.dumps({"mode": "nano.local", "params": {}}),
        json.dumps(["a list"]),
        json.dumps({"mode": "lightrag.local", "query": "x", "hl_keywords": 5}),
    ]
    lines = (
        [json.dumps(c, ensure_ascii=False) for c in good[:3]]
        + bad
        + [json.dumps(c, ensure_ascii=False) for c in good[3:]]
    )
    batch, results = tmp_path / "cases.jsonl", tmp_path / "out.jsonl"
    batch.write_text("\n".join(lines[:5]) + "\n\n" + "\n".join(lines[5:]) + "\n", encoding="utf-8")
    code, _, err = cli(capsys, "--index", str(ZH), "--batch", str(batch), "--out", str(results))
    assert code == 1
    assert f"{len(good)} case(s) ran, {len(bad)} failed" in err
    rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len(good) + len(bad)
    errors = {r["line"]: r["error"] for r in rows if "error" in r}
    assert all(message.startswith(f"{batch}:{line}: ") for line, message in errors.items())
    texts = " | ".join(errors.values())
    for fragment in ["not JSON", "unknown mode 'nano.nope'", "no parameter 'top_kk'", "above its maximum", "'query'"]:
        assert fragment in texts
    assert "'hl_keywords' must be a list of strings" in texts and "must be a JSON object" in texts
    ok = [r for r in rows if "error" not in r]
    assert [r["input"] for r in ok] == good
    for row in ok:
        assert set(row["selected"]) == set(KINDS)
        assert set(row["timings_ms"]) >= {"embed", "context", "keywords", "total"}
        assert isinstance(row["warnings"], list)
    by_mode = {r["input"]["mode"]: r for r in ok}
    direct = run_query(store.load(ZH), "ms.local", "吴雨桐的跑步数据")
    assert by_mode["ms.local"]["context"] == direct.context
    assert by_mode["ms.local"]["selected"] == {k: direct.selected_ids(k) for k in KINDS}
    assert ok[-2]["keywords"]["source"] == "user" and ok[-1]["selected"]["entities"]


def test_batch_to_stdout(capsys, tmp_path):
    batch = tmp_path / "cases.jsonl"
    batch.write_text(json.dumps({"query": "Kelp Bay"}) + "\n", encoding="utf-8")
    code, out, _ = cli(capsys, "--index", str(EN), "--batch", str(batch))
    assert code == 0
    row = json.loads(out)
    assert row["mode"] == "nano.local" and row["context"] and row["line"] == 1


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["--mode", "nano.drift", "q"], ["unknown mode 'nano.drift'", "lightrag.local"]),
        (
            ["--param", "top_kk=3", "q"],
            ["no parameter 'top_kk'", "nano-graphrag 0.0.8.2 QueryParam", "did you mean top_k?"],
        ),
        (["--param", "top_k=0", "q"], ["top_k=0 is below its minimum 1"]),
        (["--param", "top_k=999", "q"], ["above its maximum 200"]),
        (["--param", "top_k=many", "q"], ["top_k expects a whole number, got 'many'"]),
        (["--param", "top_k=2.7", "q"], ["top_k expects a whole number, got '2.7'", "give 2 or 3"]),
        (["--param", "local_community_single_one=abc", "q"], ["expects true or false", "'abc'"]),
        (["--param", "top_k", "q"], ["--param expects name=value"]),
        (["--mode", "lightrag.naive", "--recall", "hybrid", "q"], ["no parameter 'recall'"]),
        ([], ["give a question, or --batch"]),
        (["--out", "x.jsonl", "q"], ["--out is for --batch"]),
        (["--batch", "/no/such/cases.jsonl"], ["/no/such/cases.jsonl", "no such batch file"]),
        (["--batch", "c.jsonl", "q"], ["not both"]),
        (["--batch", "c.jsonl", "--context-only"], ["--context-only and --json are for one question"]),
        (["--batch", "c.jsonl", "--param", "top_k=3"], ["per case"]),
        (["--embedder", "hash", "q"], ["'use-m3'", "'hash'"]),
    ],
)
def test_bad_input_is_one_clear_line(capsys, argv, fragments):
    code, out, err = cli(capsys, "--index", str(EN), *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err
    for fragment in fragments:
        assert fragment in err


def test_missing_index_dir(capsys, tmp_path):
    missing = tmp_path / "nowhere"
    code, _, err = cli(capsys, "--index", str(missing), "q")
    assert code == 2 and str(missing) in err and "no such index folder" in err
    code, _, err = cli(capsys, "--index", str(tmp_path), "q")  # a folder that is not an index
    assert code == 2 and str(tmp_path) in err


def test_unwritable_out(capsys, tmp_path):
    batch = tmp_path / "c.jsonl"
    batch.write_text('{"query": "q"}\n', encoding="utf-8")
    target = tmp_path / "no" / "dir" / "out.jsonl"
    code, _, err = cli(capsys, "--index", str(EN), "--batch", str(batch), "--out", str(target))
    assert code == 2 and str(target) in err and "cannot write" in err


def test_embedder_mismatch_names_both(capsys, tmp_path):
    """An imported index of unknown origin takes --embedder, but a model of another width is refused."""
    index = store.load(EN)
    index.manifest.embedder = "unknown"
    target = tmp_path / "unknown"
    store.save(index, target)
    code, _, err = cli(capsys, "--index", str(target), "Kelp Bay")
    assert code == 2 and "does not say which embedder" in err and "--embedder" in err
    code, _, err = cli(capsys, "--index", str(target), "--embedder", "hash", "Kelp Bay")
    assert code == 2
    assert "512 dimensions" in err and "'hash'" in err and "256" in err and "'unknown'" in err
    code, out, err = cli(capsys, "--index", str(target), "--embedder", "use-m3", "--context-only", "Kelp Bay")
    assert code == 0, err
    assert out == run_query(store.load(EN), "nano.local", "Kelp Bay").context


def test_subprocess_error_has_no_traceback(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "graphrag_ui",
            "query",
            "--index",
            str(EN),
            "--mode",
            "ms.local",
            "--param",
            "max_context_tokens=-1",
            "q",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=clean_env(),
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr and "max_context_tokens=-1 is below its minimum 0" in done.stderr
