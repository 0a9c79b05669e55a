"""The openai backend's two transports (aiohttp by default when installed, httpx otherwise)
behave the same against a real loopback server: answers, usage, status codes, Retry-After,
timeouts, refused connections, and secrets kept out of error messages."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from chat_server import ChatServer

from pytest_tom.asking.runner import Runner
from pytest_tom.backends import BackendSpecError, create_backend
from pytest_tom.backends.base import BackendError, ModelReply, ModelRequest, SamplingParams
from pytest_tom.backends.openai_api.client_post import ClientPost
from pytest_tom.backends.openai_api.openai_backend import aiohttp_available
from pytest_tom.backends.options import BackendOptions

needs_aiohttp = pytest.mark.skipif(not aiohttp_available(),
                                   reason="aiohttp is not installed (pip install 'openai[aiohttp]')")
TRANSPORTS = [pytest.param("aiohttp", marks=needs_aiohttp), "httpx"]


def request(prompt: str) -> ModelRequest:
    return ModelRequest(messages=[{"role": "user", "content": prompt}],
                        params=SamplingParams(temperature=0.0, max_tokens=20, seed=3))


def ask(transport: str, url: str, prompt: str, timeout: float = 10.0) -> ModelReply | BackendError:
    """One call through the backend on a fresh event loop: the reply or the BackendError."""
    backend = create_backend("openai:test-model", BackendOptions(base_url=url, timeout=timeout,
                                                                 transport=transport))
    assert backend.transport == transport

    async def go() -> ModelReply | BackendError:
        try:
            return await backend.acomplete(request(prompt))
        except BackendError as exc:
            return exc
        finally:
            await backend.aclose()

    return asyncio.run(go())


@needs_aiohttp
def test_aiohttp_is_the_default_when_installed() -> None:
    backend = create_backend("openai:m", BackendOptions(base_url="http://127.0.0.1:9/v1"))
    assert backend.transport == "aiohttp"
    backend = create_backend("openai:m", BackendOptions(base_url="http://127.0.0.1:9/v1",
                                                        transport="httpx"))
    assert backend.transport == "httpx"


def test_without_aiohttp_auto_falls_back_to_httpx_and_aiohttp_is_a_usage_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "aiohttp", None)  # import aiohttp now raises ImportError
    monkeypatch.setitem(sys.modules, "httpx_aiohttp", None)
    assert not aiohttp_available()
    backend = create_backend("openai:m", BackendOptions(base_url="http://127.0.0.1:9/v1"))
    assert backend.transport == "httpx"
    with pytest.raises(BackendSpecError, match=r"--tom-transport=aiohttp.*openai\[aiohttp\]"):
        create_backend("openai:m", BackendOptions(base_url="http://127.0.0.1:9/v1",
                                                  transport="aiohttp"))


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_answer_usage_model_and_request_body(transport: str) -> None:
    with ChatServer(lambda body: "b) the basket") as server:
        reply = ask(transport, server.base_url, "Where is the ball?")
        assert isinstance(reply, ModelReply)
        assert reply.text == "b) the basket"
        assert reply.model == "test-model"
        assert reply.usage == {"prompt_tokens": 4, "completion_tokens": 3, "total_tokens": 7}
        body = server.bodies[0]
        assert body["messages"] == [{"role": "user", "content": "Where is the ball?"}]
        assert (body["model"], body["temperature"], body["max_tokens"], body["seed"]) == (
            "test-model", 0.0, 20, 3)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("status", "retryable"), [(500, True), (503, True), (429, True),
                                                   (408, True), (400, False), (404, False)])
def test_status_codes_map_to_the_same_errors(transport: str, status: int, retryable: bool) -> None:
    with ChatServer(fail_when={"FAIL": status}, retry_after=0.25) as server:
        err = ask(transport, server.base_url, "FAIL now")
        assert isinstance(err, BackendError)
        assert err.status == status and err.retryable is retryable
        assert str(err).startswith(f"HTTP {status}: ")
        assert "test server says" in str(err)
        assert err.retry_after == (0.25 if status == 429 else None)
        assert server.requests == 1  # the client's own retries are off


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_empty_completion_is_final(transport: str) -> None:
    with ChatServer(empty_when=("EMPTY",)) as server:
        err = ask(transport, server.base_url, "EMPTY please")
        assert isinstance(err, BackendError) and not err.retryable
        assert "empty completion" in str(err)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_slow_answer_times_out_and_may_be_retried(transport: str) -> None:
    with ChatServer(latency=2.0) as server:
        err = ask(transport, server.base_url, "slow", timeout=0.3)
        assert isinstance(err, BackendError)
        assert str(err).startswith("timed out after 0.3s") and err.retryable and err.timed_out


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_refused_connection_is_a_retryable_connection_failure(transport: str) -> None:
    with socket.socket() as sock:  # a port nobody listens on once this socket is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    err = ask(transport, f"http://127.0.0.1:{port}/v1", "anyone?")
    assert isinstance(err, BackendError)
    assert str(err).startswith("connection failed") and err.retryable


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_secrets_in_the_url_never_reach_error_messages(transport: str) -> None:
    with ChatServer() as server:  # answers 404 naming the path it got, query string included
        # a path the server does not serve: a 404 whichever way the client joins a base URL's
        # query string and the request path (openai 1.x appends the path after the query)
        err = ask(transport, server.base_url + "/missing?api-key=SECRET-in-query", "hi")
        assert isinstance(err, BackendError) and err.status == 404
        assert "SECRET" not in str(err) and "***" in str(err)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_runner_retries_until_answered_on_both_transports(transport: str) -> None:
    with ChatServer(lambda body: "Yes.", failure_rate=0.3, retry_after=0.01, seed=5) as server:
        backend = create_backend("openai:test-model", BackendOptions(
            base_url=server.base_url, timeout=10, transport=transport))
        runner = Runner(backend, concurrency=8, retries=20, backoff=0.01)
        calls: list[Any] = []
        for i in range(40):
            req = request(f"question {i}")
            calls.append(runner.submit(f"k{i}", lambda rs, req=req: None if rs else req))
        comps = [f.result(60) for f in calls]
        runner.close()
        assert all(c.error is None and c.final == "Yes." for c in comps)
        assert server.failures > 0
        assert server.requests - server.failures == 40
        assert sum(c.retries for c in comps) == server.failures


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_fresh_server_with_backlog_5_at_concurrency_64(transport: str) -> None:
    """A freshly started server whose listen backlog is 5 (cpp-httplib's, http.server's), 64
    requests at once, on each request path: the runner does not ramp (all 64 slots from the
    start), each new connection is opened by a probe the server answers (its model list), a
    few at a time (the server never accepted more than OPEN_AT_ONCE connections beyond the
    answers it had sent), reused (at most one per slot), and no attempt waits for the request
    timeout (10 s here: a stall would show as a retry that is not a connect's that timed out,
    or as an error). A crowded server may reset a connection (ECONNRESET, seen under load):
    that attempt is tried again at once, not counted here."""
    from pytest_tom.backends.openai_api.connection_gate import OPEN_AT_ONCE

    with ChatServer(lambda body: "Yes.", latency=0.02, backlog=5) as server:
        backend = create_backend("openai:test-model", BackendOptions(
            base_url=server.base_url, timeout=10, transport=transport))
        runner = Runner(backend, concurrency=64, retries=5, backoff=0.01)
        assert (runner.limiter.limit, runner.limiter.ramping) == (64, False)
        asked = [request(f"question {i}") for i in range(320)]
        calls = [runner.submit(f"k{i}", lambda rs, req=req: None if rs else req)
                 for i, req in enumerate(asked)]
        comps = [f.result(120) for f in calls]
        runner.close()
        stats = runner.stats
        assert [c.error for c in comps if c.error] == []
        assert stats.timed_out == 0  # no attempt waited for the request timeout
        assert server.requests == 320  # a connection that was not made carried no request
        assert server.connections <= 64 + stats.connect_retries  # kept alive and reused
        # each connection opened by a probe (one lost to a reset is opened by another)
        assert 0 < server.connections <= server.model_lists + stats.connect_retries
        assert server.ahead <= OPEN_AT_ONCE + stats.connect_retries  # a few at a time
        assert runner.limiter.limit == 64


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_server_without_a_model_list_costs_a_probe_per_connection_not_per_request(
        transport: str) -> None:
    """A server that does not serve GET /models (a 501, then it closes the connection): each
    probe still lets one request go on a connection of its own, and that connection, answered
    and kept open, counts as shown taken, so that only the first requests cost a probe (one
    per request made a run at latency 0 about twice as slow: 300 GETs here)."""
    with ChatServer(lambda body: "Yes.", models=False) as server:
        backend = create_backend("openai:test-model", BackendOptions(
            base_url=server.base_url, timeout=10, transport=transport))
        runner = Runner(backend, concurrency=16, retries=2, backoff=0.01)
        calls = [runner.submit(f"k{i}", lambda rs, i=i: None if rs else request(f"q {i}"))
                 for i in range(300)]
        comps = [f.result(60) for f in calls]
        runner.close()
    assert [c.error for c in comps if c.error] == []
    assert server.requests == 300 and server.model_lists == 0
    # a probe per connection made, and those in flight when a request's own connection came
    # back first (at latency 0 demand comes and goes within a probe's time: 34-52 GETs were
    # seen on the worker path, 16 on the client's); not one per request (300 before)
    assert 0 < server.gets <= 5 * 16 + runner.stats.connect_retries, (server.gets, server.connections)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_connections_the_server_closed_while_idle_are_opened_again_by_probes(
        transport: str) -> None:
    """A server closes idle connections (after 0.3 s here; uvicorn's and llama.cpp's
    keep-alive is 5 s) without telling the client: after a pause longer than the gate trusts
    an idle connection (IDLE_TRUSTED), the next requests' connections are opened by probes
    again, a few at a time, not by the HTTP library all at once."""
    import time

    from pytest_tom.backends.openai_api.connection_gate import IDLE_TRUSTED

    with ChatServer(lambda body: "Yes.", latency=0.02, keep_alive=0.3) as server:
        backend = create_backend("openai:test-model", BackendOptions(
            base_url=server.base_url, timeout=10, transport=transport))
        runner = Runner(backend, concurrency=8, retries=3, backoff=0.01)

        def batch(name: str) -> None:
            calls = [runner.submit(f"{name}{i}", lambda rs, i=i: None if rs else request(f"q {i}"))
                     for i in range(8)]
            assert [c for c in (f.result(60) for f in calls) if c.error] == []

        try:
            batch("a")
            first = server.connections
            time.sleep(IDLE_TRUSTED + 0.2)  # every connection closed by the server, unused
            batch("b")
        finally:
            runner.close()
    assert 0 < first <= server.model_lists
    assert server.connections > first  # the server did close them
    assert server.connections <= server.model_lists + runner.stats.connect_retries


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_client_is_made_with_the_garbage_collector_paused(transport: str) -> None:
    """`import openai` and the client's transport build tens of thousands of long-lived
    objects: the collector does not run while they are built (on the client path that is the
    first request's wait), and is on again afterwards, or stays off if it was off."""
    import gc

    collections: list[str] = []
    making = [False]

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and making[0]:
            collections.append(f"gen{info['generation']}")

    gc.callbacks.append(seen)
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            post = ClientPost("http://127.0.0.1:9/v1", "not-needed", 10.0, 5.0, transport)
            making[0] = True
            assert post.client is not None
            making[0] = False
            assert gc.isenabled() is enabled
    finally:
        gc.callbacks.remove(seen)
        gc.enable()
    # at most the one the first allocation after the pause makes (over a hundred without it)
    assert len(collections) <= 1, collections


def never_accepting_listener() -> tuple[socket.socket, list[socket.socket]]:
    """A listening socket that never accepts, its accept queue already full (a connection
    waits in it): the kernel drops every further SYN, as a server's whose listen queue
    overflowed. Returns the listener and the connections that fill its queue."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    fillers: list[socket.socket] = []
    for _ in range(8):
        filler = socket.socket()
        filler.settimeout(0.3)
        fillers.append(filler)
        try:
            filler.connect(listener.getsockname())
        except OSError:  # not answered: the queue is full
            break
    return listener, fillers


@pytest.mark.skipif(sys.platform != "linux", reason="a full accept queue drops SYNs on Linux")
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_connection_not_made_in_time_is_retried_on_a_fresh_one(transport: str) -> None:
    """--tom-connect-timeout, not --tom-timeout, bounds the making of a connection: both
    attempts end after 0.3 s (the request timeout is 30 s), each is a connect retried and
    counted, and the requests line says so."""
    from pytest_tom.report.progress import status_line

    listener, fillers = never_accepting_listener()
    try:
        port = listener.getsockname()[1]
        backend = create_backend("openai:test-model", BackendOptions(
            base_url=f"http://127.0.0.1:{port}/v1", timeout=30, connect_timeout=0.3,
            transport=transport))
        runner = Runner(backend, concurrency=4, retries=1, backoff=0.01)
        comp = runner.submit("k", lambda rs: None if rs else request("anyone?")).result(25)
        runner.close()
    finally:
        for sock in [listener, *fillers]:
            sock.close()
    assert comp.error is not None
    assert comp.error.message.startswith("connection failed: not connected within 0.3s "
                                 "(--tom-connect-timeout)")
    assert "gave up after 2 attempts" in comp.error.message and "timed out after 30s" not in comp.error.message
    assert (runner.stats.retries, runner.stats.connect_retries) == (1, 1)
    assert "1 connect retried (--tom-connect-timeout)" in status_line(runner.stats, final=True)


def test_what_counts_as_a_connection_not_made_in_time() -> None:
    """ETIMEDOUT (the socket's TCP_USER_TIMEOUT: a request the server's machine never
    acknowledged) and a connect timeout are; a refusal is not, even when the openai client's
    aiohttp transport reports it as a connect timeout."""
    import errno

    from pytest_tom.backends.openai_api.connect import is_connect_stall

    class ConnectTimeout(Exception):  # the name httpx and httpcore give theirs
        pass

    def wrapped(inner: BaseException) -> BaseException:
        outer = ConnectTimeout("connect")
        outer.__cause__ = inner
        return outer

    assert is_connect_stall(OSError(errno.ETIMEDOUT, "Connection timed out"))
    assert is_connect_stall(ConnectTimeout("timed out"))
    assert not is_connect_stall(wrapped(ConnectionRefusedError(errno.ECONNREFUSED, "refused")))
    assert not is_connect_stall(ConnectionResetError(errno.ECONNRESET, "reset"))
    assert not is_connect_stall(asyncio.TimeoutError())  # the request timeout: not a connect


CONFTEST_NOTES_OPENAI = """
import sys

def pytest_unconfigure(config):
    (config.rootpath / "openai-imported.txt").write_text(str("openai" in sys.modules))
"""


def test_a_fully_cached_rerun_never_imports_openai(pytester: pytest.Pytester) -> None:
    from runner_support import expected_right, numbers_suite, respond

    pytester.makefile(".tom.yaml", numbers=numbers_suite(8))
    pytester.makeconftest(CONFTEST_NOTES_OPENAI)
    with ChatServer(respond) as server:
        args = ("--tom-model=openai:test-model", f"--tom-base-url={server.base_url}",
                "-p", "no:cacheprovider", "-p", "no:randomly")
        first = pytester.runpytest_subprocess(*args)
        first.assert_outcomes(passed=expected_right(8), failed=8 - expected_right(8))
        # neither request path imports the client in pytest's process: the client path
        # makes it in its request process
        assert (pytester.path / "openai-imported.txt").read_text() == "False"
        second = pytester.runpytest_subprocess(*args)
        second.assert_outcomes(passed=expected_right(8), failed=8 - expected_right(8))
        assert (pytester.path / "openai-imported.txt").read_text() == "False"
        assert server.requests == 8  # the rerun asked nothing


class _Recorder(BaseHTTPRequestHandler):
    """Answers every POST with a fixed chat completion and records its path and headers."""

    seen: list[tuple[str, dict[str, str]]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("content-length") or 0))
        type(self).seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
        body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "a)"}}],
                           "model": "m"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("suffix", ["/v1", "/v1/", "/v1?api-version=1"])
def test_requests_go_where_the_client_sends_them_with_its_headers(
        transport: str, suffix: str) -> None:
    """The backend joins the endpoint's URL once and passes its own idempotency keys (CPU
    per request): the path is the one the client itself builds from its base URL, and
    every request carries the same headers as the client's own request."""
    _Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}{suffix}"
        backend = create_backend("openai:m", BackendOptions(base_url=url, transport=transport))

        async def go() -> None:
            try:
                for i in range(3):
                    assert (await backend.acomplete(request(f"q{i}"))).text == "a)"
                # the client's own join of the same base URL, for comparison
                client = ClientPost(url, backend._api_key, 10.0, 5.0, transport).client
                await client.post("/chat/completions", body={"model": "m"}, cast_to=object)
                await client.close()
            finally:
                await backend.aclose()

        asyncio.run(go())
    finally:
        server.shutdown()
        server.server_close()
    paths = [path for path, _ in _Recorder.seen]
    assert len(paths) == 4 and len(set(paths)) == 1, paths
    ours = [headers for _, headers in _Recorder.seen[:3]]
    client_own = _Recorder.seen[3][1]
    for headers in ours:
        assert set(headers) - {"content-length"} == set(client_own) - {"content-length"}
        assert headers["authorization"] == "Bearer not-needed"
        assert headers["x-stainless-retry-count"] == "0"
        assert "openai" in headers["user-agent"].lower()  # the client's own headers, as sent
    keys = [h.get("idempotency-key") for h in ours]  # sent only by clients that send one
    assert keys == [None] * 3 if "idempotency-key" not in client_own else len(set(keys)) == 3


