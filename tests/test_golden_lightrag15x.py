"""lightrag-hku 1.5.7 fixtures: our (1.4.7) modes run on the 1.5 layout, and where 1.5.7 does not
truncate differently, they select the same entities and relations in the same order.

1.5.7 changed the context text (JSON lines, references) and token counting (no ``id`` field,
separators counted), so contexts and budget-cut cases are not compared; the local/global paths and
round-robin merges are the same in both versions, which these cases prove on the 1.5 layout.
"""

from __future__ import annotations

import json
from functools import cache

import pytest
from conftest import GOLDENS

from graphrag_ui.embed import HashEmbedder
from graphrag_ui.index.importers import lightrag as importer
from graphrag_ui.retrieval.deps import Deps
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.retrieval.result import Keywords

GOLDEN = GOLDENS / "lightrag-1.5.7"
CASES = [json.loads(line) for line in (GOLDEN / "cases.jsonl").read_text(encoding="utf-8").splitlines()]


@cache
def golden_index(corpus: str):
    return importer.import_dir(GOLDEN / corpus, embedder="hash")


def run(case: dict):
    spec = get_mode("lightrag." + case["mode"])
    deps = Deps(embed=HashEmbedder().embed, keywords=Keywords(case["hl_keywords"], case["ll_keywords"], "user"))
    return spec.func(golden_index(case["corpus"]), case["query"], spec.resolve(case["params"]), deps)


UNTRUNCATED = [
    pytest.param(c, id=f"{c['corpus']}-{c['mode']}-{i}")
    for i, c in enumerate(CASES)
    if c["mode"] != "naive" and not any(k.startswith("max_entity") or k.startswith("max_relation") for k in c["params"])
]


def test_fixture_is_the_1_5_layout():
    assert golden_index("en").manifest.source == "lightrag-1.5"
    assert len(UNTRUNCATED) >= 16


@pytest.mark.parametrize("case", UNTRUNCATED)
def test_same_entities_and_relations_as_1_5_7(case):
    result = run(case)
    assert result.context.startswith("-----Entities(KG)-----")
    assert [c.label for c in result.entities if c.in_context] == case["selected"]["entities"]
    pairs = [[c.data["entity1"], c.data["entity2"]] for c in result.relations if c.in_context]
    assert pairs == case["selected"]["relations"]


@pytest.mark.parametrize("mode", ["naive"])
def test_naive_runs_on_the_1_5_layout(mode):
    case = next(c for c in CASES if c["mode"] == mode)
    result = run(case)
    assert set(result.selected_ids("chunks")) <= set(golden_index(case["corpus"]).chunk_by_id)
    assert result.selected_ids("chunks")
