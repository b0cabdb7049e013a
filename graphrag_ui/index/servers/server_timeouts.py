"""Time bounds for the two servers an index may use: the PostgreSQL catalog and the chroma server.

A server that accepts connections but never answers used to hang the CLI for minutes and leave a page
blank: neither psycopg nor chromadb's HTTP client (``httpx.Client(timeout=None)``) bounds a call by
default. Every connection made here has a connect and a statement/request timeout of a few seconds
(``GRAPHRAG_UI_DB_TIMEOUT`` and ``GRAPHRAG_UI_CHROMA_TIMEOUT``, 5 s each by default), and running out
of time is one line naming the server, the limit and the setting.
"""

from __future__ import annotations

import math
import os
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg

DB_ENV = "GRAPHRAG_UI_DB_TIMEOUT"
CHROMA_ENV = "GRAPHRAG_UI_CHROMA_TIMEOUT"
DEFAULT = 5.0


class ServerUnavailable(UserError):
    """The chroma server is down or did not answer in time (a caller may say it in its own words)."""


def seconds(name: str) -> float:
    """The timeout in ``name`` (seconds, > 0), or the default; a value that is no number is a ``UserError``."""
    text = os.environ.get(name, "").strip()
    if not text:
        return DEFAULT
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise UserError(
            msg("{name} must be a number of seconds above 0, not {value}", name=name, value=repr(text)),
            fix=msg("unset it for {default} s, or give e.g. 10", default=f"{DEFAULT:g}"),
        )
    return value


def connect_args(url: str) -> dict[str, Any]:
    """psycopg/psycopg2 arguments bounding the connection and every statement (other dialects: none).

    libpq counts ``connect_timeout`` in whole seconds and treats values below 2 as 2."""
    if not url.split(":", 1)[0].startswith("postgresql"):
        return {}
    limit = seconds(DB_ENV)
    ms = max(1, int(limit * 1000))
    return {
        "connect_timeout": max(2, math.ceil(limit)),
        "options": f"-c statement_timeout={ms} -c lock_timeout={ms}",
    }


def chroma_client(host: str, port: int, settings: Any) -> Any:
    """A chromadb ``HttpClient`` whose every request is bounded by ``GRAPHRAG_UI_CHROMA_TIMEOUT``.

    chromadb's client talks to the server while it is built (tenant and database checks) with no
    timeout, so a heartbeat with the timeout goes first; the client's HTTP session then gets the same
    bound (chromadb shares one session per host and port)."""
    import chromadb
    import httpx

    limit = seconds(CHROMA_ENV)
    where = f"[{host}]" if ":" in host else host
    try:
        httpx.get(f"http://{where}:{port}/api/v2/heartbeat", timeout=limit).raise_for_status()
    except httpx.TimeoutException:
        raise ServerUnavailable(
            msg(
                "the chroma server at {host}:{port} did not answer within {seconds} s",
                host=host,
                port=port,
                seconds=f"{limit:g}",
            ),
            fix=msg("check that the server is running and not overloaded, or raise {env}", env=CHROMA_ENV),
        ) from None
    except httpx.HTTPError as exc:
        raise ServerUnavailable(
            msg(
                "cannot reach the chroma server at {host}:{port} ({type}: {error})",
                host=host,
                port=port,
                type=type(exc).__name__,
                error=" ".join(str(exc).split())[:160],
            ),
            fix=msg("start the server, or set CHROMA_HOST/CHROMA_PORT to where it runs"),
        ) from None
    client = chromadb.HttpClient(host=host, port=port, settings=settings)
    session = getattr(getattr(client, "_server", None), "_session", None)
    if session is not None:
        session.timeout = httpx.Timeout(limit)
    return client
