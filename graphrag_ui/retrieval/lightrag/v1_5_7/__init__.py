"""What only lightrag-hku 1.5.7 does: JSON-lines context with references and its two-stage chunk cut
(``context``), and its KG and naive pipelines (``pipeline``, after ``kg_query`` and ``naive_query``)."""
