"""ms.drift's whole run (``loop.run_loop``) against graphrag 3.3.0's and 2.7.0's DRIFT with the same scripted model.

The goldens (``drift_cases.jsonl``, ``drift_sections_cases.jsonl``) hold GraphRAG's question graph after
its run: every node's question, answer and score in graph order, and the edges. Replaying the golden's scripted model
(``scripts/goldens/graphrag_drift.py``, stdlib only) through our loop must give the same graph — which
needs the same expansion ranking, primer reading, seeded shuffle, follow-up merging and action reading
— and GraphRAG's failures where it fails. Local contexts: GraphRAG builds a round's contexts in an
order set by object addresses and carries ``links`` from one to the next; replayed in its recorded
order with the carried ``links`` they are byte for byte GraphRAG's, and so is every context built fresh
(as ours always are: in these goldens the carried ``links`` never change a table). DRIFT's steps have no
claims part (``loop.local_step``): its engine has no covariates.
"""

from __future__ import annotations

import json
import math
import sys

import pytest

from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.index.importers import ms_graphrag
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.stages import DONE, FAILED
from graphrag_ui.retrieval.ms.drift_search import answers, loop
from graphrag_ui.retrieval.ms.drift_search import search as drift
from tests.conftest import GOLDENS, ROOT

sys.path.insert(0, str(ROOT / "scripts" / "goldens"))
import graphrag_drift as gd  # noqa: E402  (stdlib-only part of the harness: the scripted answers)

RELEASES = {"graphrag-3": "3.3.0", "graphrag-2": "2.7.0"}  # golden folder -> the release that made it


FILES = ("drift_cases.jsonl", "drift_sections_cases.jsonl")  # the second: local budgets that fill every section


