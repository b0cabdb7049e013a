"""GraphRAG Retrieval Explorer: see exactly what each graph-RAG retrieval mode recalls and why."""

from graphrag_ui.base import (
    _blas,  # noqa: F401  (before numpy loads OpenBLAS)
    _offline,  # noqa: F401  (must run before any third-party import)
)
from graphrag_ui.base.redact import install_log_redaction  # noqa: E402

install_log_redaction()  # no log line, from us or a library, carries a password, key or token

__version__ = "0.1.0"
