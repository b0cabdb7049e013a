"""A save that fails or crashes midway never leaves a half index that ``load`` accepts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.index import store
from graphrag_ui.index.servers import catalog
from tests.support.store_fixtures import small_index

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _boom(*_args, **_kwargs):
    raise RuntimeError("disk on fire")


def test_failure_after_tables_leaves_no_index_and_no_temp(tmp_path, monkeypatch):
    monkeypatch.setattr(catalog, "write_catalog", _boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        store.save(small_index(), tmp_path / "idx")
    assert list(tmp_path.iterdir()) == []


def test_failure_while_overwriting_keeps_the_old_index(tmp_path, monkeypatch):
    out = tmp_path / "idx"
    old = small_index()
    store.save(old, out)
    new = small_index()
    new.entities[0].description = "new"
    new.refresh()
    monkeypatch.setattr(store, "_write_manifest", _boom)
    with pytest.raises(RuntimeError):
        store.save(new, out)
    assert store.load(out).entities == old.entities
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def _crash_in_child(out, patch: str) -> None:
    """Save in a child process that dies (os._exit, no cleanup) at the patched point."""
    code = textwrap.dedent(
        f"""
        import os, sys
        sys.path[:0] = [{ROOT!r}, {os.path.join(ROOT, "tests")!r}]
        from tests.support.store_fixtures import small_index
        from graphrag_ui.index import store
        from graphrag_ui.index.servers import catalog
        index = small_index()
        index.entities[0].description = "from the crashed save"
        index.refresh()
        {patch}
        store.save(index, {str(out)!r})
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 3, proc.stderr


def test_crash_midway_leaves_old_index_and_a_rejected_temp_folder(tmp_path):
    out = tmp_path / "idx"
    old = small_index()
    store.save(old, out)
    _crash_in_child(out, "catalog.write_catalog = lambda *a, **k: os._exit(3)")
    assert store.load(out).entities == old.entities  # the target is still the old complete index
    temps = [p for p in tmp_path.iterdir() if p.name != "idx"]
    assert len(temps) == 1 and temps[0].name.startswith(".idx.tmp-")
    assert (temps[0] / "entities.parquet").is_file()  # tables were written…
    with pytest.raises(IndexFormatError, match="manifest.json is missing"):
        store.load(temps[0])  # …but without a manifest the half folder is not an index
    # a later save works and is not confused by the leftover
    store.save(old, out)
    assert store.load(out).entities == old.entities


def test_crash_between_the_two_renames(tmp_path):
    out = tmp_path / "idx"
    old = small_index()
    store.save(old, out)
    # the first rename moves the old index away; die right after it
    patch = (
        "real = os.rename; os.rename = lambda a, b: (real(a, b), os._exit(3)) if str(a).endswith('idx') else real(a, b)"
    )
    _crash_in_child(out, patch)
    # the target is absent, the old complete index sits beside it, the new one is complete too
    assert not out.exists()
    olds = [p for p in tmp_path.iterdir() if p.name.startswith(".idx.old-")]
    assert len(olds) == 1 and store.load(olds[0]).entities == old.entities
    with pytest.raises(IndexFormatError, match=r"interrupted while swapping.*previous complete index is .*\.idx\.old-"):
        store.load(out)


def test_concurrent_saves_to_one_target_leave_one_complete_index(tmp_path, monkeypatch):
    import threading
    import time

    real_rename = os.rename

    def slow_rename(a, b):  # widen the window between the two renames of a swap
        real_rename(a, b)
        time.sleep(0.2)

    monkeypatch.setattr(os, "rename", slow_rename)
    out = tmp_path / "idx"
    versions = []
    for i in range(4):
        index = small_index()
        index.entities[0].description = f"version {i}"
        index.refresh()
        versions.append(index)
    errors = []

    def save(index):
        try:
            store.save(index, out)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=save, args=(v,)) for v in versions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    loaded = store.load(out)
    assert loaded.entities[0].description in {f"version {i}" for i in range(4)}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]