def _lines(folder: str) -> list[dict]:
    return [
        {**json.loads(line), "folder": folder}
        for name in FILES
        for line in (GOLDENS / folder / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


ALL = [line for folder in RELEASES for line in _lines(folder)]
CASES = [c for c in ALL if c["mode"] == "drift"]
DEFAULTS = {"drift_k_followups": 20, "primer_folds": 5, "n_depth": 3}


@pytest.fixture(scope="module")
def indexes():
    return {
        (folder, lang): ms_graphrag.import_dir(GOLDENS / folder / lang, embedder="hash")
        for folder in RELEASES
        for lang in ("en", "zh")
    }


def _params(case: dict) -> dict:
    given = {**DEFAULTS, **case["settings"], "community_level": case["community_level"], "seed": case["seed"]}
    given["version"] = RELEASES[case["folder"]]
    return drift.SPECS[0].resolve(given)


def scripted(stage: str, requests: list[loop.Request]) -> list[str | None]:
    out = []
    for r in requests:
        if stage == "expand":
            out.append(gd.expansion_for(r.meta["query"]))
        elif stage == "primer":
            out.append(gd.primer_answer(r.meta["query"], r.meta["fold"]))
        else:
            out.append(gd.local_answer(r.meta["query"], r.meta["global_query"]))
    return out


def _score(value):
    return None if value is None else (value if not math.isinf(value) else ("inf" if value > 0 else "-inf"))


@pytest.mark.parametrize("i", range(len(CASES)))
def test_question_graph_is_graphrags(indexes, i):
    case = CASES[i]
    result = loop.run_loop(
        indexes[case["folder"], case["corpus"]],
        case["query"],
        _params(case),
        Deps(embed=HashEmbedder().embed),
        scripted,
    )
    tree = result.tree
    if case["error"]:
        assert tree.status == FAILED and "fails the query" in tree.note, tree.note
        return
    assert tree.status == DONE, tree.note
    theirs = [(n["query"], n["answer"], _score(n["score"])) for n in case["state"]["nodes"]]
    ours = [(n.query, n.answer, _score(n.score)) for n in tree.nodes]
    assert ours == theirs
    assert [(e.source, e.target) for e in tree.edges] == [(e["source"], e["target"]) for e in case["state"]["edges"]]
    # the same questions were run (GraphRAG's order within a round is its own)
    assert sorted(b["query"] for b in case["local_contexts"]) == sorted(
        tree.nodes[nid].query for r in tree.rounds for nid in r
    )
    kept = [n["answer"] for n in case["state"]["nodes"] if n["answer"]]
    assert tree.reduce_context == str(kept)
    reduce_system = case["reduce_messages"][0][0]["content"]
    assert tree.reduce_context in reduce_system


@pytest.mark.parametrize("i", [i for i, c in enumerate(CASES) if c["local_contexts"]])
def test_local_contexts_byte_for_byte_in_graphrags_order(indexes, i):
    case = CASES[i]
    index = indexes[case["folder"], case["corpus"]]
    params = loop.local_params(_params(case))
    deps = Deps(embed=HashEmbedder().embed)
    carried: dict = {}
    for built in case["local_contexts"]:
        ours = loop.local_step(index, built["query"], params, deps, links_state=carried)
        assert ours.context == _without_artefact(built["context"]), built["query"]
    first = case["local_contexts"][0]
    assert loop.local_step(index, first["query"], params, deps).context == _without_artefact(first["context"])


@pytest.mark.parametrize("i", [i for i, c in enumerate(CASES) if c["local_contexts"]])
def test_every_local_context_is_what_a_fresh_step_builds(indexes, i):
    """Difference 5 (``links`` start fresh) never shows in the goldens: each step built on its own, as
    ms.drift builds it, is GraphRAG's context whatever ran before it in GraphRAG's round."""
    case = CASES[i]
    index = indexes[case["folder"], case["corpus"]]
    params = loop.local_params(_params(case))
    deps = Deps(embed=HashEmbedder().embed)
    for built in case["local_contexts"]:
        assert loop.local_step(index, built["query"], params, deps).context == _without_artefact(built["context"])


def _without_artefact(context: str) -> str:
    """GraphRAG's literal ``[]`` line when no report fits, which ms.local leaves out (docs/differences/ms.md)."""
    return context[len("[]\n\n") :] if context.startswith("[]\n\n") else context


@pytest.mark.parametrize("folder", list(RELEASES))
def test_local_messages_carry_the_question_the_user_question_and_the_follow_up_count(indexes, folder):
    """GraphRAG's local prompt: one frame around the context and the user's question; 3.x asks for up to
    drift_k_followups follow-ups, 2.x for up to five — and so do ours."""
    case = next(c for c in CASES if c["local_messages"] and c["folder"] == folder)
    k = {**DEFAULTS, **case["settings"]}["drift_k_followups"]
    frames = {m[0]["content"].replace(case["query"], "{global_query}") for m in case["local_messages"]}
    wanted = "five" if folder == "graphrag-2" else str(k)
    assert len(frames) == 1 and f"suggest up to {wanted} follow-up questions" in frames.pop()
    sent: list[loop.Request] = []

    def recording(stage, requests):
        sent.extend(r for r in requests if stage == "local")
        return scripted(stage, requests)

    loop.run_loop(
        indexes[folder, case["corpus"]], case["query"], _params(case), Deps(embed=HashEmbedder().embed), recording
    )
    followups = 5 if folder == "graphrag-2" else k
    assert sent and all(f"up to {followups} follow-up questions" in r.messages[0]["content"] for r in sent)
    assert all(r.messages[1] == {"role": "user", "content": r.meta["query"]} for r in sent)


PARSE = {c["folder"]: c for c in ALL if c["mode"] == "drift_parse"}
READ_PRIMER = {"graphrag-3": answers.read_primer, "graphrag-2": answers.read_primer_2x}


@pytest.mark.parametrize(("folder", "i"), [(f, i) for f in RELEASES for i in range(len(PARSE[f]["primer"]))])
def test_primer_answers_are_read_as_graphrag_reads_them(folder, i):
    text, theirs = PARSE[folder]["primer"][i]
    read = READ_PRIMER[folder]
    if "error" in theirs:
        with pytest.raises(answers.QueryFailed):
            answers.combine_primer([read(text)])
        return
    answer, score, follow = answers.combine_primer([read(text)])
    assert (answer, score, follow) == (theirs["answer"], theirs["score"], theirs["follow_ups"])


@pytest.mark.parametrize(("folder", "i"), [(f, i) for f in RELEASES for i in range(len(PARSE[f]["action"]))])
def test_action_answers_are_read_as_graphrag_reads_them(folder, i):
    text, theirs = PARSE[folder]["action"][i]
    if "error" in theirs:
        with pytest.raises(answers.QueryFailed):
            answers.read_action(text)
        return
    read = answers.read_action(text)
    assert (read.answer, read.score, read.follow_ups) == (theirs["answer"], theirs["score"], theirs["follow_ups"])
