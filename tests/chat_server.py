"""A real chat-completions HTTP server on 127.0.0.1, written for the tests and benchmarks.

It speaks the part of the OpenAI protocol that pytest-tom uses
(`POST /v1/chat/completions`), answers with a function of the request, and can
be told to be slow or to fail: a fixed latency, a seeded share of failures
(HTTP 500 or 429 with Retry-After), or scripted failures and empty completions
for prompts that contain given text. It counts every request, per prompt too.

For the runner's tests it can also throttle (`max_in_flight`: a 429 when more
requests than that are in flight at once; `peak_in_flight` records the most
seen) and stall (`stall_after`: requests after the first N hang uncounted until
`unstall()`, which drops them unanswered, and drops uncounted every later request on a
connection accepted before it: a run killed meanwhile has exactly N answers, even when a
request it sent before its end is read by the server only after `unstall()`). `trickle` sends each answer's body one byte at a time with that many
seconds between bytes (a server that is slow but never silent for long).
`slots` makes it a server of fixed capacity (a llama.cpp server with `-np S`, a
vLLM replica at its batch limit): at most that many requests are worked on at
once, the others wait for a slot. `answered` counts the answers sent (HTTP 200)
per prompt: with several servers, a prompt answered twice shows there.
`backlog` sets the listen backlog (default 256; 5 is cpp-httplib's and http.server's
default, which a client opening many connections at once overflows), `connections`
counts the connections accepted and `ahead` the most of them accepted at any moment beyond
the answers sent until then (a client that opens a new connection only after an answer
came keeps it at the number it starts with). `GET /v1/models` is answered with one model
(`model_lists` counts them, apart from `requests`; each is an answer for `ahead`);
`models=False` makes a server without one (a 501, after which it closes the connection, as
`http.server` does for a method it does not serve); `gets` counts the GETs either way.
`keep_alive` closes a connection left idle that many seconds (uvicorn's and llama.cpp's
keep-alive: 5 s), without telling the client. Its sockets are TCP_NODELAY: an answer takes
the latency asked, not 40 ms more (Nagle's algorithm against the client's delayed ACK).

    with ChatServer(responder=lambda body: "a)") as server:
        server.base_url  # http://127.0.0.1:PORT/v1

Run alone: `python tests/chat_server.py --port 8099 --latency 0.1` (prints its URL).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# the answer's text, or the parts of a reasoning model's reply: a dict of the message's
# fields (content, which may be None, reasoning_content, reasoning ...) with, beside them,
# "finish_reason" (default "stop") and "usage" (counts added to the usage sent, e.g.
# {"completion_tokens_details": {"reasoning_tokens": 30}})
Responder = Callable[[dict[str, Any]], "str | dict[str, Any]"]


def last_user_text(body: dict[str, Any]) -> str:
    for m in reversed(body.get("messages", [])):
        if m.get("role") == "user":
            return str(m.get("content", ""))
    return ""


def prompt_key(body: dict[str, Any]) -> str:
    """A stable key of the conversation sent (to count repeats of one request)."""
    raw = json.dumps(body.get("messages", []), sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # many clients connect at once (the default of 5 refuses some)


class ChatServer:
    def __init__(self, responder: Responder | None = None, *, latency: float = 0.0,
                 failure_rate: float = 0.0, failure_statuses: tuple[int, ...] = (500, 429),
                 fail_when: dict[str, int] | None = None, empty_when: tuple[str, ...] = (),
                 retry_after: float = 0.05, seed: int = 0, host: str = "127.0.0.1",
                 port: int = 0, max_in_flight: int | None = None,
                 stall_after: int | None = None, trickle: float | None = None,
                 slots: int | None = None, backlog: int | None = None, models: bool = True,
                 keep_alive: float | None = None):
        self.responder = responder or (lambda body: "a)")
        self.latency = latency
        self.failure_rate = failure_rate
        self.failure_statuses = failure_statuses
        self.fail_when = dict(fail_when or {})  # prompt substring -> HTTP status, always
        self.empty_when = tuple(empty_when)  # prompt substrings answered with ""
        self.retry_after = retry_after
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.requests = 0
        self.failures = 0
        self.per_prompt: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()  # answers sent (HTTP 200), per prompt
        self.slots = slots
        self._slots = threading.BoundedSemaphore(slots) if slots else None
        self.bodies: list[dict[str, Any]] = []
        self.auth_headers: list[str] = []
        self.max_in_flight = max_in_flight
        self.in_flight = 0
        self.peak_in_flight = 0
        self.throttled = 0  # 429s sent because of max_in_flight
        self.stall_after = stall_after
        self.trickle = trickle  # seconds between the bytes of an answer's body (a slow server)
        self.stalled = 0  # requests held (and never counted) by stall_after
        self._unstalled = threading.Event()
        self._admitted = 0
        self._epoch = 0  # `unstall()`s so far: a connection accepted before one is dropped
        self.first_arrival: float | None = None  # time.perf_counter() of the first request
        self.last_reply: float | None = None  # ... and of the last answer sent
        self.connections = 0  # connections accepted
        self.model_lists = 0  # GET /v1/models answered (not in `requests`)
        self.models = models  # False: a server without a model list (a 501, then it closes)
        self.keep_alive = keep_alive  # seconds an idle connection is kept (None: for ever)
        self.gets = 0  # GET requests seen, whatever their answer
        self.ahead = 0  # the most connections accepted beyond the answers sent at that moment
        self._answers_sent = 0
        server_class = _Server if backlog is None else type(
            "_BacklogServer", (_Server,), {"request_queue_size": backlog})
        self._httpd = server_class((host, port), self._handler())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ChatServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def unstall(self) -> None:
        """Drop every stalled request unanswered (and stall no more), and every later one on a
        connection accepted before now (a killed client's, read late from the server's buffers)."""
        with self._lock:  # both at once: a connection accepted after it is never held
            self._epoch += 1
            self._unstalled.set()

    def _stall(self, epoch: int) -> bool:
        """True when this request must be held and dropped (beyond `stall_after`), or dropped
        at once (its connection was accepted before an `unstall()`)."""
        with self._lock:
            if epoch != self._epoch:
                return True
            if self.stall_after is None or self._unstalled.is_set() or self._admitted < self.stall_after:
                self._admitted += 1
                return False
            self.stalled += 1
        self._unstalled.wait()
        return True

    # -- decisions, under the lock ---------------------------------------------------
    def _decide(self, body: dict[str, Any], crowded: bool = False
                ) -> tuple[int, str | dict[str, Any] | None]:
        text = last_user_text(body)
        with self._lock:
            self.requests += 1
            self.per_prompt[prompt_key(body)] += 1
            self.bodies.append(body)
            if crowded:
                self.failures += 1
                self.throttled += 1
                return 429, None
            for needle, status in self.fail_when.items():
                if needle in text:
                    self.failures += 1
                    return status, None
            if self.failure_rate and self._rng.random() < self.failure_rate:
                self.failures += 1
                return self._rng.choice(self.failure_statuses), None
        if any(needle in text for needle in self.empty_when):
            return 200, ""
        return 200, self.responder(body)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # an answer is two writes (the headers, then the body): with Nagle's algorithm on,
            # the body waits for the client's ACK of the headers, which the client delays (40 ms
            # on Linux): every answer took L + ~40 ms, and a run at 100 ms could not get within
            # 1.4x of N·L/C whoever the client was (issue 47). TCP_NODELAY, as servers set it
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def setup(self) -> None:
                self.epoch = server._epoch  # its requests dropped after the next unstall()
                self.timeout = server.keep_alive  # idle longer: closed (as servers do)
                with server._lock:
                    server.connections += 1
                    server.ahead = max(server.ahead, server.connections - server._answers_sent)
                super().setup()

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                if server.trickle is None:
                    self.wfile.write(data)
                    return
                try:  # one byte at a time: a read never waits long, the whole body does
                    for i in range(len(data)):
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        time.sleep(server.trickle)
                except OSError:  # the client gave up
                    self.close_connection = True

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                # the model list (`GET /v1/models`), which a client may ask to open its
                # connections (pytest-tom does: backends/openai_api/open_connections.py);
                # counted apart from the chat requests, and as an answer for `ahead`
                with server._lock:
                    server.gets += 1
                if not server.models:  # as http.server answers a method it does not serve
                    self.send_error(501, f"Unsupported method ({self.command!r})")
                    return
                if self.path.partition("?")[0].rstrip("/") != "/v1/models":
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                with server._lock:
                    server.model_lists += 1
                    server._answers_sent += 1
                self._send(200, {"object": "list", "data": [
                    {"id": "test-model", "object": "model", "owned_by": "tests"}]})

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._send(400, {"error": {"message": "invalid JSON", "type": "invalid_request_error"}})
                    return
                with server._lock:
                    server.auth_headers.append(self.headers.get("Authorization", ""))
                # the one route it serves; the 404 names the whole path, query string included
                if self.path.partition("?")[0].rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                with server._lock:
                    if server.first_arrival is None:
                        server.first_arrival = time.perf_counter()
                if server._stall(self.epoch):
                    self.close_connection = True  # dropped: no answer, not counted
                    return
                with server._lock:
                    server.in_flight += 1
                    server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
                    crowded = server.max_in_flight is not None and server.in_flight > server.max_in_flight
                try:
                    with server._slots or contextlib.nullcontext():
                        if server.latency:
                            time.sleep(server.latency)
                        status, text = server._decide(body, crowded)
                finally:
                    with server._lock:
                        server.in_flight -= 1
                if status != 200:
                    headers = {"Retry-After": str(server.retry_after)} if status == 429 else {}
                    self._send(status, {"error": {"message": f"test server says {status}",
                                                  "type": "server_error"}}, headers)
                    return
                prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
                parts = dict(text) if isinstance(text, dict) else {"content": text}
                finish = parts.pop("finish_reason", "stop")
                more_usage = parts.pop("usage", {})
                completion_tokens = sum(len(v.split()) for v in parts.values() if isinstance(v, str))
                with server._lock:  # before it is sent: a client that has it sees it counted
                    server.answered[prompt_key(body)] += 1
                    server._answers_sent += 1
                self._send(200, {
                    "id": f"chatcmpl-{server.requests}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "test-model"),
                    "choices": [{"index": 0, "finish_reason": finish,
                                 "message": {"role": "assistant", **parts}}],
                    "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                              "total_tokens": prompt_tokens + completion_tokens, **more_usage},
                })
                with server._lock:
                    server.last_reply = time.perf_counter()

        return Handler


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--failure-rate", type=float, default=0.0)
    ap.add_argument("--slots", type=int, default=None, help="requests worked on at once at most")
    ap.add_argument("--answer", default="a)", help="the text every request is answered with")
    ap.add_argument("--backlog", type=int, default=None, help="listen backlog (default 256)")
    args = ap.parse_args()
    server = ChatServer(lambda body: args.answer, latency=args.latency,
                        failure_rate=args.failure_rate, port=args.port, slots=args.slots,
                        backlog=args.backlog).start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