# -- the request path (--tom-openai-transport): a worker's direct POST or the openai client --
def test_the_request_path_is_picked_once_and_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_tom.backends.openai_api.openai_backend import PATH_ENV, pick_path

    monkeypatch.delenv(PATH_ENV, raising=False)
    plain, query = "http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1?api-version=1&key=SECRET-Q"
    assert pick_path("auto", "aiohttp", plain) == "worker"  # the direct POST, in a child process
    assert pick_path("auto", "httpx", plain) == "sdk"  # no aiohttp, or a URL with user:password
    assert pick_path("auto", "aiohttp", query) == "sdk"  # the client joins a query its own way
    assert pick_path("sdk", "aiohttp", plain) == "sdk"
    for transport, url in (("httpx", plain), ("aiohttp", query)):
        with pytest.raises(BackendSpecError, match="--tom-openai-transport=worker needs") as err:
            pick_path("worker", transport, url)
        assert "SECRET" not in str(err.value)
    with pytest.raises(BackendSpecError, match="--tom-openai-transport='grpc'"):
        pick_path("grpc", "aiohttp", plain)
    # the in-process path is gone: asking for it says what to ask instead
    with pytest.raises(BackendSpecError, match="'direct' is no longer a request path: use worker"):
        pick_path("direct", "aiohttp", plain)
    monkeypatch.setattr(sys, "executable", "")  # an embedded Python: no interpreter to start
    assert pick_path("auto", "aiohttp", plain) == "sdk"
    with pytest.raises(BackendSpecError, match="an interpreter to start"):
        pick_path("worker", "aiohttp", plain)
    monkeypatch.undo()
    monkeypatch.setenv(PATH_ENV, "sdk")  # the environment sets what auto means ...
    assert pick_path("auto", "aiohttp", plain) == "sdk"
    assert pick_path("worker", "aiohttp", plain) == "worker"  # ... the option still wins
    monkeypatch.setenv(PATH_ENV, "worker")  # where it can be had
    assert (pick_path("auto", "aiohttp", plain), pick_path("auto", "httpx", plain)) == (
        "worker", "sdk")
    monkeypatch.setenv(PATH_ENV, "direct")
    with pytest.raises(BackendSpecError, match=f"\\${PATH_ENV}='direct' is no longer"):
        pick_path("auto", "aiohttp", plain)
    monkeypatch.setenv(PATH_ENV, "fast")
    with pytest.raises(BackendSpecError, match=f"\\${PATH_ENV}='fast'"):
        pick_path("auto", "aiohttp", plain)


