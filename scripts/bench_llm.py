"""How much time our LLM layer adds to a model call, measured against the local test server.

For each kind of call (non-streamed, streamed) it times N requests made directly over HTTP
(``http.client`` on a kept-alive connection: the server's own time plus the wire) and N calls
through ``graphrag_ui.model_client.client`` (litellm underneath), and prints the medians and their difference.
The goal is an overhead of at most 20 ms at p50.

    .venv/bin/python scripts/bench_llm.py [--n 50]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import graphrag_ui  # noqa: E402,F401  (offline environment first)
from graphrag_ui.model_client import client  # noqa: E402
from graphrag_ui.model_client.settings import LLMSettings  # noqa: E402
from tests.support.llm_server import Reply, start_server  # noqa: E402

ANSWER = "Amabel Quell organised the flood relief after the great flood of 409, paid for by the Tide Tax. " * 4
# the model name picks how the server splits the streamed answer: 1 chunk, or ~27 chunks of 16 characters
CHUNK_SIZES = {"gpt-4o-mini": len(ANSWER), "gpt-4o": 16}
MESSAGES = [
    {
        "role": "system",
        "content": "Answer from the context.\n\n" + "id,entity,type,description\n0,ALICE,PERSON,x\n" * 40,
    },
    {"role": "user", "content": "Who organised the flood relief?"},
]


def raw_call(conn: http.client.HTTPConnection, path: str, stream: bool, model: str = "gpt-4o-mini") -> str:
    body = json.dumps({"model": model, "messages": MESSAGES, "stream": stream})
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json", "Authorization": "Bearer x"})
    response = conn.getresponse()
    data = response.read().decode()
    if response.status != 200:
        raise RuntimeError(f"server answered {response.status}: {data[:200]}")
    if not stream:
        return json.loads(data)["choices"][0]["message"]["content"]
    parts = []
    for line in data.splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            choices = json.loads(line[6:])["choices"]
            if choices:
                parts.append(choices[0]["delta"].get("content") or "")
    return "".join(parts)


def timed(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="calls per measurement (default 50)")
    args = parser.parse_args()

    url, stop = start_server(lambda body: Reply(text=ANSWER, chunk_size=CHUNK_SIZES[body["model"]]))
    try:
        parsed = urlparse(url)
        conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)
        path = parsed.path + "/chat/completions"
        settings = LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=10, max_retries=0)

        start = time.perf_counter()
        client.litellm()
        print(f"litellm import (once per process): {(time.perf_counter() - start) * 1000:.0f} ms")
        # warm-up: connection pools, lazy imports, price map
        for _ in range(5):
            assert raw_call(conn, path, False) == ANSWER and raw_call(conn, path, True, "gpt-4o") == ANSWER
            assert client.call(MESSAGES, settings).text == ANSWER
            assert client.stream(MESSAGES, settings.with_(model="openai/gpt-4o")).text == ANSWER

        many = settings.with_(model="openai/gpt-4o")
        n_chunks = -(-len(ANSWER) // CHUNK_SIZES["gpt-4o"])
        cases = [
            ("complete", lambda: raw_call(conn, path, False), lambda: client.call(MESSAGES, settings)),
            ("stream, 1 chunk", lambda: raw_call(conn, path, True), lambda: client.stream(MESSAGES, settings)),
            (
                f"stream, {n_chunks} chunks",
                lambda: raw_call(conn, path, True, "gpt-4o"),
                lambda: client.stream(MESSAGES, many),
            ),
        ]
        print(f"{'call':<20}{'raw HTTP p50':>14}{'our client p50':>16}{'overhead p50':>14}{'client p90':>12}")
        overheads = {}
        for name, raw_fn, ours_fn in cases:
            raw, ours = timed(raw_fn, args.n), timed(ours_fn, args.n)
            raw50, ours50 = statistics.median(raw), statistics.median(ours)
            overheads[name] = ours50 - raw50
            ours90 = statistics.quantiles(ours, n=10)[-1]
            print(f"{name:<20}{raw50:>11.2f} ms{ours50:>13.2f} ms{ours50 - raw50:>11.2f} ms{ours90:>9.2f} ms")
        per_chunk = (overheads[cases[2][0]] - overheads[cases[1][0]]) / (n_chunks - 1)
        print(f"litellm's per-chunk stream cost: {per_chunk:.2f} ms (overlaps the model's own generation time)")
        fixed = max(overheads["complete"], overheads["stream, 1 chunk"])
        print(f"per-call overhead p50: {fixed:.2f} ms -> goal <= 20 ms: {'met' if fixed <= 20 else 'NOT met'}")
        conn.close()
    finally:
        stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
