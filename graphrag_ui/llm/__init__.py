"""The model stages above retrieval: the answer, LightRAG's keywords, map-reduce, dynamic community
selection, DRIFT's calls and the judge.

Each sends its requests through ``graphrag_ui.llm_client`` (the one litellm client, its settings,
errors, usage and the answer cache, which lives below this package) and records every call.
"""
