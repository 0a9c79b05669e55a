"""The worker request path (`--tom-openai-transport=worker`, backends/openai_api/post_worker.py): its
frames, and its child process against the real loopback chat server: answers as the
openai client gives them, a child that dies mid-flight, cancelled attempts, and
the child's end at close. The behaviour a run sees (retries, timeouts, redaction, failover,
the cache) is tested on every path by the request-path tests, which CI runs on each."""

from __future__ import annotations

import asyncio
import math
import os
import signal
import time
from typing import Any

import pytest
from chat_server import ChatServer
from runner_support import respond

from pytest_tom.backends.base import BackendError, ModelReply, ModelRequest, SamplingParams
from pytest_tom.backends.openai_api.openai_backend import OpenAIBackend
from pytest_tom.backends.openai_api.post_worker import Frames, frame, plain

pytest.importorskip("aiohttp")


def _backend(url: str, path: str, timeout: float = 10.0) -> OpenAIBackend:
    return OpenAIBackend("bench", url, "not-needed", timeout=timeout, path=path)


def _request(i: int) -> ModelRequest:
    return ModelRequest([{"role": "user", "content": f"Is the number {i} even?"}],
                        SamplingParams(temperature=0.0, seed=0))


async def _ask_all(backend: OpenAIBackend, n: int) -> list[ModelReply | BackendError]:
    async def one(i: int) -> ModelReply | BackendError:
        try:
            return await backend.acomplete(_request(i))
        except BackendError as exc:
            return exc

    try:
        return list(await asyncio.gather(*(one(i) for i in range(n))))
    finally:
        await backend.aclose()


def test_frames_come_out_whole_however_the_stream_is_cut() -> None:
    values = [[(1, {"a": "b" * 300, "n": [1, 2.5, None, True]})], [(2, None)], [(3, "é" * 70000)]]
    stream = b"".join(frame(v) for v in values)
    for step in (1, 7, 4096, len(stream)):
        frames, got = Frames(), []
        for at in range(0, len(stream), step):
            got += frames.feed(stream[at:at + step])
        assert got == [m for v in values for m in v]


def test_a_reply_and_an_error_cross_the_pipe_whole() -> None:
    """The one encode/decode pair of each (backends/base.py), through a real frame: every
    field the parent reads comes back; the endpoint is the parent's pool's to set."""
    reply = ModelReply(text="b) the van", usage={"prompt_tokens": 9, "reasoning_tokens": 4},
                       model="m-1", thought="Sally left.", finish_reason="length")
    error = BackendError("HTTP 503: busy", kind="request_failed", retryable=True, status=503,
                         retry_after=1.5, timed_out=True, connect=True)
    (got_reply, got_error), = Frames().feed(frame([(reply.to_wire(), error.to_wire())]))
    assert ModelReply.from_wire(got_reply) == reply
    back = BackendError.from_wire(got_error)
    assert type(back) is BackendError and str(back) == "HTTP 503: busy"
    assert ((back.kind, back.retryable, back.status, back.retry_after, back.timed_out,
             back.connect, back.endpoint) == ("request_failed", True, 503, 1.5, True, True, None))
    plain_reply = ModelReply(text="yes")
    assert ModelReply.from_wire(Frames().feed(frame([plain_reply.to_wire()]))[0]) == plain_reply


def test_a_body_marshal_cannot_write_is_sent_as_its_json() -> None:
    class Text(str):
        pass

    body = {"messages": [{"role": "user", "content": Text("hi")}], "stop": ("a", "b")}
    assert plain(body) == {"messages": [{"role": "user", "content": "hi"}], "stop": ["a", "b"]}
    same = {"model": "m", "messages": []}
    assert plain(same) is same  # plain data already: not copied
    with pytest.raises(ValueError):  # what the in-thread encoder raises for it
        plain({"temperature": math.nan, "x": Text("y")})


