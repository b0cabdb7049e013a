"""What a retrieval mode receives besides the index and the parameters.

Modes stay pure: the query embedder and the keywords (from the LLM, the offline extractor or the
user) are computed by the caller and passed in as data, so a mode never imports the model client
or the UI, and the query-embedding time is measured apart from the context-build time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from graphrag_ui.base.errors import EmbedderMismatchError
from graphrag_ui.retrieval.core.result import Keywords


@dataclass
class Deps:
    # embeds texts with the index's own embedder; returns (n, dim) float32 rows
    embed: Callable[[list[str]], np.ndarray]
    keywords: Keywords = field(default_factory=Keywords)
    # texts embedded so far -> vector, so callers can pre-embed and time it separately
    cache: dict[str, np.ndarray] = field(default_factory=dict)

    def vector(self, text: str) -> np.ndarray:
        """The embedding of ``text``, computed once per retrieval."""
        if text not in self.cache:
            self.cache[text] = np.asarray(self.embed([text])[0], dtype=np.float32)
        return self.cache[text]

    def optional_vector(self, text: str) -> np.ndarray | None:
        """``vector``, or None when the index does not say which embedder made its vectors: a run with
        recall = ilike finds entities by name and skips (loudly) what only a vector can find."""
        try:
            return self.vector(text)
        except EmbedderMismatchError:
            return None
