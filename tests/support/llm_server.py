"""A real OpenAI-compatible HTTP server for tests: scripted chat replies (JSON and SSE) and embeddings.

litellm talks to it over HTTP with model ``openai/<name>`` and ``api_base=<url>``, so the whole client
path (serialisation, streaming, status codes, timeouts) is exercised. Each reply can be an answer, an
HTTP error, a delay longer than the client's timeout, or a stream that breaks midway.

Use in tests::

    script = Script([Reply(status=429), Reply(text="hello")])
    url, stop = start_server(script)
    ...
    stop()

Standalone (for the UI and browser tests)::

    python tests/support/llm_server.py --port 8765      # then model openai/gpt-4o-mini, api base http://127.0.0.1:8765/v1
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import math
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted reply. ``status`` != 200 sends an OpenAI-style error body instead of an answer."""

    text: str = "ok"
    status: int = 200
    delay: float = 0.0  # seconds before anything is sent (longer than the client timeout: "never comes")
    cut_after: int | None = None  # streaming: close the connection after this many content chunks
    chunk_size: int = 8  # characters per streamed chunk
    usage: bool = True  # include token usage in the reply
    finish: str = "stop"  # the finish reason sent ("length": the model hit its output limit)
    headers: dict[str, str] = field(default_factory=dict)
    fault: str = ""  # "invalid_json": status 200 with a body that is not JSON; "empty_choices": no choices;
    # "no_finish": a stream that ends cleanly ([DONE]) without the finish signal


HANG_SECONDS = 30.0
PROSE = "I looked at the context and I think the question is mostly about the people in it."


def fault_reply(name: str, text: str = "") -> Reply:
    """A reply for one fault mode of ``FAULT_MODES`` (``text`` is what a cut stream sends before it breaks)."""
    text = text or "The answer begins well and then the connection drops in the middle of a sentence"
    return {
        "429": Reply(status=429, text="Rate limit reached for requests"),
        "500": Reply(status=500, text="The server had an error while processing your request"),
        "hang": Reply(delay=HANG_SECONDS),
        "cut": Reply(text=text, cut_after=2),
        "no_finish": Reply(text=text, fault="no_finish"),
        "invalid_json": Reply(fault="invalid_json"),
        "empty_choices": Reply(fault="empty_choices"),
        "prose": Reply(text=PROSE),
    }[name]


FAULT_MODES = ("429", "500", "hang", "cut", "no_finish", "invalid_json", "empty_choices", "prose")
INVALID_JSON = '{"id": "chatcmpl-test", "choices": [{"message": {"content": "half'


Responder = Callable[[dict[str, Any]], Reply]


class Script:
    """What the server answers: a list of replies used in order (the last one repeats) or a function.

    Every request body is recorded in ``requests`` (with its path and headers) for assertions.
    """

    def __init__(self, replies: list[Reply] | Responder | None = None) -> None:
        self._replies = replies if replies is not None else default_reply
        self._lock = threading.Lock()
        self._next = 0
        self.requests: list[dict[str, Any]] = []

    def reply_for(self, body: dict[str, Any]) -> Reply:
        if callable(self._replies):
            return self._replies(body)
        with self._lock:
            reply = self._replies[min(self._next, len(self._replies) - 1)]
            self._next += 1
        return reply


# --- the default script: a canned answer naming an entity from the context, or keyword JSON -------

_JSON_ENTITY = re.compile(r'"entity(?:_name)?"\s*:\s*"([^"]+)"')


def first_entity(system_prompt: str) -> str | None:
    """The first entity name in a context: a JSON ``"entity"`` field or an ``entity`` column of a table."""
    match = _JSON_ENTITY.search(system_prompt)
    if match:
        return match.group(1)
    lines = system_prompt.splitlines()
    for i, line in enumerate(lines[:-1]):
        for delim in (",", "|"):
            header = [c.strip().strip('"').lower() for c in next(csv.reader([line], delimiter=delim))]
            if "entity" in header and len(header) > 1:
                row = next(csv.reader(io.StringIO(lines[i + 1]), delimiter=delim), [])
                col = header.index("entity")
                if len(row) > col and row[col].strip():
                    return row[col].strip().strip('"')
    return None


_QUESTION_WORDS = {"how", "what", "who", "whom", "which", "when", "where", "why", "does", "did", "is", "are", "the"}


def default_keywords(query: str) -> dict[str, list[str]]:
    """Keywords a model might give: the project's offline extractor when importable, else a regex split."""
    try:
        from graphrag_ui.model_calls.keywords import offline_keywords
    except ImportError:
        words = [w for w in re.findall(r"[A-Za-z][\w'-]+|[\u4e00-\u9fff]+", query) if w.lower() not in _QUESTION_WORDS]
        ll = [w for w in words if w[0].isupper() or "\u4e00" <= w[0] <= "\u9fff"]
        hl = [w.lower() for w in words if w not in ll and len(w) > 3]
        return {"high_level_keywords": hl, "low_level_keywords": ll}
    found = offline_keywords(query)
    return {"high_level_keywords": found.hl, "low_level_keywords": found.ll}