def test_the_worker_answers_as_the_openai_client_does() -> None:
    with ChatServer(respond) as server:
        by_path = {path: asyncio.run(_ask_all(_backend(server.base_url, path), 40))
                   for path in ("worker", "sdk")}
    assert all(isinstance(r, ModelReply) for r in by_path["worker"])
    assert by_path["worker"] == by_path["sdk"]


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the child processes from /proc")
@pytest.mark.parametrize("path", ["worker", "sdk"])
def test_a_child_that_dies_fails_its_requests_retryably_and_the_next_starts_another(
        path: str) -> None:
    """On either path (the sdk path's child runs the openai client); the dead child's
    process transport is closed, not left to the garbage collector's ResourceWarning."""
    import gc
    import warnings

    before = _children(os.getpid())

    async def go() -> tuple[list[Any], Any, set[int]]:
        backend = _backend(server.base_url, path)
        calls = [asyncio.ensure_future(backend.acomplete(_request(i))) for i in range(5)]
        while server.in_flight < 5:  # all five in flight at the server
            await asyncio.sleep(0.02)
        children = _children(os.getpid()) - before
        assert len(children) == 1
        os.kill(children.pop(), signal.SIGKILL)
        failed = await asyncio.gather(*calls, return_exceptions=True)
        again = await backend.acomplete(_request(6))  # a new child
        alive = _children(os.getpid()) - before
        await backend.aclose()
        return failed, again, alive

    with ChatServer(respond, latency=2.0) as server, warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ResourceWarning)
        failed, again, alive = asyncio.run(go())
        gc.collect()
    assert not [w for w in seen if "unclosed transport" in str(w.message)]
    for exc in failed:
        assert isinstance(exc, BackendError) and exc.retryable
        assert str(exc).startswith("connection failed: the request process ended")
    assert isinstance(again, ModelReply) and again.text in ("Yes.", "No.")
    assert len(alive) == 1
    assert _children(os.getpid()) - before == set()  # closed: the child ended and was reaped


def test_an_attempt_cut_by_its_timeout_is_dropped_by_the_child() -> None:
    async def go() -> tuple[Any, Any]:
        backend = _backend(server.base_url, "worker", timeout=1.0)
        try:
            slow = await backend.acomplete(_request(1))
        except BackendError as exc:
            slow = exc
        server.latency = 0.0
        fast = await backend.acomplete(_request(2))
        await backend.aclose()
        return slow, fast

    with ChatServer(respond, latency=2.5) as server:
        slow, fast = asyncio.run(go())
    assert isinstance(slow, BackendError) and slow.timed_out and slow.retryable
    assert str(slow) == "timed out after 1s (--tom-timeout)"
    assert isinstance(fast, ModelReply) and fast.text in ("Yes.", "No.")


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the child processes from /proc")
def test_a_child_warmed_and_never_asked_is_stopped_at_close() -> None:
    """A fully cached run: the runner warms the backend at its first conversation, the
    cache answers everything, and close stops the child however far it got."""
    before = _children(os.getpid())

    async def go(wait: float) -> set[int]:
        backend = _backend("http://127.0.0.1:9/v1", "worker")
        await backend.warm()  # started, greeted
        started = _children(os.getpid()) - before
        await backend.aclose()
        warming = asyncio.ensure_future(backend.warm())  # closed while it starts
        await asyncio.sleep(wait)
        await backend.aclose()
        warming.cancel()
        return started

    for wait in (0.0, 0.05):
        assert len(asyncio.run(go(wait))) == 1
        assert _children(os.getpid()) - before == set()


@pytest.mark.parametrize("early", [False, True], ids=["at the first conversation", "warm_up"])
def test_the_runner_warms_its_backend_once(early: bool) -> None:
    """Once, on the runner's loop: at the first conversation submitted, or earlier when
    asked (`Runner.warm_up`, called by the plugin during collection; twice here); a
    warm-up that fails leaves the first request to report the problem."""
    from pytest_tom.asking.runner import Runner
    from pytest_tom.backends.base import Backend

    class Counting(Backend):
        warmed = 0

        async def warm(self) -> None:
            type(self).warmed += 1
            raise RuntimeError("a warm-up that fails is the first request's to report")

        async def acomplete(self, request: ModelRequest) -> ModelReply:
            return ModelReply(text="Yes.")

    runner = Runner(Counting())
    try:
        if early:
            runner.warm_up()
            runner.warm_up()
            deadline = time.monotonic() + 5  # the warm-up runs on the runner's thread
            while not Counting.warmed and time.monotonic() < deadline:
                time.sleep(0.01)
            assert Counting.warmed == 1  # before any conversation
        futures = [runner.submit(str(i), lambda r, i=i: None if r else _request(i))
                   for i in range(3)]
        assert [f.result(timeout=10).responses for f in futures] == [["Yes."]] * 3
    finally:
        runner.close()
    assert Counting.warmed == 1


@pytest.mark.parametrize(("path", "said"), [
    ("worker", "direct POST over aiohttp in a worker process"),
    ("sdk", "openai client over * in a worker process")])
