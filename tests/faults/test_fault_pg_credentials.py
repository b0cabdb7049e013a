"""Fault matrix, database part (issue 27, deliver 2): a URL typed in the browser keeps the server's
credentials home, names only what the importer needs, and never pastes a name into SQL.

Three families, each case counted by ``pytest --collect-only``:

- credentials: a stub server that asks for a clear-text password (``pg_stub``) records what arrives;
  the server's ``PGPASSWORD``, password file and service file never do, unless the operator lists the
  host (the cases that prove the stub can see them: the listed host and the operator's CLI);
- URL shape: every libpq override (``host=``, ``service=``, ``passfile=``, ``password=``…) and every
  malformed URL is one line naming it, no connection is made, no secret is shown;
- identifiers: against a throwaway PostgreSQL (pgserver, the golden LightRAG workspace), hostile
  table names (a comma and a function call, mixed case, a quote) are refused by name and the function
  never runs; hostile workspaces (``%00``, a quote) are one line or bound as data.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from graphrag_ui.base.access import Access
from graphrag_ui.base.errors import UserError
from graphrag_ui.cli import main as cli_main
from graphrag_ui.index.importers.command import import_source
from tests.conftest import GOLDENS
from tests.support.pg_stub import password_stub

GOLDEN = GOLDENS / "lightrag-pg" / "en"
GRAPH = GOLDEN / "graph_chunk_entity_relation.graphml"
SERVER_PW, PASSFILE_PW, SERVICE_PW, VISITOR_PW = "srv-PGPW-4471", "pgpass-PW-9313", "svc-PW-5521", "vis-PW-7788"
SECRETS = (SERVER_PW, PASSFILE_PW, SERVICE_PW, VISITOR_PW)


def visitor(tmp_path: Path, hosts: tuple[str, ...] = ()) -> Access:
    """The operator's limits as a browser session sees them: the goldens readable, ``hosts`` trusted."""
    return Access(home=tmp_path / "home", roots=(GOLDEN,), db_hosts=frozenset(hosts))


def typed(port: int, query: str = "", userinfo: str = "app") -> str:
    return f"postgresql://{userinfo}@127.0.0.1:{port}/lightrag?workspace=w&graph={GRAPH}{query}"


def refused(url: str, guard: Access | None, out: Path) -> str:
    with pytest.raises(UserError) as err:
        import_source("lightrag", url, out, embedder="hash", guard=guard)
    text = str(err.value.message)
    assert "\n" not in text and "Traceback" not in text, text
    assert not any(secret in text for secret in SECRETS), text
    assert not out.exists()
    return text


@pytest.fixture()
def server_secrets(monkeypatch, tmp_path):
    """The server's own credentials in every place libpq looks: PGPASSWORD, a password file, a service."""
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"*:*:*:*:{PASSFILE_PW}\n", encoding="utf-8")
    passfile.chmod(0o600)
    services = tmp_path / "pg_service.conf"
    services.write_text(f"[team]\npassword={SERVICE_PW}\nuser=app\n", encoding="utf-8")
    monkeypatch.setenv("PGPASSWORD", SERVER_PW)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    monkeypatch.delenv("PGSERVICE", raising=False)
    return monkeypatch


# --- credentials: what a stub that asks for a clear-text password receives ------------------------------


@pytest.mark.parametrize("where", ["PGPASSWORD", "PGPASSFILE", "PGSERVICE"])
def test_the_servers_password_never_travels_to_a_host_the_visitor_chose(server_secrets, tmp_path, where):
    if where != "PGPASSWORD":
        server_secrets.delenv("PGPASSWORD")
    if where == "PGSERVICE":
        server_secrets.setenv("PGSERVICE", "team")
    with password_stub() as (port, seen):
        text = refused(typed(port), visitor(tmp_path), tmp_path / "out")
    assert seen.connections, "the stub was never asked: the case proves nothing"
    assert seen.passwords == [], seen.connections
    assert "cannot connect to PostgreSQL" in text


