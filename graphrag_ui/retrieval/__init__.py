"""Retrieval modes: pure functions ``(index, query, params, deps) -> Retrieval``."""
