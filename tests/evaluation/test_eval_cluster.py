"""``eval --cluster``: the jobs run on a Dask distributed cluster — here the engine's own local cluster,
started by the test — and give exactly the rows of a local run; bad addresses, an unreachable scheduler and
workers that cannot read the index are said, never a traceback."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.cli import main
from graphrag_ui.evaluation import cluster
from graphrag_ui.evaluation.formats import load_questions
from graphrag_ui.evaluation.gold import QuestionSet
from graphrag_ui.evaluation.plan import EvalPlan
from graphrag_ui.evaluation.runner import run_evaluation
from graphrag_ui.index.store_load import load

distributed = pytest.importorskip("distributed")

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample" / "en"
INDEX_DIR = SAMPLE / "index"


@pytest.fixture(scope="module")
def local_cluster():
    """Dask's own local cluster: two worker processes on the loopback, no dashboard."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as made:
        yield made.scheduler_address


def _rows(run) -> list[dict]:
    out = []
    for row in run.rows:
        data = asdict(row)
        data.pop("ms")
        out.append(data)
    return out


def test_a_cluster_run_gives_the_local_rows(local_cluster):
    index = load(INDEX_DIR)
    questions = QuestionSet("subset", load_questions(SAMPLE / "questions.jsonl").questions[:4])
    plan = EvalPlan(["nano.local", "lightrag.hybrid", "ms.basic"], "top_k", [3, 12], param_names={"ms.basic": "k"})
    local = run_evaluation(index, questions, plan)
    on_cluster = run_evaluation(
        index, questions, plan, executor=cluster.dask_executor(local_cluster, str(INDEX_DIR.resolve()))
    )
    assert len(local.rows) == 4 * 6 and not on_cluster.errors
    assert _rows(on_cluster) == _rows(local)


def test_the_command_runs_on_the_cluster(local_cluster, tmp_path):
    argv = ["eval", "--index", str(INDEX_DIR), "--questions", str(SAMPLE / "questions.jsonl"), "--mode", "ms.basic"]
    here, there = tmp_path / "local.json", tmp_path / "cluster.json"
    assert main([*argv, "--json", str(here)]) == 0
    assert main([*argv, "--cluster", local_cluster, "--json", str(there)]) == 0

    def rows(path: Path) -> list:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [{k: v for k, v in row.items() if k != "ms"} for row in data["rows"]]

    assert rows(there) == rows(here) and rows(here)


@pytest.mark.parametrize(
    "address",
    ["", "not an address", "tcp://", "http://x:1/<script>", "tcp://a b:1", "x" * 5000, "tcp://host:1\n--workers"],
)
def test_a_bad_address_is_refused_before_anything_runs(address, capsys):
    argv = ["eval", "--index", str(INDEX_DIR), "--questions", str(SAMPLE / "questions.jsonl"), "--cluster", address]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--cluster expects a Dask scheduler address" in err and "Traceback" not in err


def test_an_unreachable_scheduler_is_said(monkeypatch, capsys):
    from tests.support.browser_support import free_port

    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 2)
    address = f"tcp://127.0.0.1:{free_port()}"
    argv = ["eval", "--index", str(INDEX_DIR), "--questions", str(SAMPLE / "questions.jsonl"), "--mode", "ms.basic"]
    assert main([*argv, "--cluster", address]) == 2
    err = capsys.readouterr().err
    assert f"cannot reach the Dask scheduler at {address}" in err and "Traceback" not in err


def test_workers_that_cannot_read_the_index_are_said(local_cluster, tmp_path):
    index = load(INDEX_DIR)
    questions = QuestionSet("one", load_questions(SAMPLE / "questions.jsonl").questions[:1])
    missing = str(tmp_path / "not-shared" / "index")
    with pytest.raises(UserError, match="a cluster worker failed") as caught:
        run_evaluation(index, questions, EvalPlan(["ms.basic"]), executor=cluster.dask_executor(local_cluster, missing))
    assert missing in str(caught.value)


def test_cluster_and_workers_together_are_refused(capsys):
    argv = ["eval", "--index", str(INDEX_DIR), "--questions", str(SAMPLE / "questions.jsonl")]
    assert main([*argv, "--cluster", "tcp://127.0.0.1:8786", "--workers", "2"]) == 2
    assert "give --cluster or --workers, not both" in capsys.readouterr().err