def test_a_run_loads_no_http_client_in_its_own_process_on_either_path(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, path: str, said: str) -> None:
    """On either path the requests are made in the request process: pytest's process
    imports no HTTP client and not openai (the client's `import openai` is the child's)."""
    from runner_support import expected_right, numbers_suite

    pytester.makefile(".tom.yaml", numbers=numbers_suite(8))
    pytester.makeconftest("""
import sys

def pytest_unconfigure(config):
    (config.rootpath / "loaded.txt").write_text(
        " ".join(m for m in ("aiohttp", "openai", "httpx") if m in sys.modules))
""")
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    with ChatServer(respond) as server:
        result = pytester.runpytest_subprocess(
            "-p", "pytest_tom.plugin", "--tom-model=openai:m", f"--tom-base-url={server.base_url}",
            f"--tom-openai-transport={path}", "-p", "no:cacheprovider")
        assert server.requests == 8
    result.assert_outcomes(passed=expected_right(8), failed=8 - expected_right(8))
    result.stdout.fnmatch_lines([f"tom: model openai:m @ * ({said}) ·*"])
    assert (pytester.path / "loaded.txt").read_text() == ""


def test_the_request_process_imports_what_it_posts_with_and_no_more() -> None:
    """The first request of a run waits for the child's start (its imports): it loads the
    package as the child does and no entry-point machinery (importlib.metadata, about an
    eighth of the start, imported by the registry only at a lookup)."""
    import subprocess
    import sys
    from pathlib import Path

    from pytest_tom.backends.openai_api import post_worker

    code = post_worker._CHILD.replace(
        "main()\n", "import pytest_tom.backends.openai_api.direct_post\n"
        "print(' '.join(m for m in ('aiohttp', 'importlib.metadata') if m in sys.modules))\n")
    assert code != post_worker._CHILD
    package = str(Path(post_worker.__file__).resolve().parents[2])
    out = subprocess.run([sys.executable, "-c", code, package], capture_output=True, text=True,
                         timeout=60)
    assert (out.stdout.strip(), out.stderr) == ("aiohttp", "")


def test_a_child_that_cannot_start_says_why_in_a_retryable_error(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """The child imports aiohttp from the parent's sys.path: a parent whose sys.path has
    none makes a child that ends as it starts, and the attempt says so, quoting its stderr."""
    backend = _backend("http://127.0.0.1:9/v1", "worker")
    monkeypatch.setattr("sys.path", [str(tmp_path)])
    backend.poster  # noqa: B018 - made now, with that sys.path
    monkeypatch.undo()

    async def go() -> Any:
        try:
            return await backend.acomplete(_request(1))
        except BackendError as exc:
            return exc
        finally:
            await backend.aclose()

    got = asyncio.run(go())
    assert isinstance(got, BackendError) and got.retryable
    assert str(got).startswith("connection failed: the request process ended as it started "
                               "(exit status 1): ModuleNotFoundError: No module named")


WARMING_CONFTEST = """
import time
import pytest
from pytest_tom.backends.base import Backend, ModelReply

EVENTS = []

class Warming(Backend):
    async def warm(self):
        EVENTS.append("warm")

    async def acomplete(self, request):
        return ModelReply(text="Yes.")

@pytest.hookimpl(optionalhook=True)
def pytest_tom_backend(config, spec):
    return Warming() if spec == "warming" else None

def pytest_collection_finish(session):
    # the warm-up runs on the runner's thread: on a loaded machine it may take a while to
    # show; one started under --collect-only (none should be) shows within milliseconds,
    # and would be seen again at the end
    deadline = time.monotonic() + (1 if session.config.option.collectonly else 5)
    while not EVENTS and time.monotonic() < deadline:
        time.sleep(0.01)
    print("AT THE END OF COLLECTION", EVENTS)

def pytest_unconfigure(config):
    print("AT THE END", EVENTS)
"""


@pytest.mark.parametrize("collect_only", [False, True])
def test_the_backend_warms_up_while_pytest_collects(pytester: pytest.Pytester,
                                                    collect_only: bool) -> None:
    """`WarmUpAtCollection`: a backend with a warm-up (openai:'s request process) starts it
    when collection reaches the first suite file, not at the first request after it; once;
    and not at all under --collect-only, which asks nothing."""
    from runner_support import numbers_suite

    pytester.makefile(".tom.yaml", numbers=numbers_suite(8))
    pytester.makeconftest(WARMING_CONFTEST)
    result = pytester.runpytest_subprocess("--tom-model=warming", "-s", "-p", "no:cacheprovider",
                                           *(["--collect-only"] if collect_only else []))
    if collect_only:
        result.stdout.fnmatch_lines(["AT THE END OF COLLECTION []", "AT THE END []"])
    else:
        result.stdout.fnmatch_lines(["AT THE END OF COLLECTION ['warm']", "*",
                                     "AT THE END ['warm']"])
