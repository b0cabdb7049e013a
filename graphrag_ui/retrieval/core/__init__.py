"""What every retrieval mode shares: the ``Retrieval`` it returns, its parameters, recall and stages.

``result`` (the ``Retrieval``, ``Candidate``, budgets, trace), ``schema`` (``ModeSpec`` / ``ParamSpec``:
the sliders and the CLI's checks), ``needs`` (what a mode reads from an index), ``answer_prompt`` (how an
answer prompt is filled), ``reference_params`` + ``param_intake`` (a reference's own parameter
object, field by field), ``deps`` (keywords and the query vector, computed by the caller), ``recall``
(vector / ILIKE / hybrid entity recall, seed 003), ``stages`` (map-reduce batches, calls and points as
data), ``vector_engine`` (which engine searched), ``compare`` (two retrievals side by side).
"""
