"""A stub PostgreSQL server that asks every client for a clear-text password and records what it gets.

It speaks just enough of the frontend/backend protocol (v3): it refuses SSL and GSS encryption
(``N``), reads the startup packet (user, database), asks for ``AuthenticationCleartextPassword``,
keeps the password message's text, and ends with an ``ErrorResponse``. A test then knows exactly which
password, if any, the client sent: the proof that the server's ``PGPASSWORD`` or ``~/.pgpass`` never
travels to a host the visitor chose.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

SSL_REQUEST, GSS_REQUEST = 80877103, 80877104


@dataclass
class Seen:
    """What the stub received: one dict per connection (``user``, ``database``, ``password`` if sent)."""

    connections: list[dict[str, str]] = field(default_factory=list)

    @property
    def passwords(self) -> list[str]:
        return [c["password"] for c in self.connections if "password" in c]


def _read(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        part = conn.recv(n - len(data))
        if not part:
            raise ConnectionError("client closed")
        data += part
    return data


def _error(text: str) -> bytes:
    body = b"SFATAL\x00C28P01\x00M" + text.encode() + b"\x00\x00"
    return b"E" + struct.pack("!I", len(body) + 4) + body


def _serve_one(conn: socket.socket, seen: Seen) -> None:
    record: dict[str, str] = {}
    with conn:
        conn.settimeout(10)
        while True:
            length = struct.unpack("!I", _read(conn, 4))[0]
            body = _read(conn, length - 4)
            code = struct.unpack("!I", body[:4])[0]
            if code in (SSL_REQUEST, GSS_REQUEST):
                conn.sendall(b"N")
                continue
            break
        parts = body[4:].split(b"\x00")
        record.update({k.decode(): v.decode() for k, v in zip(parts[0::2], parts[1::2], strict=False) if k})
        seen.connections.append(record)
        conn.sendall(b"R" + struct.pack("!II", 8, 3))  # AuthenticationCleartextPassword
        try:
            kind = _read(conn, 1)
        except (ConnectionError, OSError):
            return  # the client had no password to give and hung up
        length = struct.unpack("!I", _read(conn, 4))[0]
        payload = _read(conn, length - 4)
        if kind == b"p":
            record["password"] = payload.rstrip(b"\x00").decode()
        conn.sendall(_error("password authentication failed (stub)"))


@contextmanager
def password_stub() -> Iterator[tuple[int, Seen]]:
    """Listen on a free 127.0.0.1 port; yield (port, what was seen)."""
    seen = Seen()
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            try:
                _serve_one(conn, seen)
            except (ConnectionError, OSError, struct.error):
                pass

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], seen
    finally:
        stop.set()
        thread.join(5)
        server.close()
