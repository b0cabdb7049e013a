"""Make every third-party library offline-safe before it is imported.

tiktoken downloads its BPE files, litellm fetches a price map, onnxruntime and chromadb send
telemetry, lance logs to stderr: all of that is switched off here, once, before anything else in the package runs.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path


def _litellm_tokenizer_dir() -> str | None:
    """Folder inside the litellm wheel that holds the cl100k/o200k BPE files (no import needed)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    return str(folder) if folder.is_dir() else None


def configure() -> None:
    """Set the environment variables that keep the libraries from reaching the network."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # lance's Rust logger writes its WARN lines (index layout notices of GraphRAG 3.x tables) straight
    # to stderr: a reader of an import sees only our own lines
    os.environ.setdefault("LANCE_LOG", "error")
    # Retrieval does many small matrix-vector products; OpenBLAS's thread hand-off makes each one up
    # to 100x slower on a busy 2-core machine, and the embedder gains nothing from a second thread.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        folder = _litellm_tokenizer_dir()
        if folder:
            os.environ["TIKTOKEN_CACHE_DIR"] = folder


configure()
