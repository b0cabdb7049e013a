"""The team's catalog server (``GRAPHRAG_UI_CATALOG_URL``): its URL read strictly, its engine bounded in time.

The URL is an SQLAlchemy URL (``postgresql+psycopg://app@db.internal:5432/graphrag``; the password in
``PGPASSWORD`` or ``~/.pgpass``, or inside the URL). It is checked before anything is written: a
value without a scheme (``app:pw@db.internal`` would otherwise be taken for a SQLite file name), a
dialect or driver SQLAlchemy does not know or that is not installed, or a host or port that cannot be
read is one line naming the problem, with the password masked (``graphrag_ui.base.redact``).
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections.abc import Iterator

import sqlalchemy as sa

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.redact import redact

URL_ENV = "GRAPHRAG_UI_CATALOG_URL"
# a host name, an IPv4 address, or an IPv6 address (SQLAlchemy strips its brackets)
_HOST = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.%\w]*")


def _fix() -> str:
    return msg(
        "write it as postgresql+psycopg://USER@HOST:PORT/DATABASE (the password in PGPASSWORD or ~/.pgpass), "
        "or unset it to use each index's own catalog.sqlite"
    )


def parse_url(text: str, name: str = URL_ENV) -> sa.URL:
    """``text`` as an SQLAlchemy URL whose dialect and driver load here; ``UserError`` naming the problem."""
    raw = text.strip()
    shown = redact(raw)
    if "://" not in raw:
        raise UserError(
            msg("not a database URL: {url} has no scheme (dialect+driver://)", url=shown), where=name, fix=_fix()
        )
    try:
        url = sa.make_url(raw)
    except ValueError:  # SQLAlchemy reads the port with int(): an unclosed "[" or a port that is no number
        raise UserError(
            msg(
                "cannot read the host and port of the database URL {url} (an unclosed [ of an IPv6 address, or a "
                "port that is not a number)",
                url=shown,
            ),
            where=name,
            fix=_fix(),
        ) from None
    except sa.exc.ArgumentError:
        raise UserError(msg("cannot read the database URL {url}", url=shown), where=name, fix=_fix()) from None
    if url.host and not _HOST.fullmatch(url.host):
        raise UserError(
            msg("the database URL {url} names a malformed host {host}", url=shown, host=repr(redact(url.host))),
            where=name,
            fix=_fix(),
        )
    try:
        dialect = url.get_dialect()
    except sa.exc.NoSuchModuleError:
        raise UserError(
            msg("the database URL {url} names an unknown dialect or driver {driver}", url=shown, driver=url.drivername),
            where=name,
            fix=_fix(),
        ) from None
    try:
        dialect.import_dbapi()
    except ImportError as exc:
        raise UserError(
            msg(
                "the database driver of {url} is not installed ({error})",
                url=shown,
                error=getattr(exc, "name", None) or str(exc),
            ),
            where=name,
            fix=_fix(),
        ) from None
    return url


@contextlib.contextmanager
def server_errors(url: str, doing: str) -> Iterator[None]:
    """A database that is down, refuses us or fails mid-way becomes one ``UserError`` (password masked)."""
    try:
        yield
    except UserError:
        raise
    except sa.exc.SQLAlchemyError as exc:
        detail = " ".join(str(getattr(exc, "orig", None) or exc).split())[:200] or type(exc).__name__
        raise UserError(
            msg(
                "the catalog database at {url} failed while {doing} ({detail})",
                url=shown_url(url),
                doing=doing,
                detail=redact(detail),
            ),
            where=URL_ENV,
            fix=msg("check that the database is running and reachable, or unset {env}", env=URL_ENV),
        ) from None


def server_url_from_env() -> str | None:
    """The team catalog's SQLAlchemy URL, checked (``parse_url``), or None when the variable is unset."""
    text = os.environ.get(URL_ENV, "").strip()
    if not text:
        return None
    parse_url(text)
    return text


def new_table_name(folder_name: str) -> str:
    """A table name unique to one save: ``gri_<folder>_<random>`` (lower case, SQL-safe)."""
    slug = re.sub(r"[^a-z0-9_]+", "_", folder_name.lower()).strip("_")[:30] or "index"
    return f"gri_{slug}_{uuid.uuid4().hex[:10]}"


def shown_url(text: str) -> str:
    """The URL as errors name it: its password hidden."""
    try:
        return redact(sa.make_url(text).render_as_string(hide_password=True))
    except (sa.exc.ArgumentError, ValueError):
        return redact(text)
