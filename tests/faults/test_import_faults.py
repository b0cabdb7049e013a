"""Odd sources and leftovers: importers name the file and record of a wrong field type, warn about what
is missing, never leave temporary folders; the CLI never prints control characters from index or model text."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.terminal import safe_text
from graphrag_ui.cli import main as cli_main
from graphrag_ui.index import store
from graphrag_ui.index.importers import lightrag, ms_graphrag, nano_graphrag
from graphrag_ui.index.model import VectorTable
from tests.conftest import GOLDENS

ESC = "\x1b]0;pwned\x07\x1b[2J"


def copy(src: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(src, tmp_path / "src"))


def edit_json(path: Path, edit) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data = edit(data) or data
    path.write_text(json.dumps(data), encoding="utf-8")


# --- field types ---------------------------------------------------------------------------------


def test_lightrag_chunk_tokens_not_a_number(tmp_path):
    folder = copy(GOLDENS / "lightrag-1.4.7" / "en", tmp_path)
    first = next(iter(json.loads((folder / "kv_store_text_chunks.json").read_text(encoding="utf-8"))))
    edit_json(folder / "kv_store_text_chunks.json", lambda d: d[first].update(tokens="x"))
    with pytest.raises(IndexFormatError) as caught:
        lightrag.import_dir(folder)
    message = str(caught.value)
    assert "kv_store_text_chunks.json" in message and f"record {first!r}" in message
    assert "'tokens' is 'x', expected an integer" in message


def test_nano_chunk_order_a_list(tmp_path):
    folder = copy(GOLDENS / "nano" / "en", tmp_path)
    first = next(iter(json.loads((folder / "kv_store_text_chunks.json").read_text(encoding="utf-8"))))
    edit_json(folder / "kv_store_text_chunks.json", lambda d: d[first].update(chunk_order_index=[1]))
    with pytest.raises(IndexFormatError, match=r"kv_store_text_chunks.json: record .*'chunk_order_index' is \[1\]"):
        nano_graphrag.import_dir(folder)


def test_graphrag_weight_column_of_strings(tmp_path):
    folder = copy(GOLDENS / "graphrag-2" / "en", tmp_path)
    path = folder / "relationships.parquet"
    table = pq.read_table(path)
    index = table.column_names.index("weight")
    table = table.set_column(index, "weight", pa.array(["heavy"] * table.num_rows))
    pq.write_table(table, path)
    first = table.column("id")[0].as_py()
    with pytest.raises(IndexFormatError) as caught:
        ms_graphrag.import_dir(folder)
    assert "relationships.parquet" in str(caught.value) and f"record {first!r}: 'weight' is 'heavy'" in str(
        caught.value
    )


# --- warnings at import ----------------------------------------------------------------------------


def run_import(capsys, kind: str, src: Path, out: Path) -> tuple[int, str, str]:
    code = cli_main(["import", kind, str(src), "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_nano_reports_null_and_no_entity_vectors_are_warned(tmp_path, capsys):
    folder = copy(GOLDENS / "nano" / "en", tmp_path)
    (folder / "kv_store_community_reports.json").write_text("null", encoding="utf-8")
    (folder / "vdb_entities.json").unlink()
    code, _out, err = run_import(capsys, "nano", folder, tmp_path / "out")
    assert code == 0
    assert "warning: kv_store_community_reports.json holds no community reports" in err
    assert "warning: vdb_entities.json is missing" in err


# --- non-finite vectors are refused wherever vectors are written -------------------------------------


def test_nan_vectors_are_refused_at_save(tmp_path):
    index = store.load(GOLDENS.parent.parent / "data" / "sample" / "en" / "index")
    matrix = index.vectors["entities"].matrix.copy()
    matrix[5, 0] = np.nan
    index.vectors["entities"] = VectorTable(index.vectors["entities"].ids, matrix)
    with pytest.raises(IndexFormatError, match=r"vectors.entities: 1 vector\(s\) hold NaN .*first at row 5"):
        store.save(index, tmp_path / "nan")
    assert not (tmp_path / "nan").exists() and not list(tmp_path.glob(".*tmp-*"))


# --- no temporary folders left behind --------------------------------------------------------------


def test_stale_tmp_folders_of_a_killed_save_are_removed_by_the_next_save(tmp_path):
    index = store.load(GOLDENS.parent.parent / "data" / "sample" / "en" / "index")
    stale = tmp_path / ".old-import.tmp-deadbeef"
    (stale / "vectors").mkdir(parents=True)
    (stale / "entities.parquet").write_bytes(b"half")
    young = tmp_path / ".other.tmp-0badf00d"  # perhaps a save that just started: left alone
    young.mkdir()
    old = time.time() - 3600
    os.utime(stale, (old, old))
    store.save(index, tmp_path / "fresh")
    assert not stale.exists() and young.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.tmp-0badf00d", "fresh"]


def test_a_live_save_keeps_its_folder(tmp_path):
    import fcntl

    live = tmp_path / ".busy.tmp-12345678"
    live.mkdir()
    old = time.time() - 3600
    os.utime(live, (old, old))
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert store.remove_stale_tmp(tmp_path) == [] and live.exists()
    finally:
        os.close(fd)
    assert store.remove_stale_tmp(tmp_path) == [live]


# --- terminal-safe output ----------------------------------------------------------------------------


def test_safe_text_escapes_controls_but_keeps_lines():
    assert safe_text("a\x1b[31mred\x07\nnext\tcol\u202eevil") == "a\\x1b[31mred\\x07\nnext\tcol\\u202eevil"
    assert safe_text("one\ntwo\r", one_line=True) == "one\\ntwo\\r"
    assert safe_text("plain 中文 text") == "plain 中文 text"


@pytest.fixture()
def evil_index(tmp_path) -> Path:
    """The English sample with an entity name and description carrying terminal escapes."""
    index = store.load(GOLDENS.parent.parent / "data" / "sample" / "en" / "index")
    entity = index.entities[0]
    entity.description = f"{entity.description} {ESC}"
    index.refresh()
    out = tmp_path / "evil"
    store.save(index, out)
    return out


def test_cli_escapes_index_text_but_context_only_and_json_stay_exact(evil_index, capsys, monkeypatch):
    monkeypatch.delenv("GRAPHRAG_UI_LLM_MODEL", raising=False)
    entity = store.load(evil_index).entities[0]
    question = f"Tell me about {entity.name}"
    assert cli_main(["query", "--index", str(evil_index), "--mode", "nano.local", question]) == 0
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "\x07" not in out + err and "\\x1b]0;pwned\\x07" in out
    assert cli_main(["query", "--index", str(evil_index), "--mode", "nano.local", "--context-only", question]) == 0
    out, _ = capsys.readouterr()
    assert ESC in out
    assert cli_main(["query", "--index", str(evil_index), "--mode", "nano.local", "--json", question]) == 0
    out, _ = capsys.readouterr()
    assert json.loads(out)["context"].count(ESC) >= 1
