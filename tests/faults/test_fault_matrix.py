"""Fault matrix: every damaged copy of both samples gives one ``IndexFormatError`` naming the file.

Through the loader, the CLI (exit 2, one line on stderr, no traceback; in-process for speed, a few
real subprocesses to prove it) and the app (the message on the page, no exception element, the
index picker still usable).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.cli import main as cli_main
from graphrag_ui.index import store, validate
from tests.support.index_faults import FAULTS, copy_index, replace  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = {lang: ROOT / "data" / "sample" / lang / "index" for lang in ("en", "zh")}
CASES = [pytest.param(lang, fault, id=f"{lang}-{fault[0]}") for lang in SAMPLES for fault in FAULTS]


@pytest.fixture(autouse=True)
def short_lock_wait(monkeypatch):
    monkeypatch.setattr(validate, "LOCK_WAIT", 0.2)


@pytest.fixture()
def damaged(tmp_path):
    """``make(lang, fault)`` -> the folder of a damaged copy; lock holders are released afterwards."""
    with contextlib.ExitStack() as stack:

        def make(lang: str, fault) -> Path:
            name, damage, _names = fault
            folder = copy_index(SAMPLES[lang], tmp_path / f"{lang}-{name.replace(' ', '-')}")
            damage(folder, stack)
            return folder

        yield make


def test_at_least_thirty_faults_per_sample():
    assert len(FAULTS) >= 30
    assert len({name for name, _d, _n in FAULTS}) == len(FAULTS)


@pytest.mark.parametrize(("lang", "fault"), CASES)
def test_load_and_cli_name_the_file(damaged, capsys, lang, fault):
    folder = damaged(lang, fault)
    with pytest.raises(IndexFormatError) as caught:
        store.load(folder)
    assert fault[2] in str(caught.value)
    assert "—" in str(caught.value), "the message says what to do"
    capsys.readouterr()
    code = cli_main(["query", "--index", str(folder), "--context-only", "Who is it about?"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and fault[2] in err, err
    assert "Traceback" not in err


def test_an_undamaged_copy_loads(damaged, tmp_path):
    folder = copy_index(SAMPLES["en"], tmp_path / "clean")
    assert len(store.load(folder).entities) == 70


def test_unreadable_file_is_named(damaged, tmp_path, monkeypatch):
    folder = copy_index(SAMPLES["en"], tmp_path / "unreadable")
    target = folder / "relations.parquet"
    if os.geteuid() == 0:
        # root reads a file whatever its mode, so chmod cannot make one unreadable here: the OS error
        # the loader meets is raised the way the kernel would for another user
        import pyarrow.parquet as pq

        real = pq.ParquetFile

        def refuse(path, *a, **k):
            if Path(path) == target:
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, *a, **k)

        monkeypatch.setattr(pq, "ParquetFile", refuse)
    else:
        replace(target, target.read_bytes())
        target.chmod(0)
    with pytest.raises(IndexFormatError, match="relations.parquet: cannot read the file: permission denied"):
        store.load(folder)


@pytest.mark.parametrize(
    "fault",
    [f for f in FAULTS if f[0] in {"manifest count a string", "entity vectors NaN", "catalog locked"}],
    ids=lambda f: f[0],
)
def test_cli_subprocess_has_no_traceback(damaged, fault):
    folder = damaged("en", fault)
    run = subprocess.run(
        [sys.executable, "-m", "graphrag_ui", "query", "--index", str(folder), "--recall", "hybrid", "Who?"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    assert run.stderr.startswith("error: ") and run.stderr.count("\n") == 1, run.stderr
    assert fault[2] in run.stderr


APP_FAULTS = [
    f
    for f in FAULTS
    if f[0]
    in {
        "manifest count a string",
        "entities names null",
        "entity vectors NaN",
        "entity ids not JSON",
        "catalog locked",
        "chroma garbage",
    }
]


@pytest.mark.parametrize("fault", APP_FAULTS, ids=lambda f: f[0])
def test_app_shows_the_message_and_keeps_the_picker(app, damaged, fault):
    from graphrag_ui.ui.shell.state import register_index

    key = register_index(f"damaged {fault[0]}", damaged("en", fault))
    at = app(index=key, q="Who is it about?")
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert any(fault[2] in e for e in errors), errors
    picker = at.sidebar.selectbox(key="index")
    assert key in picker.options and "sample:en" in picker.options
    picker.set_value("sample:en").run()
    assert not at.exception and not at.error, [e.value for e in at.error]


def test_a_lock_taken_after_loading_is_reported_at_query_time(damaged, tmp_path):
    from graphrag_ui.services.query import run_query
    from tests.support.index_faults import FAULTS as faults

    folder = copy_index(SAMPLES["en"], tmp_path / "later-lock")
    index = store.load(folder)
    lock = next(f for f in faults if f[0] == "catalog locked")[1]
    with contextlib.ExitStack() as stack:
        lock(folder, stack)
        with pytest.raises(IndexFormatError, match="catalog.sqlite: the database is locked by another process"):
            run_query(index, "nano.local", "Who is Alice?", {"recall": "hybrid"})


def test_reembed_repairs_nan_vectors(damaged):
    from graphrag_ui.index.reembed import reembed

    folder = damaged("en", next(f for f in FAULTS if f[0] == "entity vectors NaN"))
    with pytest.raises(IndexFormatError, match="NaN"):
        store.load(folder)
    repaired = reembed(folder, "hash")
    assert repaired.manifest.embedder == "hash" and len(store.load(folder).vectors["entities"]) == 70


ZH_FAULTS = [f for f in FAULTS if f[0] in {"manifest count a string", "entity vectors NaN", "catalog locked"}]


@pytest.mark.parametrize("fault", ZH_FAULTS, ids=lambda f: f[0])
def test_app_in_chinese_shows_the_message_in_chinese(app, damaged, fault):
    """With the UI in zh the same one line is Chinese: what and fix translated, the file kept."""
    import re

    from graphrag_ui.base.i18n import error_text
    from graphrag_ui.ui.shell.state import register_index

    folder = damaged("en", fault)
    with pytest.raises(IndexFormatError) as caught:
        store.load(folder)
    key = register_index(f"damaged {fault[0]}", folder)
    at = app(index=key, q="Who is it about?", lang="zh")
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    shown = next((e for e in errors if fault[2] in e), None)
    assert shown is not None, errors
    assert re.search(r"[\u4e00-\u9fff]", shown) and "Traceback" not in shown, shown
    # the English what and fix are gone (the file and the values stay)
    assert caught.value.what not in shown and caught.value.fix not in shown, shown
    assert shown.endswith(error_text(caught.value, "zh").split(": ", 1)[1]), (shown, error_text(caught.value, "zh"))