@needs_aiohttp
@pytest.mark.parametrize("path", ["worker", "sdk"])
def test_the_header_and_the_report_say_how_requests_went(pytester: pytest.Pytester,
                                                         path: str) -> None:
    from conftest import load_report
    from runner_support import numbers_suite, respond

    pytester.makefile(".tom.yaml", numbers=numbers_suite(4))
    with ChatServer(respond) as server:
        result = pytester.runpytest("--tom-model=openai:m", f"--tom-base-url={server.base_url}",
                                    f"--tom-openai-transport={path}", "--tom-report=r.json",
                                    "-p", "no:cacheprovider")
        assert server.requests == 4
    said = {"worker": "direct POST over aiohttp in a worker process",
            "sdk": "openai client over aiohttp in a worker process"}[path]
    result.stdout.fnmatch_lines([f"tom: model openai:m @ {server.base_url} ({said}) ·*"])
    assert load_report(pytester.path / "r.json")["settings"]["request_path"] == said


class _Proxy(_Recorder):
    """A forward proxy that answers itself: records the absolute URL each request named."""


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_requests_go_through_the_proxy_the_environment_names(
        transport: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _Proxy.seen = []
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), _Proxy)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        for name in ("HTTP_PROXY", "http_proxy"):
            monkeypatch.setenv(name, f"http://ann:PROXY-PW@127.0.0.1:{proxy.server_address[1]}")
        for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.delenv(name, raising=False)
        reply = ask(transport, "http://model.invalid/v1", "hi")  # reachable only by the proxy
        assert isinstance(reply, ModelReply) and reply.text == "a)"
        monkeypatch.setenv("NO_PROXY", "model.invalid")
        assert isinstance(ask(transport, "http://model.invalid/v1", "hi"), BackendError)
    finally:
        proxy.shutdown()
        proxy.server_close()
    path, headers = _Proxy.seen[0]
    assert path == "http://model.invalid/v1/chat/completions" and len(_Proxy.seen) == 1
    assert headers["proxy-authorization"].startswith("Basic ")  # the proxy's own credentials


