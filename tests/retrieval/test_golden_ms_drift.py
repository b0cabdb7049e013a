"""ms.drift's model-free stage against graphrag 3.3.0's DRIFT search itself.

``tests/goldens/graphrag-3/drift_cases.jsonl`` was recorded by the real library on the committed index
(``scripts/goldens/graphrag_3x.py --drift``; ``--drift-sections`` adds ``drift_sections_cases.jsonl``, local
budgets that fill or empty each local section; ``graphrag-2``: the same from 2.7.0) with a scripted model and GraphRAG's two random draws
seeded from one ``random.Random(seed)``: the report list, the HyDE template's position in it and the
prompt, the scripted expansion, the primer ranking (``build_context``'s top-k), every primer prompt's
fold text. We compare: the loaded reports and their order, the template (same seed, same report), the
prompt's pieces (GraphRAG's prompt is one fixed frame around the question and the template; ours
carries both whole), the ranking by the expansion's embedding, and every fold's text byte for byte.
The model stages the golden also records (parsed answers, local contexts, the question graph, the
reduce) are compared in test_golden_ms_drift_loop.py.
"""

from __future__ import annotations

import json

import pytest

from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.index.importers import ms_graphrag
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.ms.drift_search import primer
from graphrag_ui.retrieval.ms.drift_search import search as drift
from graphrag_ui.retrieval.ms.global_search.community_context import level_reports
from tests.conftest import GOLDENS

RELEASES = {"graphrag-3": "3.3.0", "graphrag-2": "2.7.0"}  # golden folder -> the release that made it


FILES = ("drift_cases.jsonl", "drift_sections_cases.jsonl")  # the second: local budgets that fill every section


