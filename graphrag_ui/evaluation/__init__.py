"""Score retrieval modes and settings against the evidence a question set needs (issue 26).

The public API, one idea per module:

- ``gold``: ``Question`` / ``GoldItem`` / ``QuestionSet`` / ``LineProblem`` and the JSONL format;
- ``formats``: ``load_questions`` / ``read_questions`` (our JSONL, MultiHop-RAG, HotpotQA / 2Wiki,
  GraphRAG-Bench);
- ``metrics``: ``evaluate(index, retrieval, question) -> RowMetrics`` (no model), with ``Placement`` for a
  found item and ``why.Missed`` for a missed one;
- ``plan``: ``Config`` (mode, version, swept value) and ``EvalPlan`` (modes × versions × one range);
- ``runner``: ``run_evaluation(index, questions, plan, executor=, progress=, cancelled=) -> EvalRun``, with
  pluggable executors (``serial``, ``processes``);
- ``stats``: ``aggregate`` (bootstrap 95 % intervals), ``pareto``, ``paired`` (Wilcoxon), ``smallest_fix``.
"""
