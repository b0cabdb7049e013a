"""What a browser may reach on the server: the operator's one setting, read from the server's side only.

The app is a web page, so whoever can open it can type a path or a database URL. The pages therefore
work inside limits the operator sets in the server's environment (or in ``.streamlit/secrets.toml``,
the environment winning); never from the URL or a page:

- ``GRAPHRAG_UI_SOURCE_ROOTS``: the folders (``:``-separated, absolute; ``/`` is refused) the browser may
  import from or open an index in. Default: ``<home>/sources`` only. Anything else is refused with one line that is
  the same whether the path exists or not (no existence oracle), symlinks resolved first.
- ``GRAPHRAG_UI_WRITE_ACTIONS``: ``on``, ``off`` or ``auto`` (the default): whether the page may import,
  build and re-embed. ``auto`` is on only while the server listens on loopback (127.0.0.1, ::1,
  localhost); a server others can reach writes nothing until the operator says ``on``.
- ``GRAPHRAG_UI_DB_HOSTS``: database hosts (``,``-separated) for which a URL typed in the browser may
  use the server's own PostgreSQL credentials (``PGPASSWORD``, ``~/.pgpass``, service files). Default:
  none — a typed URL logs in with what it carries and nothing else.

Indexes are written only under ``<home>/indexes``; anything else opened by path is read-only. The CLI is
the operator at their own machine and keeps its freedom (it never reads this module).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg

ROOTS_ENV = "GRAPHRAG_UI_SOURCE_ROOTS"
WRITES_ENV = "GRAPHRAG_UI_WRITE_ACTIONS"
DB_HOSTS_ENV = "GRAPHRAG_UI_DB_HOSTS"
WRITES = ("auto", "on", "off")
LOOPBACK = ("localhost", "::1", "[::1]")


def is_loopback(address: str | None) -> bool:
    """Whether a listen address reaches only this machine (unset or ``0.0.0.0`` means every interface)."""
    text = (address or "").strip().lower()
    return text in LOOPBACK or text.startswith("127.")


def inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


@dataclass(frozen=True)
class Access:
    """The operator's limits for browser sessions (see the module)."""

    home: Path
    roots: tuple[Path, ...]
    writes: str = "auto"
    db_hosts: frozenset[str] = frozenset()

    @property
    def indexes(self) -> Path:
        """The only folder the page writes indexes into."""
        return self.home / "indexes"

    def writes_allowed(self, address: str | None) -> bool:
        return self.writes == "on" or (self.writes == "auto" and is_loopback(address))

    def source(self, text: str | Path) -> Path:
        """``text`` as a path under an allowed root (or the app's own indexes), or one refusal that says
        nothing about whether it exists."""
        raw = str(text).strip()
        resolved = Path(os.path.realpath(Path(raw).expanduser())) if raw and "\x00" not in raw else None
        allowed = (*self.roots, Path(os.path.realpath(self.indexes)))
        if resolved is None or not any(inside(resolved, root) for root in allowed):
            raise UserError(
                msg("this server does not let the browser read {path}", path=repr(raw[:300])),
                fix=msg(
                    "put the source under {roots}, or ask the operator to add its folder to {env}",
                    roots=", ".join(str(r) for r in self.roots) or "-",
                    env=ROOTS_ENV,
                ),
            )
        return resolved

    def owns(self, folder: str | Path) -> bool:
        """Whether the app wrote ``folder`` (an index under ``<home>/indexes``): only those it rewrites."""
        here = Path(os.path.realpath(folder))
        return inside(here, Path(os.path.realpath(self.indexes))) and here != Path(os.path.realpath(self.indexes))

    def trusted_host(self, host: str) -> bool:
        return host.strip().lower() in self.db_hosts


def _setting(name: str, secrets: dict) -> str:
    value = os.environ.get(name)
    if value is None:
        value = secrets.get(name, "")
    if isinstance(value, list):  # secrets.toml may list folders or hosts as a TOML array
        value = (os.pathsep if name == ROOTS_ENV else ",").join(str(v) for v in value)
    return str(value).strip()


def read(home: Path, secrets_path: str | Path = ".streamlit/secrets.toml") -> Access:
    """The operator's limits; a malformed value is a ``UserError`` naming the setting (start-up stops)."""
    from graphrag_ui.model_client.settings import _read_secrets

    secrets = _read_secrets(Path(secrets_path))
    roots_text = _setting(ROOTS_ENV, secrets)
    roots: list[Path] = []
    for part in roots_text.split(os.pathsep) if roots_text else [str(home / "sources")]:
        if not part.strip():
            continue
        folder = Path(part.strip()).expanduser()
        if not folder.is_absolute() or "\x00" in part:
            raise UserError(
                msg("{value} is not an absolute folder", value=repr(part)),
                where=ROOTS_ENV,
                fix=msg("give absolute folders separated by {sep}", sep=os.pathsep),
            )
        root = Path(os.path.realpath(folder))
        if root == Path(root.anchor):  # every file of the server, /etc and the keys in ~/.ssh included
            raise UserError(
                msg("{value} would let the browser read the whole disk", value=repr(part)),
                where=ROOTS_ENV,
                fix=msg("name the folders that hold sources and indexes"),
            )
        roots.append(root)
    writes = _setting(WRITES_ENV, secrets).lower() or "auto"
    if writes not in WRITES:
        raise UserError(
            msg("{value} is not one of {choices}", value=repr(writes), choices=", ".join(WRITES)),
            where=WRITES_ENV,
            fix=msg("set it to on, off or auto (on only while the server listens on loopback)"),
        )
    hosts = frozenset(h.strip().lower() for h in _setting(DB_HOSTS_ENV, secrets).split(",") if h.strip())
    return Access(home=home, roots=tuple(roots), writes=writes, db_hosts=hosts)