class _Odd(BaseHTTPRequestHandler):
    """Answers every POST with status 200 and the body and content type set on the class."""

    body = b""
    content_type = "application/json"

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", type(self).content_type)
        self.send_header("content-length", str(len(type(self).body)))
        self.end_headers()
        self.wfile.write(type(self).body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("body", "content_type", "said"), [
    (b"<html>the proxy is busy</html>", "text/html", "not a chat completion"),
    (b'{"object": "chat.completion"}', "application/json", "returned no choices"),
    (b'{"choices": []}', "application/json", "returned no choices"),
], ids=["not-json", "no-choices", "empty-choices"])
def test_an_answer_that_is_not_a_chat_completion_is_a_final_error(
        transport: str, body: bytes, content_type: str, said: str) -> None:
    _Odd.body, _Odd.content_type = body, content_type
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Odd)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        err = ask(transport, f"http://127.0.0.1:{server.server_address[1]}/v1", "hi")
    finally:
        server.shutdown()
        server.server_close()
    assert isinstance(err, BackendError) and said in str(err) and not err.retryable


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_without_an_interpreter_to_start_the_client_path_asks_from_this_process(
        monkeypatch: pytest.MonkeyPatch, transport: str) -> None:
    """The client path makes its requests in a request process (post_worker.py) wherever
    one can be started; in an embedded Python (no `sys.executable`) in this process, with
    the same answers and errors, and the header says where; made at the first request, not
    at the warm-up (a fully cached rerun never imports openai)."""
    from pytest_tom.backends.openai_api.client_post import ClientReplies

    monkeypatch.setattr(sys, "executable", "")
    with ChatServer(fail_when={"FAIL": 404}) as server:
        backend = create_backend("openai:test-model", BackendOptions(
            base_url=server.base_url, transport=transport, openai_transport="sdk"))
        assert backend.request_path() == f"openai client over {transport}"

        async def go() -> tuple[ModelReply, BackendError]:
            try:
                await backend.warm()  # no request process to start: the client waits
                poster = backend.poster
                assert isinstance(poster, ClientReplies) and poster.post._client is None
                reply = await backend.acomplete(request("hello"))
                try:
                    await backend.acomplete(request("FAIL now"))
                except BackendError as exc:
                    return reply, exc
                raise AssertionError("the error status was not raised")
            finally:
                await backend.aclose()

        reply, error = asyncio.run(go())
        assert server.requests == 2
    assert isinstance(backend.poster, ClientReplies)  # the client was made here, then closed
    assert reply.text == "a)"
    assert error.status == 404 and str(error).startswith("HTTP 404: ")
