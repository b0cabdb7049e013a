"""``ms.global``: GraphRAG global search — batches, map prompts, answer parsing, reduce and dynamic selection."""