def is_map_prompt(text: str) -> bool:
    """A global-search map prompt (GraphRAG's and nano-graphrag's both ask for JSON ``points``)."""
    return '"points"' in text and '"description"' in text and '"score"' in text


def map_points(context: str) -> dict[str, list[dict[str, Any]]]:
    """Points a model might give for one map batch: one scored from the batch text, one scored 0.

    The score is derived from the text, so different batches rank differently and reruns agree.
    """
    rows = [line.strip() for line in context.splitlines() if line.count("|") >= 2 or line.count(",") >= 3]
    row = rows[1] if len(rows) > 1 else (rows[0] if rows else "the data")
    score = 10 + int(hashlib.sha256(context.encode()).hexdigest(), 16) % 90
    first = f"The reports describe {row[:80]}."
    return {
        "points": [{"description": first, "score": score}, {"description": "Nothing else is relevant.", "score": 0}]
    }


def is_rating_prompt(text: str) -> bool:
    """A relevance-rating prompt (GraphRAG's dynamic community selection asks for ``reason``/``rating``)."""
    return '"rating"' in text and '"reason"' in text


def rating_for(text: str) -> dict[str, Any]:
    """A rating from 0 to 5 derived from the prompt, so reruns agree and communities differ."""
    rating = int(hashlib.sha256(text.encode()).hexdigest(), 16) % 6
    return {"reason": f"scripted rating {rating}", "rating": rating}


def drift_reply(system: str, last: str) -> str | None:
    """ms.drift's calls: the hypothetical answer, a primer answer (two follow-ups from its reports'
    headings), a local answer (one follow-up for the first question, none after); None for other prompts."""
    if last.startswith("## Task\nWrite a hypothetical answer to this question: "):
        question = last.split(": ", 1)[1].split("\n", 1)[0]
        return f"# A hypothetical answer\n\n{question} concerns the people and places the reports describe."
    if '"intermediate_answer"' in last and '"follow_up_queries"' in last:
        titles = [line[2:].strip() for line in last.split("\n") if line.startswith("# ")][:2]
        follow = [f"What is {t} about?" for t in titles] or ["What else matters here?"]
        score = int(hashlib.sha256(last.encode()).hexdigest(), 16) % 101
        return json.dumps(
            {"intermediate_answer": "## Primer\n\n" + "; ".join(titles), "score": score, "follow_up_queries": follow}
        )
    if '"follow_up_queries"' in system and '"response"' in system:
        follow = [] if "(more)" in last else [f"{last} (more)"]
        score = int(hashlib.sha256((system + last).encode()).hexdigest(), 16) % 101
        return json.dumps(
            {"response": f"Scripted local answer to: {last}", "score": score, "follow_up_queries": follow}
        )
    return None


def default_reply(body: dict[str, Any]) -> Reply:
    messages = body.get("messages") or []
    last = str(messages[-1].get("content", "")) if messages else ""
    if '"high_level_keywords"' in last and '"low_level_keywords"' in last:
        query = last.split("## Question", 1)[-1].split("## JSON", 1)[0].strip()
        return Reply(text=json.dumps(default_keywords(query), ensure_ascii=False))
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
    if is_map_prompt(system) or is_map_prompt(last):
        return Reply(text=json.dumps(map_points(system or last), ensure_ascii=False))
    if is_rating_prompt(system) or is_rating_prompt(last):
        return Reply(text=json.dumps(rating_for(system + last), ensure_ascii=False))
    drift = drift_reply(system, last)
    if drift is not None:
        return Reply(text=drift)
    name = first_entity(system)
    if name:
        text = f"According to the retrieved context, {name} is the entity most relevant to your question."
    else:
        text = "The retrieved context does not name an entity relevant to your question."
    return Reply(text=text)


# --- HTTP ---------------------------------------------------------------------------------------


def _words(text: str) -> int:
    return max(1, len(re.findall(r"\w+|[^\w\s]", text)))


