"""``ms.basic``: GraphRAG basic search (``BasicSearchContext``)."""