def test_the_visitors_own_password_is_sent_and_masked(server_secrets, tmp_path):
    with password_stub() as (port, seen):
        text = refused(typed(port, userinfo=f"app:{VISITOR_PW}"), visitor(tmp_path), tmp_path / "out")
    assert seen.passwords == [VISITOR_PW]
    assert "app@127.0.0.1" in text


@pytest.mark.parametrize(
    ("where", "secret"), [("PGPASSWORD", SERVER_PW), ("PGPASSFILE", PASSFILE_PW), ("PGSERVICE", SERVICE_PW)]
)
def test_a_host_on_the_operators_list_may_use_the_servers_password(server_secrets, tmp_path, where, secret):
    """The control: the stub does see each of the server's secrets when the operator trusts the host."""
    if where != "PGPASSWORD":
        server_secrets.delenv("PGPASSWORD")
    if where == "PGSERVICE":
        server_secrets.setenv("PGSERVICE", "team")
        server_secrets.setenv("PGPASSFILE", str(tmp_path / "none"))
    with password_stub() as (port, seen):
        refused(typed(port), visitor(tmp_path, ("127.0.0.1",)), tmp_path / "out")
    assert seen.passwords == [secret]


def test_the_cli_keeps_libpqs_usual_places(server_secrets, tmp_path, capsys):
    """The operator at their own machine: the CLI reads PGPASSWORD as libpq does (docs/deploying.md)."""
    with password_stub() as (port, seen):
        code = cli_main(["import", "lightrag", typed(port), "--out", str(tmp_path / "cli"), "--embedder", "hash"])
    assert code != 0 and seen.passwords == [SERVER_PW]
    out = capsys.readouterr()
    assert SERVER_PW not in out.out + out.err


# --- URL shape: refused before any connection ---------------------------------------------------------------

OVERRIDES = [
    "host=10.0.0.9",
    "port=6543",
    "hostaddr=10.0.0.9",
    "service=team",
    "servicefile=/tmp/x",
    "passfile=/root/.pgpass",
    f"password={VISITOR_PW}",
    f"sslpassword={VISITOR_PW}",
    "sslkey=/root/.postgresql/postgresql.key",
    "sslcert=/root/.postgresql/postgresql.crt",
    "sslrootcert=/etc/ssl/x.pem",
    "options=-c%20search_path%3Devil",
    "dbname=other",
    "user=postgres",
    "krbsrvname=postgres",
    "gssencmode=prefer",
    "require_auth=none",
    "target_session_attrs=any",
    "application_name=x",
    "Workspace=w2",
]


@pytest.mark.parametrize("override", OVERRIDES)
def test_a_libpq_override_in_the_query_is_refused_by_name(server_secrets, tmp_path, override):
    with password_stub() as (port, seen):
        text = refused(typed(port, "&" + override), visitor(tmp_path), tmp_path / "out")
    assert seen.connections == []
    assert repr(override.split("=")[0]) in text and "not accepted here" in text


MALFORMED = [
    ("postgresql://127.0.0.1:{port}/lightrag?workspace=w&graph={graph}", "names no database user"),
    ("postgresql://app@/lightrag?workspace=w&graph={graph}", "names no host"),
    ("postgresql://app@127.0.0.1:{port},10.0.0.9:5432/lightrag?workspace=w&graph={graph}", "host and port"),
    ("postgresql://app@10.0.0.9%2C127.0.0.1:{port}/lightrag?workspace=w&graph={graph}", "malformed host"),
    ("postgresql://app@127.0.0.1:99999/lightrag?workspace=w&graph={graph}", "host and port"),
    ("postgresql://app@127.0.0.1:{port}/?workspace=w&graph={graph}", "names no database"),
    ("postgresql://app@127.0.0.1:{port}/lightrag?workspace=a%00b&graph={graph}", "control characters"),
    ("postgresql://app@127.0.0.1:{port}/lightrag?workspace=a&workspace=b&graph={graph}", "more than once"),
    ("postgresql://app@127.0.0.1:{port}/lightrag?workspace=w&graph={graph}&sslmode=bogus", "sslmode must be"),
    ("postgresql://app@127.0.0.1:{port}/lightrag?workspace=" + "w" * 3000 + "&graph={graph}", "longer than"),
    ("postgresql://app@127.0.0.1:{port}/lightrag?graph={graph}", "names no LightRAG workspace"),
    ("postgresql://app@127.0.0.1:{port}/lightrag?workspace=w", "graph file is missing"),
]


