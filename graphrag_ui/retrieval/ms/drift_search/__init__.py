"""GraphRAG DRIFT search (``graphrag/query/structured_search/drift_search/``), graphrag 3.3.0.

GraphRAG's functions → our modules:

- ``PrimerQueryProcessor.expand_query``'s template choice (``secrets.choice``) → ``primer.pick_template``
  (seeded); the expansion prompt → ``graphrag_ui.prompts_ms.hyde_messages`` (our wording, GraphRAG's pieces)
- ``DRIFTSearchContextBuilder.convert_reports_to_df`` / ``build_context`` (cosine to the reports'
  ``full_content`` vectors, ``nlargest(drift_k_followups)``) → ``primer.report_vectors``,
  ``primer.similarities``, ``primer.rank_reports``
- ``DRIFTPrimer.split_reports`` / ``decompose_query``'s report text → ``primer.split_folds``,
  ``primer.fold_text``; its prompt → ``graphrag_ui.prompts_ms.primer_messages``
- ``DRIFTSearch.search`` up to the first model call → ``search.primer_stage`` (the ``ms.drift`` mode)

Not here yet (they need a model runner in ``graphrag_ui.llm``): ``DRIFTPrimer.search`` and
``DRIFTSearch._process_primer_results``, ``DriftAction.search`` (local search per follow-up, through
``local_search``'s builder), ``QueryState`` (the question graph, ``rank_incomplete_actions``' shuffle),
``_reduce_response``.
"""
