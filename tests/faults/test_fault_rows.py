"""Fault matrix, bad rows (issue 21, deliver 7): one bad row in an index is named, never silent.

Each case damages one row of a copy of the English sample (duplicate entity, relation, chunk and
community ids, an empty and a repeated entity name, a NaN rating and weight, a vector with a huge
finite norm) and checks that the load names the row and does what it says, and that a query says it.
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pyarrow.parquet as pq
import pytest

from graphrag_ui.cli import main as cli_main
from graphrag_ui.index import store, tables
from graphrag_ui.index.model import Entity, Relation
from graphrag_ui.index.row_checks import SHOWN, check_rows
from tests.conftest import SAMPLES
from tests.support.index_faults import copy_index

EN = SAMPLES / "en" / "index"
QUESTION = "Who founded the Guild of Tidewrights?"


@pytest.fixture(autouse=True)
def quiet_env(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    for var in ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_CATALOG_URL", "CHROMA_HOST"):
        monkeypatch.delenv(var, raising=False)


def edited(tmp_path, name: str, edit) -> tuple:
    """A copy of the sample whose table ``name`` went through ``edit(rows)`` (same row count)."""
    folder = copy_index(EN, tmp_path / "idx")
    original = store.load(EN)
    rows = getattr(original, name)
    edit(rows)
    path = folder / f"{name}.parquet"
    path.unlink()  # a hard link to the sample: write a new file, never through the link
    tables.write_table(name, rows, path)
    assert pq.ParquetFile(path).metadata.num_rows == len(rows)
    return folder, original


def said(capsys, folder, mode: str = "nano.local") -> str:
    code = cli_main(["query", "--index", str(folder), "--mode", mode, "--context-only", QUESTION])
    _, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("name", ["entities", "relations", "chunks", "communities"])
def test_a_duplicate_id_names_the_row_and_ignores_the_later_one(capsys, tmp_path, name):
    def edit(rows):
        rows[5].id = rows[2].id

    folder, original = edited(tmp_path, name, edit)
    index = store.load(folder)
    kept = getattr(index, name)
    assert len(kept) == len(getattr(original, name)) - 1
    assert [r.id for r in kept] == [r.id for i, r in enumerate(getattr(original, name)) if i != 5]
    singular = {"entities": "entity", "relations": "relation", "chunks": "chunk", "communities": "community"}[name]
    line = f"{singular} row 6: duplicate id {original.__getattribute__(name)[2].id!r} (first at row 3)"
    assert [p for p in index.problems if line in p and "the later row is ignored" in p], index.problems
    assert line in said(capsys, folder)


def test_an_empty_name_is_named_and_kept(capsys, tmp_path):
    def edit(rows):
        rows[7].name = ""

    folder, original = edited(tmp_path, "entities", edit)
    index = store.load(folder)
    assert len(index.entities) == len(original.entities)
    assert any(f"entity row 8 (id {original.entities[7].id!r}) has an empty name" in p for p in index.problems)
    assert "has an empty name" in said(capsys, folder, "lightrag.hybrid")


def test_a_repeated_name_is_named_and_the_first_row_is_found(capsys, tmp_path):
    def edit(rows):
        rows[9].name = rows[4].name

    folder, original = edited(tmp_path, "entities", edit)
    index = store.load(folder)
    name = original.entities[4].name
    assert index.entity_by_name[name].id == original.entities[4].id
    assert any(
        f"entity row 10 (id {original.entities[9].id!r}): name {name!r} is also row 5's" in p for p in index.problems
    )
    assert "is also row 5's" in said(capsys, folder, "lightrag.hybrid")


def test_a_nan_rating_is_read_as_no_rating(capsys, tmp_path):
    def edit(rows):
        rows[1].rating = math.nan

    folder, original = edited(tmp_path, "communities", edit)
    index = store.load(folder)
    assert index.communities[1].rating is None
    assert any("community row 2" in p and "rating nan is not a finite number" in p for p in index.problems)
    assert "read as no rating" in said(capsys, folder, "ms.global")


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_a_non_finite_weight_is_named_and_replaced(capsys, tmp_path, value):
    def edit(rows):
        rows[3].weight = value

    folder, _ = edited(tmp_path, "relations", edit)
    index = store.load(folder)
    assert index.relations[3].weight == 1.0
    assert any("relation row 4" in p and f"weight {value!r}" in p and "1.0 is used" in p for p in index.problems)
    assert "1.0 is used" in said(capsys, folder)


@pytest.mark.parametrize("scale", [1e30, -1e30, 1e-6])
def test_a_vector_far_outside_the_range_is_named_and_zeroed(capsys, tmp_path, scale):
    folder = copy_index(EN, tmp_path / "idx")
    npy = folder / "vectors" / "entities.npy"
    matrix = np.load(npy).copy()
    matrix[11] *= np.float32(scale)
    npy.unlink()
    np.save(npy, matrix)
    index = store.load(folder)
    assert not index.vectors["entities"].matrix[11].any()
    assert np.array_equal(np.delete(index.vectors["entities"].matrix, 11, 0), np.delete(matrix, 11, 0))
    assert any("entities vector row 12" in p and "far outside the index's range" in p for p in index.problems)
    err = said(capsys, folder)
    assert "entities vector row 12" in err and "set to zero" in err


@pytest.mark.parametrize(
    "weights",
    [
        [1e308, 1e308, 1.0],  # each finite, their sum is not: the rows are checked one by one, none named
        [True, 2, 2.5],
        [1.0, math.nan, 2.0],
        [math.inf, -math.inf],
        [Decimal("1.5"), 1.0],  # not a float: named, as row by row
        ["2", 1.0],
    ],
)
def test_the_one_pass_weight_check_names_what_the_row_by_row_check_names(weights):
    relations = [Relation(f"r{i}", "a", "b", "d", weight=w) for i, w in enumerate(weights)]
    problems = check_rows({"relations": relations}, {})
    bad = [i + 1 for i, w in enumerate(weights) if not (isinstance(w, (int, float)) and math.isfinite(w))]
    assert [int(p.split()[2]) for p in problems] == bad
    assert [r.weight for r in relations] == [1.0 if i + 1 in bad else w for i, w in enumerate(weights)]


@pytest.mark.parametrize("names", [["a", " ", "b"], ["a", "b", "a"], ["a", "", "a"], ["a", "b"]])
def test_the_one_pass_name_check_names_what_the_row_by_row_check_names(names):
    entities = [Entity(f"e{i}", n, "T", "") for i, n in enumerate(names)]
    problems = check_rows({"entities": entities}, {})
    blank = [i + 1 for i, n in enumerate(names) if not n.strip()]
    repeated = [i + 1 for i, n in enumerate(names) if n.strip() and n in names[:i]]
    assert sorted(int(p.split()[2]) for p in problems) == sorted(blank + repeated)


def test_many_bad_rows_are_counted_not_listed(tmp_path):
    def edit(rows):
        for row in rows[:20]:
            row.weight = math.nan

    folder, _ = edited(tmp_path, "relations", edit)
    problems = store.load(folder).problems
    assert len(problems) == SHOWN + 1 and f"{20 - SHOWN} more rows with the same problem" in problems[-1]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_samples_have_no_bad_rows(lang):
    assert store.load(SAMPLES / lang / "index").problems == []


def test_an_import_names_the_bad_rows_of_its_source(capsys, monkeypatch, tmp_path):
    from graphrag_ui.index.importers import command
    from tests.conftest import ROOT

    real = command.importer

    class Damaging:
        def __init__(self, kind):
            self.inner = real(kind)

        def import_dir(self, *args, **kwargs):
            index = self.inner.import_dir(*args, **kwargs)
            index.relations[0].weight = math.nan
            index.entities[1].id = index.entities[0].id
            return index

    monkeypatch.setattr(command, "importer", Damaging)
    out = tmp_path / "out"
    code = cli_main(["import", "nano", str(ROOT / "tests" / "goldens" / "nano" / "en"), "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert "warning: relation row 1" in err and "warning: entity row 2: duplicate id" in err, err
    index = store.load(out)
    assert index.problems == [] and index.relations[0].weight == 1.0
    assert sum("row" in w for w in command.import_warnings(index)) == 2
