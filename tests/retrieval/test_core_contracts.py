"""The offline tokenizer, the hash embedder's exact definition and the Retrieval JSON round trip."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys

import numpy as np

from graphrag_ui.base import tokens
from graphrag_ui.base.errors import EmbedderMismatchError, UserError
from graphrag_ui.embedding.embed import HashEmbedder, check_compatible, get_embedder
from graphrag_ui.retrieval.core.result import Candidate, Keywords, Retrieval


def reference_hash_vector(text: str) -> np.ndarray:
    vec = np.zeros(256, dtype=np.float32)
    for tok in re.findall(r"[\u4e00-\u9fff]|[^\W\u4e00-\u9fff]+", text.lower()):
        vec[int.from_bytes(hashlib.md5(tok.encode("utf-8")).digest()[:4], "little") % 256] += 1.0
    n = np.linalg.norm(vec)
    return vec / n if n > 0 else vec


def test_hash_embedder_matches_its_specification():
    texts = ["Alice Smith works at Acme Corp.", "跑步记录和心率", "", "!!!", "MiXeD 大小写 Words words"]
    got = HashEmbedder().embed(texts)
    assert got.dtype == np.float32 and got.shape == (5, 256)
    for row, text in zip(got, texts, strict=True):
        assert np.array_equal(row, reference_hash_vector(text))
    assert not got[2].any() and not got[3].any()


def test_embedder_mismatch_names_both():
    try:
        check_compatible("litellm:text-embedding-3-small", "use-m3")
    except EmbedderMismatchError as exc:
        assert "text-embedding-3-small" in str(exc) and "use-m3" in str(exc)
    else:
        raise AssertionError("mismatch not raised")
    check_compatible("hash", "hash")


def test_unknown_embedder_is_a_user_error():
    try:
        get_embedder("nonsense")
    except UserError as exc:
        assert "nonsense" in str(exc)
    else:
        raise AssertionError


def test_tokenizer_counts_without_network(no_network):
    assert tokens.count("hello world", "o200k_base") == 2
    assert tokens.count("hello world", "cl100k_base") == 2


def test_count_many_equals_one_count_per_text():
    texts = [f"{i} 跑步数据 running {'x' * (i % 7)} <|endoftext|>" for i in range(2500)] + ["", " "]
    expected = [len(tokens.encoding("o200k_base").encode_ordinary(text)) for text in texts]
    assert tokens.count_many(texts, "o200k_base") == expected  # several slices, order kept
    assert tokens.count_many(texts[:3], "o200k_base") == expected[:3]  # one slice
    assert tokens.count_many([], "o200k_base") == []


def test_tokenizer_in_a_process_with_no_network():
    """A fresh interpreter with every socket refused still loads both encodings."""
    code = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('no network')\n"
        "socket.socket.connect = refuse; socket.getaddrinfo = refuse\n"
        "from graphrag_ui.base import tokens\n"
        "print(tokens.count('跑步数据 and running data', 'o200k_base'), tokens.count('x', 'cl100k_base'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[1] == "1"


def test_retrieval_round_trips_through_json():
    r = Retrieval(mode="nano.local", query="q", params={"top_k": 3}, keywords=Keywords(["a"], ["b"], "user"))
    r.entities.append(Candidate(id="e1", label="A", data={"w": np.float32(1.5)}, order=0, why="entity #1"))
    r.entities.append(Candidate(id="e2", label="B", data={}, order=1, why="x", in_context=False, dropped="over budget"))
    data = Retrieval.from_dict(__import__("json").loads(r.to_json()))
    assert data.selected_ids("entities") == ["e1"]
    assert data.entities[1].dropped == "over budget"
    assert data.keywords.source == "user"


def test_staged_retrieval_round_trips_through_json():
    from graphrag_ui.retrieval.core.stages import Batch, ModelCall, Point, Rating, Stages

    stages = Stages(
        batches=[Batch(0, ["7"], "id|title\n7|Harbour", 5, 8000, [{"role": "system", "content": "map"}])],
        ratings=[Rating("7", 0, 3.0, True, "rated 3 ≥ 1")],
        calls=[ModelCall("map", "batch 0", 120, 30, 12.5, None, False, True, "", '{"points": []}', [])],
        points=[Point(0, "the harbour matters", 80.0, ["7"], True, "score 80", "", 6)],
    )
    staged = Retrieval(mode="ms.global", query="q", params={}, stages=stages)
    assert Retrieval.from_dict(json.loads(staged.to_json())) == staged
    assert Retrieval.from_dict(Retrieval(mode="nano.local", query="q", params={}).to_dict()).stages is None
