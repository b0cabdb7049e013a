"""The ``extra`` codec keeps types that plain JSON loses (property test)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.index.stored import decode_extra, decode_extras
from graphrag_ui.index.tables import encode_extra

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
keys = st.text() | st.integers() | st.booleans() | st.tuples(st.integers(), st.text())


def _values(children):
    return st.lists(children, max_size=4) | st.tuples(children, children) | st.dictionaries(keys, children, max_size=4)


values = st.recursive(scalars, _values, max_leaves=12)


def _same(a, b) -> bool:
    """Equal and of the same types all the way down (1 vs 1.0 vs True, tuple vs list)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (
            list(a) == list(b)
            and all(type(k) is type(kb) for k, kb in zip(a, b, strict=True))
            and all(_same(a[k], b[k]) for k in a)
        )
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), values, max_size=5))
def test_round_trip_keeps_types(extra):
    assert _same(decode_extra(encode_extra(extra, "t")), extra)


def test_tag_lookalikes_and_numpy():
    extra = {"x": {"$tuple": [1, 2]}, "y": {"$dict": []}, "n": np.int64(3), "f": np.float32(0.5), "a": np.arange(3)}
    back = decode_extra(encode_extra(extra, "t"))
    assert back["x"] == {"$tuple": [1, 2]} and back["y"] == {"$dict": []}
    assert back["n"] == 3 and type(back["n"]) is int
    assert back["f"] == 0.5 and type(back["f"]) is float
    assert back["a"] == [0, 1, 2]


def test_unstorable_value_names_the_place():
    with pytest.raises(UserError, match=r"row 4: cannot store a set"):
        encode_extra({"s": {1, 2}}, "row 4")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.text(), values, max_size=3), max_size=6))
def test_decoding_all_rows_at_once_equals_each_row(extras):
    texts = [encode_extra(e, "test") for e in extras]
    together = decode_extras(texts)
    assert len(together) == len(texts)
    assert all(_same(a, decode_extra(t)) for a, t in zip(together, texts, strict=True))


@pytest.mark.parametrize("bad", ['{"a": 1}, {"b": 2}', "", '{"a": '])
def test_a_row_that_is_not_one_json_value_fails_as_it_did_alone(bad):
    texts = ['{"x": 1}', bad, '{"y": 2}']
    with pytest.raises(ValueError):
        decode_extra(bad)
    with pytest.raises(ValueError):
        decode_extras(texts)
