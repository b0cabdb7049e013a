"""A LightRAG Server workspace imported straight from PostgreSQL, against a real server.

tests/goldens/lightrag-pg/en/ was written by lightrag-hku 1.5.7 itself with its PostgreSQL storages
(scripts/goldens/lightrag_pg.py): ``dump.sql`` is restored into a throwaway server from the ``pgserver``
wheel (PostgreSQL 16 with pgvector), started here, and imported by URL: every row with its vector, and
every mode runs or says why not; the password is never printed nor stored.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.cli import main
from graphrag_ui.index import store
from graphrag_ui.index.importers.command import import_source
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.services.query import run_query
from graphrag_ui.services.readiness import CANNOT, readiness
from tests.conftest import GOLDENS
from tests.ui.test_app import finish_jobs

GOLDEN = GOLDENS / "lightrag-pg" / "en"
GRAPH = GOLDEN / "graph_chunk_entity_relation.graphml"
QUESTION = "How is the Tidewater Institute related to Kelp Bay?"


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    """A throwaway PostgreSQL server holding the golden workspace; yields its socket folder."""
    import pgserver

    data = tmp_path_factory.mktemp("pg") / "data"
    server = pgserver.get_server(str(data), cleanup_mode="stop")
    psql = Path(pgserver.__file__).parent / "pginstall" / "bin" / "psql"
    run = subprocess.run(
        [
            str(psql),
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            str(data),
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-f",
            str(GOLDEN / "dump.sql"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    yield data
    server.cleanup()


def url(data: Path, workspace: str = "golden", graph: Path | None = GRAPH, user: str = "postgres") -> str:
    query = f"host={data}&workspace={workspace}" + (f"&graph={graph}" if graph else "")
    return f"postgresql://{user}@/postgres?{query}"


@pytest.fixture(scope="module")
def imported(database, tmp_path_factory):
    out = tmp_path_factory.mktemp("pgimport") / "index"
    kind, _ = import_source("auto", url(database), out, embedder="hash")
    assert kind == "lightrag"
    return store.load(out)


def test_the_workspace_imports_with_its_layout_and_every_vector(imported):
    index = imported
    m = index.manifest
    assert m.source == "lightrag-1.5" and m.settings["layout"] == "LightRAG 1.5 workspace on PostgreSQL"
    assert m.settings["postgres_workspace"] == "golden" and m.dimension == 256
    counts = index.counts()
    assert counts["documents"] == 3 and counts["entities"] > 10 and counts["relations"] > 10 and counts["chunks"] > 5
    for kind in ("entities", "relations", "chunks"):
        assert len(index.vectors[kind]) == counts[kind], kind
    assert all(c.text for c in index.chunks) and all(e.description for e in index.entities)


def test_every_mode_runs_or_says_why_not(imported):
    rows = {r.mode: r for r in readiness(imported)}
    assert {m for m, r in rows.items() if r.status == CANNOT} == {"nano.global", "ms.global", "ms.local", "ms.drift"}
    for mode, row in rows.items():
        result = run_query(imported, mode, QUESTION, hl=["research site"], ll=["Tidewater Institute", "Kelp Bay"])
        kept = sum(1 for kind in KINDS for c in result.candidates(kind) if c.in_context)
        if row.status == CANNOT:
            assert kept == 0 and any("found nothing" in w for w in result.warnings), mode
        elif mode != "lightrag.bypass":
            assert kept, (mode, result.warnings)


def test_cli_import_prints_the_report_and_never_the_password(database, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PGPASSWORD", "s3cret-from-env")
    source = url(database).replace("postgres@", "postgres:s3cret-in-url@")
    assert main(["import", "lightrag", source, "--out", str(tmp_path / "cli"), "--embedder", "hash"]) == 0
    out = capsys.readouterr()
    assert "LightRAG 1.5 workspace on PostgreSQL, embedder hash" in out.out
    assert "s3cret" not in out.out + out.err
    manifest = (tmp_path / "cli" / "manifest.json").read_text(encoding="utf-8")
    assert "s3cret" not in manifest and "postgresql://postgres@/postgres" in manifest


@pytest.mark.parametrize(
    ("workspace", "graph", "user", "says"),
    [
        ("", GRAPH, "postgres", "names no LightRAG workspace"),
        ("golden", None, "postgres", "graph file is missing"),
        ("nosuch", GRAPH, "postgres", "workspace 'nosuch' has no chunks"),
        ("golden", GRAPH, "nobody", "cannot connect to PostgreSQL"),
    ],
)
def test_bad_sources_say_what_and_how(database, tmp_path, workspace, graph, user, says):
    source = url(database, workspace, graph, user).replace(f"{user}@", f"{user}:pw-secret@")
    with pytest.raises(UserError) as err:
        import_source("lightrag", source, tmp_path / "bad", embedder="hash")
    text = f"{err.value.message} {err.value.where} {err.value.fix}"
    assert says in text and "pw-secret" not in text
    assert not (tmp_path / "bad").exists()


def test_index_page_imports_a_workspace_url(database, app, tmp_path, monkeypatch):
    """In the browser the host is in the URL itself (a socket folder, percent-encoded), the operator lists
    it (its trust login is the server's own), and the graph file lies under an allowed root."""
    monkeypatch.setenv("GRAPHRAG_UI_DB_HOSTS", str(database))
    monkeypatch.setenv("GRAPHRAG_UI_SOURCE_ROOTS", str(GOLDEN))
    typed = f"postgresql://postgres@{quote(str(database), safe='')}/postgres?workspace=golden&graph={GRAPH}"
    at = app("pages/index.py", index="sample:en")
    at.text_input(key="imp_src").set_value(typed).run()
    at.selectbox(key="imp_emb").set_value("hash").run()
    at.button(key="imp_btn").click().run()
    finish_jobs(at)  # the import runs on the server (issue 29): the page opens it once it sees it done
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert (tmp_path / "home" / "indexes" / "golden" / "manifest.json").is_file()  # named after the workspace
    assert "**LightRAG 1.5 workspace on PostgreSQL**" in [m.value for m in at.markdown]
