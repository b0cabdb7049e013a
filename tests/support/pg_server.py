"""A throwaway PostgreSQL server for tests: ``initdb`` + ``pg_ctl`` from the installed binaries.

The cluster lives in a fresh folder under /tmp and listens on a free 127.0.0.1 port with trust
authentication. PostgreSQL refuses to run as root, so under root the binaries run as ``nobody``
(via ``runuser``) in a folder owned by it. ``make test`` installs Debian's postgresql when missing.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def bin_dir() -> Path | None:
    """Folder of ``initdb``/``pg_ctl``: on PATH, else Debian's /usr/lib/postgresql/<version>/bin."""
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def postgres_server() -> Iterator[str]:
    """Start a server; yield its SQLAlchemy URL (``postgresql+psycopg://postgres@127.0.0.1:PORT/postgres``)."""
    binaries = bin_dir()
    if binaries is None:
        raise RuntimeError("PostgreSQL binaries not found (make setup-test installs Debian's postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="gri-pg-"))
    prefix: list[str] = []
    if os.geteuid() == 0:
        user = pwd.getpwnam("nobody")
        os.chown(folder, user.pw_uid, user.pw_gid)
        prefix = ["runuser", "-u", "nobody", "--"]
    data, port = folder / "data", _free_port()
    env = dict(os.environ, LC_ALL="C.UTF-8", LANG="C.UTF-8")

    def run(*args: str) -> None:
        subprocess.run([*prefix, *args], check=True, capture_output=True, env=env, cwd=folder)

    try:
        run(str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        run(str(binaries / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start")
        try:
            yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        finally:
            run(str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
