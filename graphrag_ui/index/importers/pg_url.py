"""A LightRAG import URL (``postgresql://USER[:PASSWORD]@HOST[:PORT]/DB?workspace=W&graph=PATH``) read
strictly, and the libpq options it connects with.

Two callers, two trusts. The CLI is the operator at their own machine: the URL goes to libpq as they
wrote it, with libpq's usual places for the password (``PGPASSWORD``, ``~/.pgpass``, service files).
A URL typed in the browser is the visitor's (``guard``, an ``access.Access``): only the parameters the
importer needs are accepted (``workspace``, ``graph``, ``sslmode``: no ``host=``/``port=``/
``service=``/``passfile=``/``password=`` overrides), the graph file must lie under an allowed root, and
unless the host is on the operator's list (``GRAPHRAG_UI_DB_HOSTS``) every option libpq would fill from
the server's environment is given explicitly: the URL's password or none, a password file, client
certificate and key that do not exist, no GSS, and a server that must ask for a password (so neither
the server's secrets nor its OS identity — trust, peer — log in for the visitor).

``shown`` is the URL as every message, log and manifest names it: no password, only the known
parameters, the rest redacted (``graphrag_ui.base.redact``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.redact import redact

SCHEMES = ("postgresql://", "postgres://")
BROWSER_PARAMS = ("workspace", "graph", "sslmode")
SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
MAX_URL = 2000
_HOSTNAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,252}[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]+\]")


@dataclass
class Source:
    """What an import URL names: how to connect, the workspace, the GraphML file and the shown URL."""

    workspace: str
    graph: Path
    shown: str
    conninfo: str = ""  # the operator's URL for libpq as written (CLI, or a host on the operator's list)
    options: dict[str, Any] = field(default_factory=dict, repr=False)  # explicit libpq options (browser)


def is_url(src: str | Path) -> bool:
    return str(src).startswith(SCHEMES)


def shown(url: str) -> str:
    """The URL as messages print it: no password, only the parameters an import uses, redacted."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")
    user = netloc[0].partition(":")[0]
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k in BROWSER_PARAMS]
    text = urlunsplit(
        (parts.scheme, (f"{user}@" if user else "") + netloc[2], parts.path, urlencode(kept, safe="/"), "")
    )
    return redact(text)


def _refuse(what: str, url: str, fix: str = "") -> UserError:
    return UserError(what, where=shown(url), fix=fix or _fix())


def _fix() -> str:
    return msg("write it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE?workspace=NAME&graph=PATH")


def _query(url: str, browser: bool) -> tuple[dict[str, str], dict[str, str]]:
    """(the importer's parameters, the rest for libpq); in the browser the rest is refused, by name."""
    pairs = parse_qsl(urlsplit(url).query, keep_blank_values=True)
    names = [k for k, _ in pairs]
    doubled = sorted({k for k in names if names.count(k) > 1})
    if doubled:
        raise _refuse(msg("the URL gives {names} more than once", names=", ".join(map(repr, doubled))), url)
    mine = {k: v for k, v in pairs if k in ("workspace", "graph")}
    rest = {k: v for k, v in pairs if k not in mine}
    if browser:
        other = [k for k in rest if k not in BROWSER_PARAMS]
        if other:
            raise _refuse(
                msg(
                    "the URL parameter {names} is not accepted here (only workspace, graph and sslmode)",
                    names=", ".join(repr(redact(k[:40])) for k in other),
                ),
                url,
                fix=msg("remove it: the host, port, user and password belong in the URL itself"),
            )
        if "sslmode" in rest and rest["sslmode"] not in SSLMODES:
            raise _refuse(msg("sslmode must be one of {modes}", modes=", ".join(SSLMODES)), url)
    return mine, rest


