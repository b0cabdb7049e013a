"""Retrieval modes: pure functions ``(index, query, params, deps) -> Retrieval``, one package per reference.

- ``core/``: what every mode shares — the ``Retrieval`` object (``result``), parameter schemas and the
  intake of the references' own parameter objects, entity recall (seed 003), map-reduce stages as
  data, the note of which vector engine searched, and comparing two retrievals;
- ``nano/``, ``lightrag/``, ``ms/``: the modes of nano-graphrag, LightRAG and Microsoft GraphRAG, each
  package opening with a map from its reference's functions to our modules;
- ``registry``: mode name → its ``ModeSpec``; ``prepare``: the per-index work done when an index opens.

A family imports ``core`` and the index, never another family and never the model client: keywords,
the query vector and model answers come in as data (``core.deps``), see docs/architecture.md.
"""
