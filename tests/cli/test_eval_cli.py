"""``python -m graphrag_ui eval`` on each bundled sample's gold set: every row's numbers equal a recomputation
from ``query --json`` of the same question, mode and setting; bad input is one line and exit 2."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import asdict
from pathlib import Path

import pytest

from graphrag_ui import cli
from graphrag_ui.cli import query as query_cli
from graphrag_ui.evaluation.export import METRIC_COLUMNS, record
from graphrag_ui.evaluation.formats import load_questions
from graphrag_ui.evaluation.metrics import evaluate
from graphrag_ui.evaluation.plan import Config
from graphrag_ui.index import store
from graphrag_ui.retrieval.core.result import Retrieval

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "sample"
MODES = ["nano.local", "nano.naive", "lightrag.local", "lightrag.hybrid", "lightrag.mix", "ms.local", "ms.basic"]
INDEXES: dict[str, object] = {}


def _index(path: str):
    if path not in INDEXES:
        INDEXES[path] = store.load(path)
    return INDEXES[path]


def _main(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_eval_rows_equal_query_json_recomputed(
    lang: str, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_dir, questions_file = str(SAMPLES / lang / "index"), str(SAMPLES / lang / "questions.jsonl")
    out = tmp_path / "rows.json"
    argv = ["eval", "--index", index_dir, "--questions", questions_file, "--param", "top_k=5,20", "--json", str(out)]
    argv += [x for m in MODES for x in ("--mode", m)]
    code, stdout, stderr = _main(argv, capsys)
    assert code == 0, stderr
    assert "eval: " in stderr and "top_k" in stdout  # progress on stderr, the table on stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    questions = {q.id: q for q in load_questions(questions_file).questions}
    assert len(data["rows"]) == len(questions) * (5 * 2 + 2)  # ms.local and ms.basic have no top_k: once each
    assert {r["mode"] for r in data["rows"]} == set(MODES)
    index = _index(index_dir)
    monkeypatch.setattr(query_cli, "_load", lambda path, vectors="local": index)  # the same index, opened once
    for row in data["rows"]:
        args = ["query", "--index", index_dir, "--mode", row["mode"], "--json", questions[row["id"]].question]
        if row["top_k"] != "":
            args += ["--param", f"top_k={row['top_k']}"]
        code, stdout, stderr = _main(args, capsys)
        assert code == 0, stderr
        again = evaluate(index, Retrieval.from_dict(json.loads(stdout)), questions[row["id"]])
        again.config = Config(row["mode"], "", "top_k" if row["top_k"] != "" else "", row["top_k"] or None)
        expected = record(again, ["top_k"])
        for name in (*METRIC_COLUMNS, "found"):
            assert row[name] == expected[name], (row["id"], row["mode"], row["top_k"], name)
        got = [(i["kind"], i["value"], i["found"], i["where"], i["missed"]) for i in row["items"]]
        want = [
            (r.item.kind, r.item.value, r.found, [asdict(p) for p in r.where], r.missed and asdict(r.missed))
            for r in again.items
        ]
        assert got == want, (row["id"], row["mode"], row["top_k"])


def test_csv_to_stdout_has_the_promised_columns(capsys: pytest.CaptureFixture) -> None:
    argv = ["eval", "--index", str(SAMPLES / "en" / "index"), "--questions", str(SAMPLES / "en" / "questions.jsonl")]
    argv += [
        "--mode",
        "nano.local",
        "--mode",
        "ms.basic",
        "--param",
        "top_k=5:15:5",
        "--as",
        "ms.basic=k",
        "--csv",
        "-",
    ]
    code, stdout, _ = _main(argv, capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(stdout)))
    assert {"id", "mode", "top_k", "k", "evidence_recall", "entity_recall", "context_tokens"} <= set(rows[0])
    assert len(rows) == 14 * 6
    assert {(r["mode"], r["top_k"], r["k"]) for r in rows} == {("nano.local", v, "") for v in ("5", "10", "15")} | {
        ("ms.basic", "", v) for v in ("5", "10", "15")
    }
    assert all(0 <= float(r["evidence_recall"]) <= 1 for r in rows)


def test_compare_two_configs(capsys: pytest.CaptureFixture) -> None:
    argv = ["eval", "--index", str(SAMPLES / "en" / "index"), "--questions", str(SAMPLES / "en" / "questions.jsonl")]
    argv += [
        "--mode",
        "nano.local",
        "--mode",
        "nano.naive",
        "--param",
        "top_k=10",
        "--compare",
        "nano.local",
        "nano.naive",
    ]
    code, stdout, _ = _main(argv, capsys)
    lines = stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("nano.local vs nano.naive on evidence_recall"))
    assert code == 0 and "over 14 question(s):" in lines[at]
    wins, losses, ties = (int(x) for x in re.findall(r"wins (\d+), losses (\d+), ties (\d+)", lines[at + 1])[0])
    assert wins + losses + ties == 14 and len(lines[at + 2 :]) == wins + losses
    assert "Wilcoxon W=" in lines[at + 1]


def test_versions_run_side_by_side(capsys: pytest.CaptureFixture) -> None:
    argv = ["eval", "--index", str(SAMPLES / "en" / "index"), "--questions", str(SAMPLES / "en" / "questions.jsonl")]
    argv += ["--mode", "lightrag.local", "--version", "lightrag.local=1.4.7,1.5.7", "--csv", "-"]
    code, stdout, _ = _main(argv, capsys)
    rows = list(csv.DictReader(io.StringIO(stdout)))
    assert code == 0 and {r["version"] for r in rows} == {"1.4.7", "1.5.7"} and len(rows) == 28


BAD = [
    (["--questions", "missing.jsonl"], "no such question file"),
    (["--mode", "nano.nope"], "unknown mode 'nano.nope'"),
    (["--param", "top_k=5:10:1", "--param", "level=1,2"], "more than one range"),
    (["--param", "top_k=10:5:1"], "needs START ≤ STOP"),
    (["--param", "top_k=1:100000:1"], "more than 200"),
    (["--param", "nonsense=1,2", "--mode", "nano.local"], "no chosen mode has a numeric parameter 'nonsense'"),
    (["--param", "top_k=nan,1"], "cannot read the sweep range"),
    (["--mode", "ms.basic", "--as", "ms.basic=nope", "--param", "top_k=1,2"], "ms.basic has no numeric parameter nope"),
    (["--as", "ms.basic=k", "--mode", "nano.local"], "--as expects MODE=NAME for a chosen mode"),
    (["--version", "lightrag.local=9.9", "--mode", "lightrag.local"], "has no version '9.9'"),
    (["--version", "lightrag.local"], "--version expects MODE=V[,V]"),
    (["--param", "version=1.5.7"], "give releases with --version"),
    (["--workers", "0"], "--workers must be between 1 and 8"),
    (["--csv", "/no/such/folder/rows.csv"], "no such folder for the output file"),
    (["--mode", "nano.local", "--param", "top_k=abc"], "parameter top_k expects a whole number, got 'abc'"),
    (["--param", "nonsense=3"], "no chosen mode has a parameter 'nonsense'"),
    (
        ["--mode", "nano.local", "--param", "top_k=5,10", "--compare", "nano.local=5", "nano.local=7"],
        "--compare 'nano.local=7' is not a config of this run — configs: nano.local=5, nano.local=10",
    ),
    (["--mode", "nano.local", "--judge", "--judge-budget", "nan"], "--judge-budget must be a number of dollars"),
    (["--mode", "nano.local", "--judge", "--judge-concurrency", "99"], "--judge-concurrency must be between 1 and 16"),
]


@pytest.mark.parametrize(("extra", "said"), BAD)
def test_bad_input_is_one_line_and_exit_2(extra: list[str], said: str, capsys: pytest.CaptureFixture) -> None:
    argv = ["eval", "--index", str(SAMPLES / "en" / "index"), "--questions", str(SAMPLES / "en" / "questions.jsonl")]
    if "--questions" in extra:
        argv = argv[:3]
    code, stdout, stderr = _main(argv + extra, capsys)
    assert code == 2, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], stderr
    assert "Traceback" not in stderr and stdout == ""


def test_hostile_question_text_reaches_the_terminal_escaped(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "hostile.jsonl"
    lines = [
        json.dumps({"id": "\x1b[2Jq1", "question": "Who is the Lock Queen?\x1b]0;pwned\x07"}),
        json.dumps({"id": "q2", "question": None, "evidence": "\x1b[31mred"}),
    ]
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["eval", "--index", str(SAMPLES / "en" / "index"), "--questions", str(bad), "--mode", "nano.local"]
    code, stdout, stderr = _main(argv, capsys)
    assert code == 0 and "\x1b" not in stdout + stderr
    assert "skipped " in stderr and "line 2: 'question' must be a non-empty string, got None" in stderr


def test_missing_index_and_a_file_of_bad_lines(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q1", "question": "Who is the Lock Queen?", "evidence_entities": ["Lock Queen"]}\nnope\n')
    code, _, stderr = _main(["eval", "--index", str(tmp_path / "none"), "--questions", str(bad)], capsys)
    assert code == 2 and "no such index folder" in stderr
    argv = ["eval", "--index", str(SAMPLES / "en" / "index"), "--questions", str(bad), "--mode", "nano.local"]
    code, _, stderr = _main(argv + ["--on-bad", "refuse"], capsys)
    assert code == 2 and "1 bad record(s): line 2: not JSON" in stderr
    code, stdout, stderr = _main(argv + ["--csv", "-"], capsys)
    assert code == 0 and "skipped " in stderr and "line 2: not JSON" in stderr
    assert list(csv.DictReader(io.StringIO(stdout)))[0]["entity_recall"] == "1.0"
