"""Which library version wrote a LanceDB table, read from the table's own manifest.

The search order of an old table depends on the LanceDB that searches it (for GraphRAG, the one that
wrote it), and lancedb's Python API does not expose it, so the newest ``_versions/*.manifest`` is read
directly: its last 16 bytes are the manifest's offset (u64, little endian), the format version and
``LANC``; at the offset a u32 length precedes the ``Manifest`` protobuf, whose field 13
(``writer_version``) holds ``library`` (1) and ``version`` (2). A few lines of protobuf wire format
decoding do that without a protobuf dependency.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

U64 = 2**64 - 1
WRITER_VERSION, LIBRARY, VERSION = 13, 1, 2


def _manifest_version(path: Path) -> int:
    """Version number from a manifest file name: ``N.manifest`` or, in the V2 scheme, ``u64::MAX - N``."""
    number = int(path.stem)
    return U64 - number if number > 2**63 else number


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def _fields(data: bytes) -> dict[int, bytes]:
    """Length-delimited fields of a protobuf message (the last one wins; other wire types skipped)."""
    out: dict[int, bytes] = {}
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        wire = key & 7
        if wire == 0:
            _, pos = _varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            size, pos = _varint(data, pos)
            out[key >> 3] = data[pos : pos + size]
            pos += size
        else:
            raise ValueError(f"unexpected protobuf wire type {wire}")
    return out


def writer_version(lance_dir: Path) -> tuple[str, str] | None:
    """(library, version) of the newest manifest of a ``.lance`` table, or None when it says nothing."""
    manifests = [p for p in (lance_dir / "_versions").glob("*.manifest") if p.stem.isdigit()]
    if not manifests:
        return None
    data = max(manifests, key=_manifest_version).read_bytes()
    if len(data) < 16 or data[-4:] != b"LANC":
        raise ValueError("not a Lance manifest (no LANC footer)")
    (offset,) = struct.unpack("<Q", data[-16:-8])
    (size,) = struct.unpack("<I", data[offset : offset + 4])
    writer = _fields(data[offset + 4 : offset + 4 + size]).get(WRITER_VERSION)
    if writer is None:
        return None
    parts = _fields(writer)
    return parts.get(LIBRARY, b"").decode("utf-8", "replace"), parts.get(VERSION, b"").decode("utf-8", "replace")


def version_tuple(version: str) -> tuple[int, ...]:
    """``"0.20.0"`` -> (0, 20, 0); a pre-release or build tag after the numbers is ignored."""
    match = re.match(r"\d+(?:\.\d+)*", version)
    return tuple(int(x) for x in match.group(0).split(".")) if match else ()
