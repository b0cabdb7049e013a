"""A real chroma server for the tests: ``chroma run`` on a free port of 127.0.0.1, in a temp dir."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMA = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def chroma_server(data: Path) -> Iterator[int]:
    """Start the server with its store under ``data``, wait for its heartbeat, yield its port, stop it."""
    if not os.access(CHROMA, os.X_OK):
        pytest.skip("the chroma CLI is not installed")
    port = free_port()
    log = open(data / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [CHROMA, "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(data / "db")],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    try:
        import chromadb

        deadline = time.monotonic() + 60
        while True:
            try:
                chromadb.HttpClient(host="127.0.0.1", port=port).heartbeat()
                break
            except Exception:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"chroma server did not start: {(data / 'server.log').read_text()[-2000:]}"
                    ) from None
                time.sleep(0.3)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def server_collections(port: int) -> set[str]:
    import chromadb

    client = chromadb.HttpClient(host="127.0.0.1", port=port)
    try:
        return {c.name for c in client.list_collections()}
    finally:
        client.close()
