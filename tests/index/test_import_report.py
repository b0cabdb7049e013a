"""No dead end after an import (issue 19): the import report, the readiness table, embedder names refused
at import, modes that never embed the question on an index whose embedder is unknown, re-embed as the way
out, and Explore's mode picker marking the modes that cannot run with the reason."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.cli import main
from graphrag_ui.index import store
from graphrag_ui.index.import_report import report
from graphrag_ui.index.importers.command import import_source
from graphrag_ui.index.reembed import reembed
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.retrieval.registry import mode_names
from graphrag_ui.services.query import run_query
from graphrag_ui.services.readiness import CANNOT, GAPS, READY, mode_readiness, readiness
from tests.conftest import GOLDENS, ROOT

LAYOUTS = GOLDENS / "layouts"
QUESTION = "How is the Tidewater Institute related to Kelp Bay?"
NEVER_EMBED = ("nano.global", "ms.global", "lightrag.bypass")


def kept(result) -> int:
    return sum(1 for kind in KINDS for c in result.candidates(kind) if c.in_context)


@pytest.mark.parametrize("name", ["text-embedding-3-small", "", "  ", "litellm:", "hash2"])
def test_blank_or_unknown_embedder_is_refused_with_the_valid_names(tmp_path, name):
    with pytest.raises(UserError) as err:
        import_source("auto", GOLDENS / "nano" / "en", tmp_path / "out", embedder=name)
    assert "use-m3, chroma-minilm, litellm:<model>, hash" in str(err.value.fix)
    assert f"litellm:{name.strip() or 'text-embedding-3-small'}" in str(err.value.fix)
    assert not (tmp_path / "out").exists()


def test_cli_bare_provider_model_names_the_litellm_prefix(tmp_path, capsys):
    code = main(
        [
            "import",
            "auto",
            str(GOLDENS / "nano" / "en"),
            "--out",
            str(tmp_path / "out"),
            "--embedder",
            "text-embedding-3-small",
        ]
    )
    err = capsys.readouterr().err
    assert code != 0 and "litellm:text-embedding-3-small" in err and "Traceback" not in err


def test_cli_import_prints_the_report_and_the_readiness_table(tmp_path, capsys):
    assert main(["import", "auto", str(LAYOUTS / "lightrag-1.2.5"), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "LightRAG 1.2 layout, embedder unknown" in out
    lines = {line.split()[0]: line for line in out.split("modes:\n", 1)[1].splitlines() if line.startswith("  ")}
    assert len(lines) == len(mode_names())
    assert "cannot run" in lines["lightrag.naive"] and "embedder" in lines["lightrag.naive"]
    assert lines["nano.global"].split()[1] == "cannot"  # no community reports in a LightRAG index
    assert "cannot run" not in lines["lightrag.bypass"]


def test_modes_that_never_embed_the_question_run_without_a_known_embedder(tmp_path):
    out = tmp_path / "gr2"
    import_source("auto", GOLDENS / "graphrag-2" / "en", out)  # the embedder left unknown
    index = store.load(out)
    assert index.manifest.embedder == "unknown"
    for mode in NEVER_EMBED:
        result = run_query(index, mode, QUESTION)
        assert mode != "ms.global" or result.stages.batches, mode
    row = mode_readiness(index, "ms.local")
    assert row.status == CANNOT and row.reembed_helps and "unknown" in str(row.reasons[0])
    with pytest.raises(UserError, match="embedder"):
        run_query(index, "ms.local", QUESTION)
    result = run_query(index, "ms.local", QUESTION, {"recall": "ilike"})  # names need no vector
    assert kept(result)


def test_graphrag_output_without_any_vectors_is_said_and_reembed_is_the_way_out(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(GOLDENS / "graphrag-2" / "en", src, ignore=shutil.ignore_patterns("lancedb"))
    out = tmp_path / "out"
    import_source("auto", src, out)
    index = store.load(out)
    warnings = index.manifest.settings["import_warnings"]
    assert any("holds no vectors" in w for w in warnings)
    rows = {r.mode: r for r in readiness(index)}
    assert rows["ms.basic"].status == CANNOT and rows["ms.global"].status == READY
    assert run_query(index, "ms.global", QUESTION).stages.batches
    reembed(out, "hash")
    index = store.load(out)
    assert {r.status for r in readiness(index, ["ms.basic", "ms.local", "ms.global"])} == {READY}
    assert kept(run_query(index, "ms.basic", QUESTION))


def test_lance_ids_matching_no_entity_are_dropped_said_and_reembed_fills_them(tmp_path):
    import lancedb
    import pyarrow as pa

    src = tmp_path / "src"
    shutil.copytree(GOLDENS / "graphrag-2" / "en", src)
    db = lancedb.connect(str(src / "lancedb"))
    table = db.open_table("default-entity-description").to_arrow()
    ids = pa.array([f"ghost-{i}" for i in range(table.num_rows)])
    db.create_table(
        "default-entity-description", table.set_column(table.schema.get_field_index("id"), "id", ids), mode="overwrite"
    )
    out = tmp_path / "out"
    import_source("auto", src, out, embedder="hash")
    index = store.load(out)
    assert any("entity vectors match no entity id" in w for w in index.manifest.settings["import_warnings"])
    assert mode_readiness(index, "ms.local").status == GAPS  # ILIKE still finds names
    reembed(out, "hash")  # never "re-import": the ghost rows are gone, every entity gets a vector
    index = store.load(out)
    assert len(index.vectors["entities"]) == len(index.entities)
    assert kept(run_query(index, "ms.local", QUESTION))


def test_lightrag_relation_rows_stored_in_both_directions_keep_one_and_say_how_many(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(GOLDENS / "lightrag-1.4.7" / "en", src)
    vdb = src / "vdb_relationships.json"
    data = json.loads(vdb.read_text(encoding="utf-8"))
    first = data["data"][0]
    data["data"].append({**first, "__id__": "rel-reversed", "src_id": first["tgt_id"], "tgt_id": first["src_id"]})
    # the matrix gains the reversed row's vector (the float32 copy nano-vectordb stores)
    matrix = np.frombuffer(base64.b64decode(data["matrix"]), dtype=np.float32).reshape(-1, data["embedding_dim"])
    data["matrix"] = base64.b64encode(np.vstack([matrix, matrix[:1]]).tobytes()).decode()
    vdb.write_text(json.dumps(data), encoding="utf-8")
    _, index = import_source("auto", src, tmp_path / "out", embedder="hash")
    assert index.manifest.settings["merged_relation_rows"] == 1
    assert any(
        "1 relation row(s) stored a pair already stored" in w for w in index.manifest.settings["import_warnings"]
    )
    assert len(index.vectors["relations"]) == len(data["data"]) - 1
    assert kept(run_query(index, "lightrag.global", QUESTION, hl=["research site"], ll=["Kelp Bay"]))


def test_lightrag_12_naive_names_the_missing_text_not_the_threshold(tmp_path):
    _, index = import_source("auto", LAYOUTS / "lightrag-1.2.5", tmp_path / "out", embedder="hash")
    facts = report(index)
    assert facts.chunks_without_text == len(index.vectors["chunks"]) > 0
    for threshold in (0.2, 0.0):
        result = run_query(index, "lightrag.naive", QUESTION, {"cosine_better_than_threshold": threshold})
        assert kept(result) == 0
        notes = [w for w in result.warnings if "found nothing" in w]
        assert notes and all("no text" in w and "threshold" not in w for w in notes)


def test_lance_log_lines_are_switched_off_before_lance_loads():
    """lance's Rust logger writes WARN lines (GraphRAG 3.x index notices) to stderr unless LANCE_LOG says
    otherwise: the package sets it before any import, and a user's own setting stands."""
    code = "import os, graphrag_ui.cli; print(os.environ.get('LANCE_LOG'))"
    env = {k: v for k, v in os.environ.items() if k != "LANCE_LOG"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert run.stdout.strip() == "error", run.stderr
    env["LANCE_LOG"] = "debug"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert run.stdout.strip() == "debug"


def test_explore_marks_the_modes_that_cannot_run_and_points_at_re_embed(app, tmp_path):
    from graphrag_ui.ui.shell.state import register_index

    out = tmp_path / "old-lightrag"
    import_source("auto", LAYOUTS / "lightrag-1.2.5", out)  # the embedder left unknown
    key = register_index("old-lightrag", out)
    at = app(index=key, mode="lightrag.naive", q=QUESTION)
    assert not at.error, [e.value for e in at.error]
    assert at.selectbox(key="mode").value == "lightrag.naive" and at.query_params["mode"] == "lightrag.naive"
    note = next(c.value for c in at.caption if c.value.startswith("Cannot run on this index:"))
    assert "lightrag.naive" in note and "lightrag.bypass" not in note and "nano.global" in note
    warning = next(w.value for w in at.warning if "cannot run on this index" in w.value)
    assert "unknown" in warning and "no text" in warning
    assert any("Re-embed" in link.proto.label for link in at.get("page_link"))
    at.selectbox(key="mode").set_value("lightrag.bypass").run()  # never embeds the question: it runs
    assert not at.error and not any("cannot run on this index" in w.value for w in at.warning)
    at.selectbox(key="mode").set_value("nano.local").run()
    assert any("recall = ilike" in w.value for w in at.warning if "cannot run on this index" in w.value)
    at.selectbox(key="nano_recall").set_value("ilike").run()  # names need no vector: the mode runs
    assert not at.error and not any("cannot run on this index" in w.value for w in at.warning)


def test_a_gap_found_later_never_lifts_a_block(tmp_path):
    """lightrag.hybrid on a GraphRAG output with entity vectors only and its embedder unknown: the missing
    relation vectors are a gap, the unknown embedder a block; the block stands (found on a real 0.x output)."""
    src = tmp_path / "src"
    shutil.copytree(GOLDENS / "graphrag-2" / "en", src)
    _, index = import_source("auto", src, tmp_path / "out")
    index.vectors.pop("chunks", None)
    row = mode_readiness(index, "lightrag.hybrid")
    assert row.status == CANNOT and any("unknown" in str(r) for r in row.reasons)


def test_chunks_without_a_vector_are_not_said_to_be_found_by_name(tmp_path):
    from graphrag_ui.index.model import VectorTable

    _, index = import_source("auto", GOLDENS / "graphrag-2" / "en", tmp_path / "out", embedder="hash")
    table = index.vectors["chunks"]
    index.vectors["chunks"] = VectorTable(table.ids[2:], table.matrix[2:])
    total = len(index.chunks)
    said = f"2 of {total} chunks have no vector: vector search never reaches them until you re-embed"
    assert said in report(index).missing
    row = mode_readiness(index, "ms.basic")
    assert row.status == GAPS and said in [str(r) for r in row.reasons]
    assert not any("found by name" in str(r) for r in row.reasons)


def test_compare_says_why_a_side_cannot_run(app, tmp_path):
    from graphrag_ui.ui.shell.state import register_index

    out = tmp_path / "old-lightrag"
    import_source("auto", LAYOUTS / "lightrag-1.2.5", out)  # the embedder left unknown
    key = register_index("old-lightrag", out)
    at = app("pages/compare.py", index=key, cq=QUESTION, a_mode="lightrag.bypass", b_mode="lightrag.local")
    assert not at.error, [e.value for e in at.error]  # no query error with command-line advice
    warning = next(w.value for w in at.warning if "cannot run on this index" in w.value)
    assert warning.startswith("lightrag.local cannot run") and "Re-embed" in warning


def test_the_pages_work_out_readiness_once_per_opened_index(tmp_path):
    from graphrag_ui.services.readiness import kept_readiness

    _, index = import_source("auto", LAYOUTS / "lightrag-1.2.5", tmp_path / "out", embedder="hash")
    first = kept_readiness(index)
    assert kept_readiness(index) is first  # a rerun asks again: the same answer, not another 0.2 s
    reloaded = store.load(tmp_path / "out")  # a re-embed or re-import opens a new object: worked out anew
    assert kept_readiness(reloaded) is not first and kept_readiness(reloaded)[1] == first[1]


@pytest.mark.parametrize(
    "vector_ids",
    [
        ["e3", "e1", "e2", "e4", "e5", "e6"],  # one per row, in row order
        ["e3", "e3", "e1", "e2", "e4", "e5", "e6"],  # a repeated id
        ["e1", "e2", "e3", "e4", "e5", "e6"],  # another order
        ["e1", "e3", "zz"],  # rows without a vector and a vector naming no row
        [],
    ],
)
def test_coverage_counts_what_the_sets_of_ids_say(vector_ids):
    """The aligned case skips building the sets; every case gives the set arithmetic's numbers."""
    import numpy as np

    from graphrag_ui.index.coverage import coverage
    from graphrag_ui.index.model import VectorTable
    from tests.support.store_fixtures import small_index

    index = small_index()
    index.vectors["entities"] = VectorTable(vector_ids, np.zeros((len(vector_ids), 4), dtype=np.float32))
    rows = {e.id for e in index.entities}
    got = coverage(index, "entities")
    assert [e.id for e in index.entities] == ["e3", "e1", "e2", "e4", "e5", "e6"]
    assert (got.rows, got.vectors, got.covered, got.ghosts) == (
        len(rows),
        len(vector_ids),
        len(rows & set(vector_ids)),
        len(set(vector_ids) - rows),
    )


def test_coverage_of_rows_sharing_an_id_aligned_with_their_vectors():
    import numpy as np

    from graphrag_ui.index.coverage import coverage
    from graphrag_ui.index.model import VectorTable
    from tests.support.store_fixtures import small_index

    index = small_index()
    index.entities[1].id = index.entities[0].id  # two rows, one id: counted once, as a set counts it
    ids = [e.id for e in index.entities]
    index.vectors["entities"] = VectorTable(list(ids), np.zeros((len(ids), 4), dtype=np.float32))
    got = coverage(index, "entities")
    assert (got.rows, got.vectors, got.covered, got.ghosts) == (len(ids) - 1, len(ids), len(ids) - 1, 0)
