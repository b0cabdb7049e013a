"""Index builder: documents → chunks → entities/relations (LLM or offline) → communities → reports → vectors.

Entry points: :func:`graphrag_ui.index.builder.pipeline.build_index` (in memory) and
:func:`graphrag_ui.index.builder.pipeline.build` (build and save); CLI in ``command.py``.
"""
