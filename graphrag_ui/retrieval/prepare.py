"""Per-index work every first query would do, done once when the index is opened.

A first query used to pay for loading the mode modules, tiktoken's encoding and the per-index
lookups the graph modes keep (LightRAG's relation-row map and node degrees, nano's memo): seconds
at 10k entities on a busy machine, while the next queries took milliseconds. ``prepare_index``
builds them right after loading, so the wait moves to "opening the index" where the app already
shows a spinner, and the first question is answered as fast as the second.
"""

from __future__ import annotations

from graphrag_ui import tokens
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval import lightrag_search, ms_local_search, nano_prep
from graphrag_ui.retrieval.registry import mode_names


def prepare_index(index: Index) -> None:
    """Import every mode module and fill the per-index caches the retrieval modes share."""
    mode_names()  # imports the mode modules
    if index.manifest.source.startswith("graphrag"):
        tokens.encoding(ms_local_search.ENCODING)  # GraphRAG indexes are counted with cl100k_base
    tokens.encoding(nano_prep.ENCODING)
    lightrag_search.graph_cache(index)
    nano_prep.prepared(index)
