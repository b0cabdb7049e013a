"""tiktoken encoders that work with no network (the BPE files ship inside the litellm wheel).

Each reference counts tokens with its own encoding: nano-graphrag and LightRAG use o200k_base
(tiktoken's encoding for gpt-4o / gpt-4o-mini); GraphRAG's CLI counts through litellm, which
uses cl100k_base for OpenAI models.
"""

from __future__ import annotations

from functools import lru_cache

import tiktoken

from graphrag_ui import _offline  # noqa: F401

DEFAULT_ENCODING = "o200k_base"


@lru_cache(maxsize=8)
def encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """Return the named encoding, loaded once per process from the offline cache."""
    return tiktoken.get_encoding(name)


def count(text: str, name: str = DEFAULT_ENCODING) -> int:
    """Number of tokens of ``text`` (special-token text is counted as ordinary text)."""
    return len(encoding(name).encode(text, disallowed_special=()))


def encode(text: str, name: str = DEFAULT_ENCODING) -> list[int]:
    return encoding(name).encode(text, disallowed_special=())


def decode(tokens: list[int], name: str = DEFAULT_ENCODING) -> str:
    return encoding(name).decode(tokens)
