"""nano-graphrag 0.0.8.2 (``nano_graphrag/_op.py``, ``base.py``'s ``QueryParam``) — where each step lives.

- ``local_query`` → ``_build_local_query_context`` → ``local_query``: entity search in ``entities_vdb``
  (nano-vectordb semantics, or seed 003's ILIKE / hybrid recall) → ``recall``;
  ``_find_most_related_community_from_entities``, ``_find_most_related_text_unit_from_entities`` and
  ``_find_most_related_edges_from_entities`` are its communities, text-unit and edge steps
- ``list_of_list_to_csv``, ``truncate_list_by_token_size`` and the four fenced sections → ``csv_context``
- ``global_query`` up to ``_map_global_communities`` → ``global_query``; the graph's
  ``community_schema()`` (``_storage/gdb_networkx.py``) → ``community_schema``; reading the map
  answers and the reduce prompt → ``map_reduce``
- ``naive_query`` → ``naive_query``
- ``prompt.py``'s answer, map and reduce prompts (our wording, nano's placeholders) → ``prompts``
- the ``QueryParam`` fields the modes share → ``params``; per-index token counts of stored texts,
  which nano encodes again on every query → ``prep``
"""
