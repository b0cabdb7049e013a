"""Write ``graphrag_ui/retrieval/core/int8_product.onnx``: one ``MatMulInteger`` node, int8 ``rows`` [n, d] times
int8 ``query`` [d, 1] -> the exact int32 products [n, 1] (``retrieval.core.screen``'s int8 screen).

Usage: ``python scripts/build_int8_product_onnx.py [OUT]``. ``onnx`` (a test tool, ``requirements-test.txt``) is
needed only here; the app reads the committed file with onnxruntime. tests/retrieval/test_screen.py builds it again
and compares the bytes, so the file is what this script says.

Both operands are graph inputs, not initialisers: the table's int8 copy changes per table and onnxruntime prepacks
nothing it cannot see, so one session serves every table. ``ir_version`` 8 / opset 13: what onnxruntime 1.31 reads.
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "graphrag_ui" / "retrieval" / "core" / "int8_product.onnx"


def model_bytes() -> bytes:
    from onnx import TensorProto, helper

    node = helper.make_node("MatMulInteger", ["rows", "query"], ["products"])
    graph = helper.make_graph(
        [node],
        "int8_product",
        [
            helper.make_tensor_value_info("rows", TensorProto.INT8, ["n", "d"]),
            helper.make_tensor_value_info("query", TensorProto.INT8, ["d", 1]),
        ],
        [helper.make_tensor_value_info("products", TensorProto.INT32, ["n", 1])],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8, producer_name="graphrag_ui"
    )
    return model.SerializeToString(deterministic=True)


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.write_bytes(model_bytes())
    print(f"wrote {out} ({out.stat().st_size} bytes)")
