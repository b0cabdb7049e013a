"""The model client at the bottom of the package: settings, calls, errors, usage and the answer cache.

The index builder (extraction, reports) and the answer layer (``graphrag_ui.model_calls``) both call models
through ``client``; nothing here imports queries, retrieval or storage.
"""
