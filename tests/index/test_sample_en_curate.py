"""scripts/curate_sample.py: the curated files validate, and a missing report stops the script.

The end-to-end runs use the ``hash`` embedder so they take seconds; the shipped sample itself is
built with use-m3 (tests/index/test_sample_en.py checks it).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample" / "en"


def _script():
    spec = importlib.util.spec_from_file_location("curate_sample", ROOT / "scripts" / "curate_sample.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being defined
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def sample_copy(tmp_path) -> Path:
    copy = tmp_path / "en"
    for name in ("docs", "records"):
        shutil.copytree(SAMPLE / name, copy / name)
    shutil.copyfile(SAMPLE / "reports.json", copy / "reports.json")
    return copy


def test_curated_records_validate():
    cur = _script().Curation(SAMPLE)
    cur.load()
    assert cur.problems == []
    assert len(cur.chunk_files) == 25  # one chunk per document at the default chunk size


def test_broken_record_is_reported(sample_copy):
    path = sample_copy / "records" / "01-marrowick.txt"
    path.write_text(
        path.read_text().replace(
            '("relationship"<|>Marrowick<|>Sallow Delta', '("relationship"<|>Marrowick<|>Sallow Delta Region', 1
        )
    )
    cur = _script().Curation(sample_copy)
    cur.load()
    assert any("'Sallow Delta Region' is not an entity of this file" in p for p in cur.problems)


def test_missing_report_is_printed_and_nothing_is_written(sample_copy, capsys):
    reports = json.loads((sample_copy / "reports.json").read_text())
    dropped = reports.pop(next(i for i, r in enumerate(reports) if r["members"] == ["Hesper Vane", "Lantern Wardens"]))
    (sample_copy / "reports.json").write_text(json.dumps(reports))
    assert _script().main([str(sample_copy), "--embedder", "hash"]) == 1
    out = capsys.readouterr().out
    assert "1 answers are not curated yet" in out
    assert f"members {json.dumps(dropped['members'])}" in out
    assert "Hesper Vane" in out and "Entities:" in out and "Relations:" in out
    assert not (sample_copy / "index").exists() and not (sample_copy / "llm_cache.json").exists()


def test_complete_curation_builds_index_and_cache(sample_copy):
    assert _script().main([str(sample_copy), "--embedder", "hash"]) == 0
    cache = json.loads((sample_copy / "llm_cache.json").read_text())
    assert len(cache) == 25 + 25 + 22  # extraction, gleaning and report answers, nothing stale
    manifest = json.loads((sample_copy / "index" / "manifest.json").read_text())
    assert manifest["counts"]["entities"] == 70 and manifest["counts"]["communities"] == 22
