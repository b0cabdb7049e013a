"""What a mode reads from an index, declared on its ``ModeSpec`` (``needs``).

``graphrag_ui.services.readiness`` checks these needs against the import report's facts (vectors,
reports, chunk text, communities) to say which modes can run on an index and why not; ``run_query``
reads ``vectors`` to know whether the mode embeds the question.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Needs:
    vectors: tuple[str, ...] = ()  # kinds its vector search reads: it embeds the question if any
    any_vectors: bool = False  # one of the kinds is enough (hybrid, mix)
    reports: str = ""  # "required" | "optional"
    chunk_text: str = ""  # "required" | "optional": LightRAG 1.4/1.5 read a chunk's text from its vector row
    by_name: bool = False  # has ``recall``: ILIKE finds entities without vectors
    members: bool = False  # loads only entities that belong to a community (GraphRAG's local search)
