"""``ms.local``: GraphRAG local search — the mode (``search``) over ``LocalSearchMixedContext`` (``mixed_context``)."""