def _workspace(url: str, value: str) -> str:
    if not value:
        raise UserError(
            msg("the URL names no LightRAG workspace"),
            where=shown(url),
            fix=msg("add ?workspace=NAME (LightRAG's POSTGRES_WORKSPACE or the server's --workspace)"),
        )
    if len(value) > 255 or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise _refuse(
            msg("the workspace name holds control characters or is longer than 255 characters"),
            url,
            fix=msg("give the workspace name LightRAG was started with"),
        )
    return value


def _graph(url: str, value: str, workspace: str, guard: Any) -> Path:
    missing = UserError(
        msg("the workspace's graph file is missing: PostgreSQL holds no graph without the AGE extension"),
        where=shown(url),
        fix=msg(
            "add &graph=PATH to the GraphML NetworkXStorage wrote "
            "(WORKING_DIR/{workspace}/graph_chunk_entity_relation.graphml)",
            workspace=workspace,
        ),
    )
    if not value:
        raise missing
    path = guard.source(value) if guard is not None else Path(value).expanduser()  # refused before any look
    if not path.is_file():
        raise missing
    return path


def _netloc(url: str) -> tuple[str, str, str, int | None]:
    """(user, password, host, port) of the URL, percent-decoded; one refusal for anything else."""
    netloc = urlsplit(url).netloc
    userinfo, _, hostport = netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    host, port = hostport, None
    match = re.fullmatch(r"(\[[^\]]*\]|[^:\[\]]*)(?::(\d{1,5}))?", hostport)
    if match is None or (match.group(2) and not 0 < int(match.group(2)) < 65536):
        raise _refuse(msg("cannot read the host and port of the URL"), url)
    host, port = unquote(match.group(1)), int(match.group(2)) if match.group(2) else None
    if not host:
        raise _refuse(msg("the URL names no host"), url)
    if not (_HOSTNAME.fullmatch(host) or (host.startswith("/") and "," not in host and "\x00" not in host)):
        raise _refuse(msg("the URL names a malformed host {host} (one host only)", host=repr(host[:80])), url)
    if not user:
        raise _refuse(msg("the URL names no database user"), url)
    return unquote(user), unquote(password), host.strip("[]"), port


def parse(url: str, guard: Any = None, nowhere: Path | None = None) -> Source:
    """Read ``url``; ``guard`` (the operator's ``access.Access``) for a URL typed in the browser, with
    ``nowhere`` a private folder that holds no files (libpq's password file and client keys point there)."""
    if len(url) > MAX_URL:
        raise UserError(msg("the URL is longer than {n} characters", n=MAX_URL), fix=_fix())
    browser = guard is not None
    mine, rest = _query(url, browser)
    workspace = _workspace(url, mine.get("workspace", ""))
    if not browser:
        parts = urlsplit(url)
        graph = _graph(url, mine.get("graph", ""), workspace, None)
        conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(rest), ""))
        return Source(workspace, graph, shown(url), conninfo=conninfo)
    user, password, host, port = _netloc(url)
    dbname = unquote(urlsplit(url).path.lstrip("/"))
    if not dbname or "/" in dbname:
        raise _refuse(msg("the URL names no database"), url)
    graph = _graph(url, mine.get("graph", ""), workspace, guard)
    if guard.trusted_host(host):  # the operator's own database: libpq's usual places may fill the password
        parts = urlsplit(url)
        conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(rest), ""))
        return Source(workspace, graph, shown(url), conninfo=conninfo)
    away = str((nowhere or Path("/nonexistent")) / "none")
    options = {
        "host": host,
        "hostaddr": "",
        "port": str(port or 5432),
        "dbname": dbname,
        "user": user,
        "password": password,
        "passfile": away,
        "sslcert": away,
        "sslkey": away,
        "sslcertmode": "disable",
        "sslmode": rest.get("sslmode", "prefer"),
        "gssencmode": "disable",
        "require_auth": "password,md5,scram-sha-256",
        "options": "",
        "application_name": "graphrag-ui import",
    }
    return Source(workspace, graph, shown(url), options=options)
