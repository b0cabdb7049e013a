"""Cached retrieval for the pages: the same question and parameters never run twice.

The cache holds the ``Retrieval`` objects themselves (``st.cache_resource``), shared by every session and
never copied: pages only read them (a map-reduce run works on its own copy of the stages). Turning a
100k-entity retrieval into a dict and pickling it for ``st.cache_data`` took longer than running it.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import streamlit as st

from graphrag_ui.base.timing import elapsed_s, now
from graphrag_ui.index.model import Index
from graphrag_ui.index.servers import vector_server
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.services.query import run_query
from graphrag_ui.ui.shell import state


@st.cache_resource(max_entries=48, show_spinner=False)
def _cached(
    _index: Index,
    index_key: str,
    stamp: str,
    mode: str,
    query: str,
    params_json: str,
    hl: tuple[str, ...],
    ll: tuple[str, ...],
    model: str,
) -> Retrieval:
    from graphrag_ui.model_client.settings import LLMSettings

    settings = LLMSettings.from_env_and_secrets()
    return run_query(_index, mode, query, json.loads(params_json), hl=list(hl), ll=list(ll), llm_settings=settings)


def retrieve(
    index: Index,
    index_key: str,
    mode: str,
    query: str,
    params: dict[str, Any],
    hl: list[str] | None = None,
    ll: list[str] | None = None,
) -> Retrieval:
    """Run (or reuse) one retrieval; keyed by index version, mode, query, parameters, keywords, model."""
    from graphrag_ui.model_client.settings import LLMSettings

    model = LLMSettings.from_env_and_secrets().model or ""
    # the on-disk version, as the index loader keys it: a re-embed in place must not reuse old results
    stamp = f"{index.path}@{state.index_version(index.path)}"
    if any(vector_server.is_server(table) for table in index.vectors.values()):
        stamp += "@chroma-server"  # the same folder opened the other way answers from another engine
    return _cached(
        index,
        index_key,
        stamp,
        mode,
        query,
        json.dumps(params, sort_keys=True, default=str),
        tuple(hl or ()),
        tuple(ll or ()),
        model,
    )


def split_keywords(text: str) -> list[str]:
    return [part.strip() for part in (text or "").replace("，", ",").split(",") if part.strip()]


SLOW_S = 0.3  # a retrieval this slow shows a spinner on the next one
_LAST_TOOK = "_retrieval_took_s"


def waiting_note(text: str) -> AbstractContextManager:
    """``st.spinner(text)`` when this session's last retrieval was slow (a large index, a catalog or chroma
    server, a remote embedder) or none ran yet; else nothing. A spinner starts a timer thread on every run,
    which on a busy machine cost a slider move 10-20 ms and one more message for a spinner that a
    retrieval of a few milliseconds never shows (Streamlit draws it after half a second)."""
    took = st.session_state.get(_LAST_TOOK)
    return st.spinner(text) if took is None or took >= SLOW_S else nullcontext()


def timed_retrieve(*args: Any, **kwargs: Any) -> Retrieval:
    """``retrieve``, remembering how long it took for ``waiting_note``."""
    start = now()
    try:
        return retrieve(*args, **kwargs)
    finally:
        st.session_state[_LAST_TOOK] = elapsed_s(start)