@pytest.mark.parametrize(("template", "says"), MALFORMED)
def test_a_malformed_url_is_one_line_and_no_connection(server_secrets, tmp_path, template, says):
    with password_stub() as (port, seen):
        text = refused(template.format(port=port, graph=GRAPH), visitor(tmp_path), tmp_path / "out")
    assert seen.connections == [] and says in text, text


@pytest.mark.parametrize("graph", ["/etc/shadow", "/etc/hostname", "/nonexistent/shadow", "../../../etc/passwd"])
def test_a_graph_outside_the_allowed_folders_says_nothing_of_its_existence(server_secrets, tmp_path, graph):
    with password_stub() as (port, seen):
        url = f"postgresql://app@127.0.0.1:{port}/lightrag?workspace=w&graph={graph}"
        text = refused(url, visitor(tmp_path), tmp_path / "out")
    assert seen.connections == []
    assert text.replace(repr(graph), "PATH").startswith("this server does not let the browser read PATH"), text


@pytest.mark.parametrize("secret_form", ["userinfo", "password=", "sslpassword="])
def test_the_cli_masks_every_form_of_a_password(server_secrets, tmp_path, capsys, secret_form):
    with password_stub() as (port, _seen):
        url = {
            "userinfo": typed(port, userinfo=f"app:{VISITOR_PW}"),
            "password=": typed(port, f"&password={VISITOR_PW}"),
            "sslpassword=": typed(port, f"&sslpassword={VISITOR_PW}"),
        }[secret_form]
        code = cli_main(["import", "lightrag", url, "--out", str(tmp_path / "cli"), "--embedder", "hash"])
    out = capsys.readouterr()
    assert code != 0 and "cannot connect" in out.err
    assert not any(secret in out.out + out.err for secret in SECRETS), out.err


