"""Fault matrix, traceback part (issue 21, deliver 6): each remaining traceback is one clear line.

Deeply nested JSON (manifest, ids file, an import source, a ``--batch`` line); symbolic-link loops and
links leaving the folder, refused the same way for every file the loader opens; a catalog database
that is down during an import; a lone surrogate in ``--batch`` (that line errors, the others run); a
byte that is not UTF-8 in a command-line argument (every mode, and the ILIKE recall).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys

import pytest

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.cli import main as cli_main
from graphrag_ui.index import store
from graphrag_ui.retrieval.registry import mode_names
from tests.conftest import ROOT, SAMPLES
from tests.support.index_faults import copy_index, replace

EN = SAMPLES / "en" / "index"
NANO_SRC = ROOT / "tests" / "goldens" / "nano" / "en"
DEEP = "[" * 100_000 + "]" * 100_000
QUESTION = "Who founded the Guild of Tidewrights?"
PROGRESS = re.compile(r"^[^:]+: (?:done |start, )?\d+(?:/\d+| to do)")


@pytest.fixture(autouse=True)
def quiet_env(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    for var in ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_CATALOG_URL", "CHROMA_HOST"):
        monkeypatch.delenv(var, raising=False)


def one_line(capsys, *argv: str, code: int = 2) -> str:
    got = cli_main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out, err
    err = "".join(line for line in err.splitlines(True) if not PROGRESS.match(line))  # import's stage lines
    assert got == code and err.startswith("error: ") and err.count("\n") == 1, (got, err)
    return err


def query(index, *extra: str) -> list[str]:
    return ["query", "--index", str(index), "--context-only", *extra, QUESTION]


# --- deeply nested JSON ---------------------------------------------------------------------------


@pytest.mark.parametrize("relative", ["manifest.json", "vectors/entities.ids.json"])
def test_deep_json_in_an_index_file(capsys, tmp_path, relative):
    folder = copy_index(EN, tmp_path / "idx")
    replace(folder / relative, DEEP.encode())
    err = one_line(capsys, *query(folder))
    assert relative.rsplit("/", 1)[-1] in err and "nested too deeply" in err, err


def test_deep_json_in_an_import_source(capsys, tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for file in NANO_SRC.iterdir():
        (source / file.name).write_bytes(file.read_bytes()) if file.is_file() else None
    replace(source / "kv_store_full_docs.json", DEEP.encode())
    err = one_line(capsys, "import", "nano", str(source), "--out", str(tmp_path / "out"), "--embedder", "hash")
    assert "kv_store_full_docs.json" in err and "nested too deeply" in err and not (tmp_path / "out").exists()


# --- symbolic links: the same containment for every file ------------------------------------------

LINKED = ["manifest.json", "entities.parquet", "catalog.sqlite", "vectors", "vectors/chunks.npy",
          "vectors/chunks.ids.json", "chroma"]  # fmt: skip


def _swap_for_link(folder, relative: str, target) -> None:
    path = folder / relative
    if path.is_dir():
        import shutil

        shutil.rmtree(path)
    else:
        path.unlink()
    os.symlink(target, path)


@pytest.mark.parametrize("relative", LINKED)
def test_a_symlink_loop_is_one_line(capsys, tmp_path, relative):
    folder = copy_index(EN, tmp_path / "idx")
    _swap_for_link(folder, relative, folder / relative)  # points at itself
    with pytest.raises(IndexFormatError) as caught:
        store.load(folder)
    assert relative.rsplit("/", 1)[-1] in str(caught.value)
    one_line(capsys, *query(folder))


@pytest.mark.parametrize("relative", LINKED)
def test_a_symlink_leaving_the_folder_is_refused(capsys, tmp_path, relative):
    folder = copy_index(EN, tmp_path / "idx")
    outside = copy_index(EN, tmp_path / "elsewhere")
    _swap_for_link(folder, relative, outside / relative)
    with pytest.raises(IndexFormatError, match="outside the index folder"):
        store.load(folder)
    one_line(capsys, *query(folder))


def test_symlinks_inside_the_folder_still_work(tmp_path):
    folder = copy_index(EN, tmp_path / "idx")
    os.rename(folder / "vectors", folder / "vectors-real")
    os.symlink("vectors-real", folder / "vectors")
    assert len(store.load(folder).entities) == len(store.load(EN).entities)


# --- a catalog database that is down during an import ---------------------------------------------


def test_a_catalog_database_down_during_import(capsys, monkeypatch, tmp_path):
    with socket.socket() as probe:  # a free port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("GRAPHRAG_UI_CATALOG_URL", f"postgresql+psycopg://app:pw-8812x@127.0.0.1:{port}/graphrag")
    err = one_line(capsys, "import", "nano", str(NANO_SRC), "--out", str(tmp_path / "out"), "--embedder", "hash")
    assert "catalog database" in err and "pw-8812x" not in err and f"127.0.0.1:{port}" in err, err
    assert not (tmp_path / "out").exists() and not [p for p in tmp_path.iterdir() if ".out." in p.name]


# --- lone surrogates and bytes that are not UTF-8 -------------------------------------------------


def test_a_lone_surrogate_in_batch_errors_that_line_only(capsys, tmp_path):
    cases = tmp_path / "cases.jsonl"
    lines = [{"query": QUESTION}, {"query": "Who is \ud800 here?"}, {"query": "[[deep"}, {"query": QUESTION}]
    text = "\n".join(json.dumps(case) for case in lines) + "\n" + DEEP + "\n"
    cases.write_text(text, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code = cli_main(["query", "--index", str(EN), "--batch", str(cases), "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in err and "internal error" not in err, err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 5]
    assert [("error" in r) for r in rows] == [False, True, False, False, True]
    assert "lone surrogate \\ud800 at character 7" in rows[1]["error"]
    assert "nested too deeply" in rows[4]["error"]


MODES = mode_names()


@pytest.mark.parametrize("mode", MODES)
def test_a_non_utf8_byte_in_the_question(capsys, mode):
    err = one_line(capsys, "query", "--index", str(EN), "--mode", mode, "--context-only", "Who is \udcff?")
    assert "not valid UTF-8 (byte 0xff at character 7)" in err, err


@pytest.mark.parametrize("where", [("--recall", "ilike"), ("--ll", "Lock \udce9"), ("--param", "response_type=\udcff")])
def test_a_non_utf8_byte_anywhere_in_the_arguments(capsys, where):
    mode = "lightrag.hybrid" if where[0] == "--ll" else "nano.local"
    argv = ["query", "--index", str(EN), "--mode", mode, "--context-only", *where, "Who is \udcff?"]
    err = one_line(capsys, *argv)
    assert "not valid UTF-8" in err, err


def test_a_non_utf8_byte_from_a_real_command_line(tmp_path):
    argv = [sys.executable, "-m", "graphrag_ui", "query", "--index", str(EN), "--recall", "ilike"]
    done = subprocess.run([os.fsencode(a) for a in argv] + [b"caf\xe9 owner?"], capture_output=True, cwd=ROOT)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert "not valid UTF-8 (byte 0xe9 at character 3)" in err and "catalog" not in err, err
