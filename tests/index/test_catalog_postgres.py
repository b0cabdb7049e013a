"""Seed 003's ILIKE recall on a real PostgreSQL server gives exactly SQLite's hits, in SQLite's order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.index.servers import catalog
from graphrag_ui.index.servers.catalog import find_entities_by_name_or_alias as find
from tests.support.pg_server import bin_dir, postgres_server
from tests.support.store_fixtures import small_index

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "sample"

pytestmark = pytest.mark.skipif(bin_dir() is None, reason="no PostgreSQL binaries (make setup-test installs them)")


@pytest.fixture(scope="module")
def pg_url():
    with postgres_server() as url:
        yield url


def probes(index, questions: list[str]) -> list[str]:
    """Texts a user types: names, aliases, their pieces in other case, and whole sample questions."""
    out = list(questions)
    for entity in index.entities:
        for text in [entity.name, *(entity.aliases or [])]:
            bare = text.strip('"')
            out += [bare.lower(), bare[1 : max(3, len(bare) // 2)]]
    return list(dict.fromkeys(t for t in out if t.strip()))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_recall_on_postgres_equals_sqlite_on_the_sample(pg_url, lang):
    index = store.load(SAMPLES / lang / "index")
    questions = [q["question"] for q in json.loads((SAMPLES / lang / "questions.json").read_text(encoding="utf-8"))]
    table = f"sample_{lang}"
    assert catalog.write_catalog(index.entities, pg_url, table) == len(index.entities)
    server, local = catalog.open_catalog(pg_url, table), catalog.open_catalog(SAMPLES / lang / "index")
    assert server.engine.dialect.name == "postgresql" and local.engine.dialect.name == "sqlite"
    texts = probes(index, questions)
    hits = 0
    for text in texts:
        theirs = find(local, text, 20)
        assert find(server, text, 20) == theirs, text
        hits += bool(theirs)
    assert len(texts) > 50 and hits > len(texts) // 2  # the comparison exercised real matches


def test_a_saved_index_uses_the_team_catalog_when_configured(pg_url, tmp_path, monkeypatch):
    monkeypatch.setenv(catalog.URL_ENV, pg_url)
    out = tmp_path / "Team Index"
    store.save(small_index(), out)
    table = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["storage"]["catalog"]["server_table"]
    assert table.startswith("gri_team_index_")
    loaded = store.load(out)
    shared = catalog.for_index(loaded)
    assert shared.engine.dialect.name == "postgresql" and shared.table.name == table
    assert find(shared, "beijing", 5) == find(catalog.open_catalog(out), "beijing", 5) != []
    monkeypatch.delenv(catalog.URL_ENV)
    assert catalog.for_index(loaded).engine.dialect.name == "sqlite"  # without the server: the index's own file


def test_the_server_password_never_reaches_messages():
    opened = catalog.open_catalog("postgresql+psycopg://app:s3cret@127.0.0.1:1/none", "t")
    assert "s3cret" not in opened.where and "app" in opened.where
