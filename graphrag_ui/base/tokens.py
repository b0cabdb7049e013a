"""tiktoken encoders that work with no network (the BPE files ship inside the litellm wheel).

Each reference counts tokens with its own encoding: nano-graphrag and LightRAG use o200k_base
(tiktoken's encoding for gpt-4o / gpt-4o-mini); GraphRAG's CLI counts through litellm, which
uses cl100k_base for OpenAI models.

Loading an encoding is the slowest step of a first query (o200k_base: ~1 s on a quiet core, 8 s on
a busy one): tiktoken decodes its 200k-line BPE file through ``base64.b64decode``, whose wrapper
costs more than the decoding itself, then builds its Rust tables. So the file is parsed with
``binascii`` directly (the same bytes, ~4x faster), and ``warm`` starts loading the index's encoding on
a background thread as soon as an index is opened, while its tables load.
"""

from __future__ import annotations

import binascii
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import tiktoken
import tiktoken.load
import tiktoken_ext.openai_public

from graphrag_ui.base import _offline  # noqa: F401

DEFAULT_ENCODING = "o200k_base"


def _load_ranks(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """tiktoken's ``load_tiktoken_bpe`` (same file, same hash check, same result) without base64's wrapper."""
    contents = tiktoken.load.read_file_cached(path, expected_hash)
    a2b = binascii.a2b_base64  # = base64.b64decode(token) for the well-formed lines these files hold
    return {a2b(token): int(rank) for token, rank in (line.split() for line in contents.splitlines() if line)}


tiktoken_ext.openai_public.load_tiktoken_bpe = _load_ranks  # the constructors call it by this name


@lru_cache(maxsize=8)
def encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """Return the named encoding, loaded once per process from the offline cache (tiktoken locks the load)."""
    return tiktoken.get_encoding(name)


def warm(name: str) -> None:
    """Start loading ``name`` on a daemon thread, so that the first query does not wait for it."""
    if name in tiktoken_ext.openai_public.ENCODING_CONSTRUCTORS and encoding.cache_info().currsize < 8:
        threading.Thread(target=encoding, args=(name,), name=f"tiktoken-{name}", daemon=True).start()


def count(text: str, name: str = DEFAULT_ENCODING) -> int:
    """Number of tokens of ``text`` (special-token text is counted as ordinary text)."""
    return len(encoding(name).encode(text, disallowed_special=()))


def count_many(texts: list[str], name: str = DEFAULT_ENCODING) -> list[int]:
    """Token counts of many texts (as ordinary text), one slice per core.

    tiktoken's ``encode_ordinary_batch`` submits one future per text: for 10⁴–10⁵ short texts the
    futures cost as much as the encoding (2.2 of 4.5 s at 55k texts, profiled). Its Rust core
    releases the GIL, so a plain loop per slice on one thread per core runs in parallel instead.
    """
    enc = encoding(name)
    workers = max(1, min(len(os.sched_getaffinity(0)), len(texts) // 1000))

    def part(i: int) -> list[int]:
        return [len(enc.encode_ordinary(text)) for text in texts[i::workers]]

    if workers == 1:
        return part(0)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(part, range(workers)))
    out = [0] * len(texts)
    for i, counted in enumerate(parts):
        out[i::workers] = counted
    return out


def encode(text: str, name: str = DEFAULT_ENCODING) -> list[int]:
    return encoding(name).encode(text, disallowed_special=())


def decode(tokens: list[int], name: str = DEFAULT_ENCODING) -> str:
    return encoding(name).decode(tokens)


def last_piece(text: str) -> str:
    """The text's last pre-token when it ends in punctuation: its trailing run of characters that are
    neither letters, digits nor spaces, with one leading space if there is one (tiktoken's
    `` ?[^\\s\\p{L}\\p{N}]+`` piece). Appending punctuation or a newline re-tokenizes only this piece."""
    i = len(text)
    while i > 0 and not text[i - 1].isalnum() and not text[i - 1].isspace():
        i -= 1
    if i > 0 and text[i - 1] == " ":
        i -= 1
    return text[i:]


@lru_cache(maxsize=4096)
def _suffix_delta(piece: str, suffix: str, name: str) -> int:
    return count(piece + suffix, name) - count(piece, name)


def with_suffix(text: str, text_tokens: int, suffix: str, name: str = DEFAULT_ENCODING) -> int:
    """Tokens of ``text + suffix`` from the known count of ``text``: pre-tokens are encoded one by one,
    so only the last piece changes (``suffix`` = punctuation and/or a newline, e.g. "," or "]\\n")."""
    return text_tokens + _suffix_delta(last_piece(text), suffix, name)


def with_suffixes(text: str, text_tokens: int, suffixes: tuple[str, ...], name: str = DEFAULT_ENCODING) -> list[int]:
    """``with_suffix`` for each of ``suffixes``, finding the text's last piece once."""
    piece = last_piece(text)
    return [text_tokens + _suffix_delta(piece, suffix, name) for suffix in suffixes]
