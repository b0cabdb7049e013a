"""LightRAG (lightrag-hku 1.4.7 and 1.5.7, ``lightrag/operate.py``) — where each step lives.

What both releases do alike sits here; what differs sits in ``v1_4_7/`` and ``v1_5_7/``.

- ``QueryParam`` and the instance settings of each release → ``modes`` (the mode specs)
- ``kg_query`` / ``naive_query``: keywords, bypass, seed 001's fall back to naive → ``retrieve``
- ``_get_node_data`` / ``_get_edge_data`` (local / global path), ``_find_most_related_edges_from_entities``,
  ``_find_most_related_entities_from_relationships``, the round-robin merges → ``search``
- ``_find_related_text_unit_from_entities`` / ``_from_relations``, ``pick_by_weighted_polling`` /
  ``pick_by_vector_similarity``, ``_get_vector_context`` (mix, naive) → ``chunks``
- the search and chunk stages both releases run in the same order → ``stages``
- 1.4.7's ``_build_query_context`` and ``truncate_list_by_token_size`` → ``v1_4_7/pipeline``, ``v1_4_7/context``
- 1.5.7's ``_apply_token_truncation``, ``_merge_all_chunks``, ``_build_context_str`` (JSON lines,
  references) → ``v1_5_7/pipeline``, ``v1_5_7/context``
- candidates, their reasons and the trace rows → ``explain``
- ``PROMPTS["rag_response"]`` / ``["naive_rag_response"]`` (the answer prompts, our wording) → ``prompts``

1.4.7's entity and relation token counts are stored at import (``graphrag_ui.index.lightrag_precount``).
"""
