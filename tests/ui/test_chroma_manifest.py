"""Explore asks on every move whether the index's vectors are on a chroma server (state.on_chroma_server);
the manifest is read once per version of it, and a rewritten manifest is read again."""

from __future__ import annotations

import json
import os

from graphrag_ui.ui.shell import state


def _write(folder, storage) -> None:
    (folder / "manifest.json").write_text(json.dumps({"storage": storage}), encoding="utf-8")


def test_a_manifest_is_read_once_and_again_when_rewritten(tmp_path, monkeypatch):
    _write(tmp_path, {"chroma": {"mode": "server", "collections": {"entities": "e"}}})
    assert state.on_chroma_server(tmp_path)
    reads = []
    real = state.Path.read_text
    monkeypatch.setattr(state.Path, "read_text", lambda self, **k: reads.append(self) or real(self, **k))
    assert state.on_chroma_server(tmp_path) and not reads  # the same version: not read again

    _write(tmp_path, {"chroma": {"mode": "local"}})
    stamp = (tmp_path / "manifest.json").stat()
    os.utime(tmp_path / "manifest.json", ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))
    assert not state.on_chroma_server(tmp_path) and len(reads) == 1


def test_no_manifest_or_a_broken_one_is_not_a_server(tmp_path):
    assert not state.on_chroma_server(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json", encoding="utf-8")
    assert not state.on_chroma_server(tmp_path)
    _write(tmp_path, ["a list, not a mapping"])
    assert not state.on_chroma_server(tmp_path)