def _lines(folder: str) -> list[dict]:
    return [
        {**json.loads(line), "folder": folder}
        for name in FILES
        for line in (GOLDENS / folder / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


CASES = [c for folder in RELEASES for c in _lines(folder) if c["mode"] == "drift"]


@pytest.fixture(scope="module")
def indexes():
    return {
        (folder, lang): ms_graphrag.import_dir(GOLDENS / folder / lang, embedder="hash")
        for folder in RELEASES
        for lang in ("en", "zh")
    }


def _params(case: dict) -> dict:
    settings = case["settings"]
    given = {
        "community_level": case["community_level"],
        "seed": case["seed"],
        "drift_k_followups": settings.get("drift_k_followups", 20),
        "primer_folds": settings.get("primer_folds", 5),
        "version": RELEASES[case["folder"]],
    }
    return drift.SPECS[0].resolve(given)


def _run(index, case):
    deps = Deps(embed=HashEmbedder().embed)
    return drift.primer_stage(index, case["query"], _params(case), deps, expansion=case["expansion"])


def test_the_golden_covers_both_releases_both_corpora_tight_parameters_and_odd_answers():
    assert {(c["folder"], c["corpus"]) for c in CASES} == {(f, lang) for f in RELEASES for lang in ("en", "zh")}
    assert any(c["settings"].get("primer_folds") == 1 for c in CASES)
    assert any(c["expansion"] == "" for c in CASES)  # GraphRAG then ranks by the question
    assert any(c["error"].startswith("JSONDecodeError") for c in CASES)  # a fenced primer answer fails 3.x
    assert any(c["community_level"] == 0 for c in CASES)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_reports_template_and_hyde_prompt(indexes, i):
    case = CASES[i]
    index = indexes[case["folder"], case["corpus"]]
    reports = level_reports(index, case["community_level"])
    assert [c.id for c in reports] == case["report_order"]
    pos = primer.pick_template(reports, case["seed"])
    assert pos == case["template_position"]
    template = primer.full_content(reports[pos])
    theirs = case["hyde"][0]
    assert len(theirs) == 1 and theirs[0]["role"] == "user"
    assert template in theirs[0]["content"] and case["query"] in theirs[0]["content"]
    ours = _run(index, case).messages
    assert len(ours) == 1 and ours[0]["role"] == "user"
    assert template in ours[0]["content"] and case["query"] in ours[0]["content"]


@pytest.mark.parametrize("folder", list(RELEASES))
def test_graphrag_hyde_prompt_is_one_frame_around_question_and_template(indexes, folder):
    frames = set()
    for case in (c for c in CASES if c["folder"] == folder):
        reports = level_reports(indexes[case["folder"], case["corpus"]], case["community_level"])
        template = primer.full_content(reports[case["template_position"]])
        frames.add(case["hyde"][0][0]["content"].replace(template, "{template}").replace(case["query"], "{query}"))
    assert len(frames) == 1, frames


@pytest.mark.parametrize("i", range(len(CASES)))
def test_ranking_and_fold_texts_byte_for_byte(indexes, i):
    case = CASES[i]
    index = indexes[case["folder"], case["corpus"]]
    result = _run(index, case)
    assert [c.id for c in result.communities if c.in_context] == case["ranking"]
    prompts = drift.primer_prompts(index, result)
    assert len(prompts) == len(case["primer_folds"])
    top = [index.community_by_id[cid] for cid in case["ranking"]]
    folds = primer.split_folds(top, result.params["primer_folds"])
    assert [[c.id for c in f] for f in folds] == [f["ids"] for f in case["folds"]]
    assert [primer.fold_text(f) for f in folds] == [f["text"] for f in case["folds"]]
    # GraphRAG sends them in an order of its own (asyncio.as_completed starts tasks from a set)
    assert sorted(primer.fold_text(f) for f in folds) == sorted(case["primer_folds"])
    for fold, messages in zip(case["folds"], prompts, strict=True):
        assert fold["text"] in messages[0]["content"] and case["query"] in messages[0]["content"]


def test_context_only_text_holds_every_fold_under_its_header(indexes):
    case = next(c for c in CASES if c["settings"].get("primer_folds") == 2)
    result = _run(indexes[case["folder"], case["corpus"]], case)
    blocks = result.context.split("=== DRIFT primer fold ")[1:]
    assert [b.split(" ===\n", 1)[1] for b in blocks] == [f["text"] + "\n" for f in case["folds"]]


def test_without_a_model_ranks_by_the_question_as_graphrag_does_for_an_empty_expansion(indexes):
    case = next(c for c in CASES if c["expansion"] == "")
    index = indexes[case["folder"], case["corpus"]]
    deps = Deps(embed=HashEmbedder().embed)
    result = drift.run(index, case["query"], _params(case), deps)
    assert [c.id for c in result.communities if c.in_context] == case["ranking"]
    assert any("needs a model" in w for w in result.warnings)
    assert "ranking by cosine of the question" in result.context


@pytest.mark.parametrize("folder", list(RELEASES))
@pytest.mark.parametrize("corpus", ["en", "zh"])
def test_cli_context_only_on_the_imported_golden_index(tmp_path, capsys, corpus, folder):
    """`query --mode ms.drift --context-only` on the index the CLI imports: GraphRAG's folds, each under
    its header line (the empty-expansion case, which GraphRAG ranks by the question as we do)."""
    from graphrag_ui.cli import main

    case = next(c for c in CASES if c["corpus"] == corpus and c["expansion"] == "")
    target = tmp_path / "index"
    assert (
        main(["import", "auto", str(GOLDENS / "graphrag-3" / corpus), "--out", str(target), "--embedder", "hash"]) == 0
    )
    capsys.readouterr()
    params = _params(case)
    args = ["query", "--index", str(target), "--mode", "ms.drift", "--context-only", case["query"]]
    for name in ("seed", "drift_k_followups", "primer_folds", "community_level"):
        args += ["--param", f"{name}={params[name]}"]
    assert main(args) == 0
    out = capsys.readouterr()
    headers = [line for line in out.out.splitlines() if line.startswith("=== DRIFT primer fold ")]
    assert [h.split(": ", 1)[1].removesuffix(" ===").split(", ") for h in headers] == [f["ids"] for f in case["folds"]]
    for fold in case["folds"]:
        assert fold["text"] in out.out
    assert f"#{case['template_position'] + 1} of {len(case['report_order'])} loaded reports" in out.out
    assert "needs a model" in out.err