# --- identifiers: a real PostgreSQL holding the golden workspace and hostile tables -------------------------


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    """A throwaway PostgreSQL (pgserver) with the golden workspace; yields its socket folder."""
    import pgserver

    data = tmp_path_factory.mktemp("pgh") / "data"
    server = pgserver.get_server(str(data), cleanup_mode="stop")
    psql = Path(pgserver.__file__).parent / "pginstall" / "bin" / "psql"
    run = subprocess.run(
        [str(psql), "-q", "-v", "ON_ERROR_STOP=1", "-h", str(data), "-U", "postgres", "-d", "postgres"]
        + ["-f", str(GOLDEN / "dump.sql")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    yield data
    server.cleanup()


def sql(database: Path, *statements: str) -> list:
    import psycopg

    with psycopg.connect(host=str(database), user="postgres", dbname="postgres", autocommit=True) as conn:
        rows = []
        for statement in statements:
            cur = conn.execute(statement)
            rows = cur.fetchall() if cur.description else rows
        return rows


def socket_url(database: Path, workspace: str = "golden") -> str:
    return f"postgresql://postgres@{quote(str(database), safe='')}/postgres?workspace={workspace}&graph={GRAPH}"


EVIL_FUNCTION = (
    "CREATE TABLE IF NOT EXISTS pwned(who text)",
    "CREATE OR REPLACE FUNCTION public.ev() RETURNS SETOF int LANGUAGE sql AS "
    "$$ INSERT INTO pwned VALUES (current_user) RETURNING 1 $$",
)
HOSTILE_TABLES = [
    "lightrag_vdb_entity_q, public.ev()e",
    "LightRAG_VDB_Entity_X",
    'lightrag_vdb_entity_"x',
    "lightrag_vdb_entity_x; drop table pwned",
    "lightrag_doc_chunks ",
]


@pytest.mark.parametrize("name", HOSTILE_TABLES)
def test_a_hostile_table_name_is_refused_and_runs_nothing(database, tmp_path, name):
    quoted = '"' + name.replace('"', '""') + '"'
    sql(database, *EVIL_FUNCTION, f"CREATE TABLE {quoted} (workspace text, id text)")
    try:
        text = refused(socket_url(database), visitor(tmp_path, (str(database),)), tmp_path / "out")
    finally:
        sql(database, f"DROP TABLE {quoted}")
    assert "no LightRAG table name" in text and repr(name) in text, text
    assert sql(database, "SELECT count(*) FROM pwned") == [(0,)]


@pytest.mark.parametrize(
    ("workspace", "says"),
    [
        ("%00", "control characters"),
        ("golden%27%3B%20DROP%20TABLE%20lightrag_doc_chunks%3B--", "has no chunks"),
        ("Golden", "has no chunks"),
        ("%E2%80%AEnedlog", "has no chunks"),
    ],
)
def test_a_hostile_workspace_is_one_line_or_plain_data(database, tmp_path, workspace, says):
    text = refused(socket_url(database, workspace), visitor(tmp_path, (str(database),)), tmp_path / "out")
    assert says in text, text
    assert sql(database, "SELECT count(*) FROM lightrag_doc_chunks")[0][0] > 0  # nothing dropped


def test_an_unlisted_host_cannot_borrow_the_servers_trust_login(database, tmp_path):
    """The socket's trust login is the server's OS identity: without the operator's list, refused."""
    text = refused(socket_url(database), visitor(tmp_path), tmp_path / "out")
    assert "cannot connect to PostgreSQL" in text


def test_the_listed_host_imports_and_the_manifest_holds_no_password(database, tmp_path):
    out = tmp_path / "home" / "indexes" / "golden"
    url = socket_url(database).replace("postgres@", f"postgres:{VISITOR_PW}@")
    import_source("lightrag", url, out, embedder="hash", guard=visitor(tmp_path, (str(database),)))
    manifest = (out / "manifest.json").read_text(encoding="utf-8")
    assert VISITOR_PW not in manifest and '"imported_from": "postgresql://postgres@' in manifest


@pytest.mark.parametrize("query", [f"&password={VISITOR_PW}", f"&sslpassword={VISITOR_PW}&sslmode=disable"])
def test_the_cli_imports_with_a_password_parameter_and_the_manifest_never_holds_it(database, tmp_path, query):
    """The issue's case: ``?password=SECRET`` went into ``imported_from`` as written."""
    out = tmp_path / "cli"
    url = f"postgresql://postgres@/postgres?host={database}&workspace=golden&graph={GRAPH}{query}"
    import_source("lightrag", url, out, embedder="hash")
    manifest = (out / "manifest.json").read_text(encoding="utf-8")
    assert VISITOR_PW not in manifest and "password" not in manifest
    assert '"imported_from": "postgresql://postgres@/postgres?workspace=golden&graph=' in manifest


def test_a_log_line_naming_the_url_is_masked(caplog):
    import logging

    from graphrag_ui.base.redact import install_log_redaction

    install_log_redaction()
    url = f"postgresql://app:{VISITOR_PW}@db.example/x?sslpassword={VISITOR_PW}&workspace=w"
    with caplog.at_level(logging.WARNING):
        logging.getLogger("psycopg").warning("connecting to %s", url)
    assert VISITOR_PW not in caplog.text and "sslpassword=***" in caplog.text
