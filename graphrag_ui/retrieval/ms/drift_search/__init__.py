"""GraphRAG DRIFT search (``graphrag/query/structured_search/drift_search/``), graphrag 3.3.0.

GraphRAG's functions → our modules:

- ``PrimerQueryProcessor.expand_query``'s template choice (``secrets.choice``) → ``primer.pick_template``
  (seeded); the expansion prompt → ``graphrag_ui.retrieval.ms.prompts.hyde_messages`` (our wording, GraphRAG's pieces)
- ``DRIFTSearchContextBuilder.convert_reports_to_df`` / ``build_context`` (cosine to the reports'
  ``full_content`` vectors, ``nlargest(drift_k_followups)``) → ``primer.report_vectors``,
  ``primer.similarities``, ``primer.rank_reports``
- ``DRIFTPrimer.split_reports`` / ``decompose_query``'s report text → ``primer.split_folds``,
  ``primer.fold_text``; its prompt → ``graphrag_ui.retrieval.ms.prompts.primer_messages``
- ``DRIFTSearch.search`` up to the first model call → ``model_free.primer_stage`` (``search.run``, the ``ms.drift`` mode)

- ``DRIFTPrimer.search`` / ``DRIFTSearch._process_primer_results`` (structured-output reading, the
  combined first answer) → ``answers.read_primer``, ``answers.combine_primer``
- ``DriftAction.search`` (one local search per follow-up through ``local_search``'s builder, its
  answer read by ``try_parse_json_object``) → ``loop.run_loop`` + ``answers.read_action``
- ``QueryState`` (the question graph, ``rank_incomplete_actions``' shuffle, seeded here) → ``loop.Graph``,
  carried as ``graphrag_ui.retrieval.core.tree.QuestionTree``
- ``DRIFTSearch._reduce_response``'s context → ``loop.run_loop`` (its prompt: ``graphrag_ui.retrieval.ms.prompts.drift_reduce_messages``)

``rounds`` turns the loop's model calls into requests the query service makes (``graphrag_ui.model_calls.model_rounds``);
nothing here imports the model client.
"""
