"""The model stages above retrieval: the answer, LightRAG's keywords, the generic drivers of a mode's
declared stages (``map_reduce``: map calls then the reduce; ``model_rounds``: calls made while it
retrieves, e.g. dynamic community selection or DRIFT's rounds) and the judge.

Each sends its requests through ``graphrag_ui.model_client`` (the one litellm client, its settings,
errors, usage and the answer cache, which lives below this package) and records every call.
"""