def _embedding(text: str, dim: int) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest() * (dim // 32 + 1)
    raw = [b - 127.5 for b in digest[:dim]]
    norm = math.sqrt(sum(v * v for v in raw)) or 1.0
    return [v / norm for v in raw]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes: no 40 ms delayed-ACK stall
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (quiet in tests)
        pass

    def setup(self) -> None:
        super().setup()
        self.server.connections.add(self.connection)

    def finish(self) -> None:
        self.server.connections.discard(self.connection)
        super().finish()

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "test-model", "object": "model"}]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            return
        script = self.server.script
        script.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
        if self.path.rstrip("/").endswith("/embeddings"):
            self._embeddings(body)
        elif self.path.rstrip("/").endswith("/chat/completions"):
            self._chat(body, script.reply_for(body))
        else:
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8", "backslashreplace")  # a lone surrogate: \ud800
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _embeddings(self, body: dict[str, Any]) -> None:
        texts = body.get("input") or []
        texts = [texts] if isinstance(texts, str) else texts
        dim = int(body.get("dimensions") or self.server.embedding_dim)
        data = [{"object": "embedding", "index": i, "embedding": _embedding(str(t), dim)} for i, t in enumerate(texts)]
        tokens = sum(_words(str(t)) for t in texts)
        self._json(
            200,
            {
                "object": "list",
                "data": data,
                "model": body.get("model", ""),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _chat(self, body: dict[str, Any], reply: Reply) -> None:
        if reply.delay and self.server.stopping.wait(reply.delay):
            return
        if reply.status != 200:
            kind = "rate_limit_exceeded" if reply.status == 429 else "server_error"
            self._json(reply.status, {"error": {"message": reply.text, "type": kind, "code": kind}}, reply.headers)
            return
        prompt_tokens = sum(_words(str(m.get("content", ""))) for m in body.get("messages") or [])
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": _words(reply.text)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        base = {"id": "chatcmpl-test", "created": int(time.time()), "model": body.get("model", "test-model")}
        if reply.fault and not body.get("stream"):
            self._fault(reply, base)
            return
        if not body.get("stream"):
            message = {"role": "assistant", "content": reply.text}
            payload = {
                **base,
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": reply.finish}],
            }
            if reply.usage:
                payload["usage"] = usage
            self._json(200, payload, reply.headers)
            return
        self._stream(body, reply, base, usage)

    def _fault(self, reply: Reply, base: dict[str, Any]) -> None:
        if reply.fault == "invalid_json":
            data = INVALID_JSON.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif reply.fault == "empty_choices":
            self._json(200, {**base, "object": "chat.completion", "choices": []})
        else:  # no_finish is a streaming fault; unstreamed it is an answer without a finish reason
            message = {"role": "assistant", "content": reply.text}
            choice = {"index": 0, "message": message, "finish_reason": None}
            self._json(200, {**base, "object": "chat.completion", "choices": [choice]})

    def _stream(self, body: dict[str, Any], reply: Reply, base: dict[str, Any], usage: dict[str, int]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.end_headers()

        def event(payload: dict[str, Any] | str) -> None:
            data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
            frame = f"data: {data}\n\n".encode("utf-8", "backslashreplace")
            self.wfile.write(f"{len(frame):X}\r\n".encode() + frame + b"\r\n")
            self.wfile.flush()

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return {**base, "object": "chat.completion.chunk", "choices": [choice]}

        if reply.fault == "invalid_json":
            event(INVALID_JSON)
            event("[DONE]")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            return
        if reply.fault == "empty_choices":
            event({**base, "object": "chat.completion.chunk", "choices": []})
            event("[DONE]")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            return
        pieces = [reply.text[i : i + reply.chunk_size] for i in range(0, len(reply.text), reply.chunk_size)]
        event(chunk({"role": "assistant", "content": ""}))
        for n, piece in enumerate(pieces):
            if reply.cut_after is not None and n >= reply.cut_after:
                self.close_connection = True  # no terminating chunk: the client sees a broken stream
                self.wfile.flush()
                self.connection.shutdown(2)
                return
            event(chunk({"content": piece}))
        if reply.fault != "no_finish":
            event(chunk({}, reply.finish))
        if reply.usage and (body.get("stream_options") or {}).get("include_usage"):
            event({**base, "object": "chat.completion.chunk", "choices": [], "usage": usage})
        event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (timeout tests, benchmarks) is normal here, not worth a traceback."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)

    def __init__(self, port: int, script: Script, embedding_dim: int) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.script = script
        self.embedding_dim = embedding_dim
        self.stopping = threading.Event()
        self.connections: set[socket.socket] = set()  # open keep-alive connections, closed by stop()


def start_server(script: Script | list[Reply] | Responder | None = None, *, port: int = 0, embedding_dim: int = 8):
    """Start the server on 127.0.0.1 (a free port by default); return ``(base_url, stop)``.

    ``base_url`` ends in ``/v1`` and is what litellm takes as ``api_base``.
    """
    if not isinstance(script, Script):
        script = Script(script)
    server = _Server(port, script, embedding_dim)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()

    def stop() -> None:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        for conn in list(server.connections):
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        thread.join(timeout=5)

    return f"http://127.0.0.1:{server.server_address[1]}/v1", stop


def serve_fixture():
    """Body of the ``serve`` pytest fixture: ``serve(replies) -> (url, script)``, all stopped afterwards."""
    stops = []

    def start(replies: Script | list[Reply] | Responder | None = None):
        script = replies if isinstance(replies, Script) else Script(replies)
        url, stop = start_server(script)
        stops.append(stop)
        return url, script

    yield start
    for stop in stops:
        stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="OpenAI-compatible test server with the default script")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--fault", choices=FAULT_MODES, help="answer every chat request with this fault")
    parser.add_argument(
        "--cite", action="store_true", help="answers cite the context (tests/support/citing_replies.py)"
    )
    args = parser.parse_args(argv)
    replies: Any = [fault_reply(args.fault)] if args.fault else None
    if args.cite:
        try:
            from tests.support.citing_replies import citing_reply
        except ImportError:
            from tests.support.citing_replies import citing_reply  # type: ignore[no-redef]
        replies = citing_reply
    url, stop = start_server(replies, port=args.port)
    print(f"serving {url}  (model openai/gpt-4o-mini, api base {url}); Ctrl-C stops", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
