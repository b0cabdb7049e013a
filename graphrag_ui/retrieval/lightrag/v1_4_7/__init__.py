"""What only lightrag-hku 1.4.7 does: its budgets, its truncation and its context text (``context``), and
its KG and naive pipelines (``pipeline``, after ``_build_query_context`` and ``naive_query``)."""
