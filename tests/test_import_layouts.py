"""Every on-disk layout the three libraries released imports, and every mode runs or says why not.

tests/goldens/layouts/ holds one small index written by each release that changed the layout
(scripts/goldens/layouts_*.py: the real library in a throwaway venv, a scripted LLM, the hash
embedder); the 1.4.7, 1.5.7, nano 0.0.8.2 and GraphRAG 2.x/3.x layouts are the goldens beside it.
"""

from __future__ import annotations

import pytest
from conftest import GOLDENS

from graphrag_ui.index import store
from graphrag_ui.index.importers.command import import_source
from graphrag_ui.query import run_query
from graphrag_ui.query_readiness import CANNOT, READY, readiness
from graphrag_ui.retrieval.core.result import KINDS

LAYOUTS = GOLDENS / "layouts"
# folder -> (manifest source, layout label, modes that cannot run on it)
EXPECTED = {
    LAYOUTS / "lightrag-1.0.9": (
        "lightrag-1.1",
        "LightRAG ≤ 1.1 layout",
        {"lightrag.naive", "nano.global", "ms.global", "ms.local"},
    ),
    LAYOUTS / "lightrag-1.1.7": (
        "lightrag-1.1",
        "LightRAG ≤ 1.1 layout",
        {"lightrag.naive", "nano.global", "ms.global", "ms.local"},
    ),
    LAYOUTS / "lightrag-1.2.5": (
        "lightrag-1.2",
        "LightRAG 1.2 layout",
        {"lightrag.naive", "nano.global", "ms.global", "ms.local"},
    ),
    LAYOUTS / "lightrag-1.3.9": ("lightrag-1.3", "LightRAG 1.3 layout", {"nano.global", "ms.global", "ms.local"}),
    GOLDENS / "lightrag-1.4.7" / "en": (
        "lightrag-1.4",
        "LightRAG 1.4 layout",
        {"nano.global", "ms.global", "ms.local"},
    ),
    GOLDENS / "lightrag-1.5.7" / "en": (
        "lightrag-1.5",
        "LightRAG 1.5 layout",
        {"nano.global", "ms.global", "ms.local"},
    ),
    LAYOUTS / "nano-graphrag-0.0.8": (
        "nano-graphrag",
        "nano-graphrag 0.0.8.x layout",
        {"nano.naive", "lightrag.global", "lightrag.naive", "ms.basic"},
    ),
    GOLDENS / "nano" / "en": ("nano-graphrag", "nano-graphrag 0.0.8.x layout", {"lightrag.global"}),
    LAYOUTS / "graphrag-1.2.0": ("graphrag-1", "GraphRAG 1.x layout", {"lightrag.global"}),
    LAYOUTS / "graphrag-1.2.0-parquet": ("graphrag-1", "GraphRAG 1.x layout", {"lightrag.global"}),
    GOLDENS / "graphrag-2" / "en": ("graphrag-2", "GraphRAG 2.x layout", {"lightrag.global"}),
    GOLDENS / "graphrag-3" / "en": ("graphrag-3", "GraphRAG 3.x layout", {"lightrag.global"}),
}
QUESTION = "How is the Tidewater Institute related to Kelp Bay?"
KEYWORDS = {"hl": ["location", "research site"], "ll": ["Tidewater Institute", "Kelp Bay"]}  # the corpus' own


def _id(folder) -> str:
    return str(folder.relative_to(GOLDENS))


@pytest.fixture(scope="module", params=list(EXPECTED), ids=_id)
def imported(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("layout") / "index"
    import_source("auto", request.param, out, embedder="hash")
    return request.param, store.load(out)


def test_every_layout_golden_is_tested():
    assert {p for p in LAYOUTS.iterdir() if p.is_dir()} <= set(EXPECTED)


def test_manifest_says_the_layout_the_files_show(imported):
    folder, index = imported
    source, label, _ = EXPECTED[folder]
    assert index.manifest.source == source
    assert index.manifest.settings["layout"] == label
    assert index.entities and index.relations and index.chunks
    assert len(index.vectors["entities"]) == len(index.entities)


def test_every_mode_runs_or_says_why_not(imported):
    folder, index = imported
    rows = {r.mode: r for r in readiness(index)}
    assert {m for m, r in rows.items() if r.status == CANNOT} == EXPECTED[folder][2]
    for mode, row in rows.items():
        result = run_query(index, mode, QUESTION, **(KEYWORDS if mode.startswith("lightrag") else {}))
        kept = sum(1 for kind in KINDS for c in result.candidates(kind) if c.in_context)
        if mode == "lightrag.bypass":
            assert kept == 0
        elif row.status == CANNOT:
            assert kept == 0, mode
            assert any("found nothing" in w for w in result.warnings), (mode, result.warnings)
        else:
            assert kept, (mode, row.reasons, result.warnings)
            if row.status == READY:
                assert not any("found nothing" in w for w in result.warnings), mode
