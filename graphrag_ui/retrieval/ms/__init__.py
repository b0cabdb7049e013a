"""Microsoft GraphRAG 2.x / 3.x (``graphrag/query/``) — one package per search, as GraphRAG has them.

- ``query/indexer_adapters.py`` (``read_indexer_entities``, ``read_indexer_reports``, …) → ``indexer_adapters``
- ``LanceDBVectorStore.similarity_search_by_vector`` → ``vector_search`` (older LanceDB's tie order: ``lance_topk``)
- token counting and the ``to_csv(sep="|")`` tables of the context builders → ``text``
- ``structured_search/local_search/`` (``LocalSearchMixedContext``) → ``local_search/search``, with
  ``context_builder/{community,local,source}_context.py`` → ``local_search/mixed_context``
- ``structured_search/global_search/`` (``GlobalCommunityContext``) → ``global_search/search``, with
  ``context_builder/community_context.py`` in batches → ``global_search/community_context``,
  ``GlobalSearch._parse_search_response`` → ``global_search/parse``, ``_reduce_response`` →
  ``global_search/hooks``, ``context_builder/dynamic_community_selection.py`` → ``global_search/dynamic_selection``
  (its rating rounds with a model → ``global_search/rating_rounds``)
- ``structured_search/basic_search/`` (``BasicSearchContext``) → ``basic_search/search``

- ``structured_search/drift_search/`` (``DRIFTSearchContextBuilder``, ``DRIFTPrimer``, ``DriftAction``,
  ``QueryState``) → ``drift_search/`` (``primer``, ``model_free``, ``answers``, ``loop``, ``rounds``;
  the mode itself: ``search``)

The modes declare their model stages on ``ModeSpec.stages`` (``retrieval.core.model_stages``); the calls
themselves are made by the query service's drivers in ``graphrag_ui.model_calls``: the builders here stay pure.
"""
