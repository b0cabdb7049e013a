"""``base.file_version``: the key the secrets file, a manifest and a catalog are parsed once under. The case the
older keys (mtime and size, or inode and mtime) missed: a copy that sets the old mtime back over a file of the
same size — ``cp -p`` of a backup, ``rsync -t`` — must be read again."""

from __future__ import annotations

import json
import os
import sqlite3

from graphrag_ui.base.file_version import version
from graphrag_ui.model_client import settings as st
from graphrag_ui.model_client.settings import LLMSettings
from graphrag_ui.ui.shell import state


def _same_size_same_mtime_rewrite(path, text: str) -> None:
    """Write ``text`` (as long as the file's old text) and give the file its old mtime back."""
    before = os.stat(path)
    assert len(text.encode()) == before.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_mtime_ns == before.st_mtime_ns


def test_a_version_names_a_regular_file_and_nothing_else(tmp_path):
    file = tmp_path / "a.toml"
    assert version(file) is None  # absent
    assert version(tmp_path) is None  # a folder
    assert version(str(file) + "\0") is None  # a path the OS refuses
    file.write_text("x = 1")
    first = version(file)
    assert first is not None and version(file) == first
    (tmp_path / "link.toml").symlink_to(file)
    assert version(tmp_path / "link.toml") == first  # a link reads its target
    _same_size_same_mtime_rewrite(file, "x = 2")
    assert version(file) != first


def test_the_secrets_file_restored_with_its_old_mtime_is_read_again(tmp_path):
    path = tmp_path / "secrets.toml"
    path.write_text('[llm]\nmodel = "openai/aaaa"\n')
    assert LLMSettings.from_env_and_secrets(path).model == "openai/aaaa"
    _same_size_same_mtime_rewrite(path, '[llm]\nmodel = "openai/bbbb"\n')
    assert LLMSettings.from_env_and_secrets(path).model == "openai/bbbb"
    st._parsed.clear()


def test_a_manifest_restored_with_its_old_mtime_is_read_again(tmp_path):
    manifest = tmp_path / "manifest.json"
    on = {"storage": {"chroma": {"mode": "server", "collections": {"entities": "e"}}}}
    manifest.write_text(json.dumps(on))
    assert state.on_chroma_server(tmp_path)
    off = json.dumps(on).replace('"server"', '"local!"')
    _same_size_same_mtime_rewrite(manifest, off)
    assert not state.on_chroma_server(tmp_path)


def test_a_catalog_written_in_place_with_its_old_mtime_is_opened_again(tmp_path):
    from graphrag_ui.index.servers.catalog import CATALOG_FILE, open_catalog

    path = tmp_path / CATALOG_FILE
    with sqlite3.connect(path) as db:
        db.execute("create table entities (id text)")
    first = open_catalog(tmp_path)
    assert open_catalog(tmp_path) is first
    before = os.stat(path)
    with sqlite3.connect(path) as db:  # written in place (same inode), then given its old mtime back
        db.execute("insert into entities values ('e1')")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_ino == before.st_ino
    assert open_catalog(tmp_path) is not first
