"""The test server itself: standalone mode, embeddings, the default script's answers."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.support.llm_server import Reply, Script, first_entity, start_server

ROOT = Path(__file__).resolve().parents[2]


def post(url: str, payload: dict) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_standalone_server_answers_with_the_first_entity_of_the_context():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "support" / "llm_server.py"), "--port", str(port)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=str(ROOT),
    )
    try:
        assert "serving http://127.0.0.1:" in proc.stdout.readline()
        system = 'Knowledge Graph Data (Entity):\n```json\n{"entity": "Amabel Quell", "type": "person"}\n```'
        reply = post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            {"model": "m", "messages": [{"role": "system", "content": system}, {"role": "user", "content": "Who?"}]},
        )
        assert "Amabel Quell" in reply["choices"][0]["message"]["content"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_first_entity_in_csv_pipe_and_json_contexts():
    assert first_entity('id,entity,type\n0,"ALICE",PERSON') == "ALICE"
    assert first_entity("id|entity|description\n7|Marrowick|a city") == "Marrowick"
    assert first_entity('{"entity_name": "心率变异性"}') == "心率变异性"
    assert first_entity("no tables here") is None


def test_embeddings_are_deterministic_unit_vectors():
    url, stop = start_server(embedding_dim=16)
    try:
        a = post(url + "/embeddings", {"model": "e", "input": ["x", "y"]})
        b = post(url + "/embeddings", {"model": "e", "input": "x"})
    finally:
        stop()
    vectors = [d["embedding"] for d in a["data"]]
    assert len(vectors) == 2 and len(vectors[0]) == 16 and vectors[0] == b["data"][0]["embedding"]
    assert abs(sum(v * v for v in vectors[0]) - 1) < 1e-9 and vectors[0] != vectors[1]


def test_script_records_requests_and_repeats_its_last_reply():
    script = Script([Reply(text="one"), Reply(text="two")])
    url, stop = start_server(script)
    try:
        texts = [
            post(url + "/chat/completions", {"model": "m", "messages": [{"role": "user", "content": str(i)}]})
            for i in range(3)
        ]
    finally:
        stop()
    assert [t["choices"][0]["message"]["content"] for t in texts] == ["one", "two", "two"]
    assert [r["body"]["messages"][0]["content"] for r in script.requests] == ["0", "1", "2"]
