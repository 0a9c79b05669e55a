"""The request process: the POSTs of one endpoint made in a child process, on the other
core (both request paths: `--tom-openai-transport=worker`, pytest-tom's own POST, and
`sdk`, the openai client).

Why: at latency 0 a run is CPU-bound in one process, and its two busy threads share one
GIL: pytest's item loop in the main thread, the runner's event loop in the other. The
HTTP work of a request (encoding the body, the HTTP client's request and response
handling, decoding the JSON answer and reading it as a reply) was about half of that
process's CPU, and the two threads handing the GIL to each other cost more besides. Here
that work runs in a child process, on the second core, while the runner keeps everything
that decides what happens to a call (the attempt's timeout, retries and their pauses, the
slots, the deadline, endpoint failover, redaction, the cache): only the one POST and the
reading of its answer move. The openai client's start (`import openai`, about 0.4 s) is
paid there too, while pytest collects (the runner's warm-up), not before the first request.

The child (this module's `main`, one per endpoint and process, started on the runner's
loop when collection reaches the first suite: `OpenAIBackend.warm`) runs its poster
(`direct_post.DirectPost` or `client_post.ClientPost`, as `make_poster` makes it from a
`PosterSpec`) and `reply_parts.chat_reply` on its own event loop. Both sides speak in
frames on the child's stdin and stdout: a 4-byte length, then a `marshal`-ed list (all
requests or answers of one turn of a loop go in one frame, so a thousand requests are a
few writes, not a thousand). marshal reads back only plain values (dicts, lists, strings,
numbers) that this process or its own child wrote; nothing from a server or a suite is
ever unmarshalled without having been written by `marshal.dumps` here.

- main -> child: first the endpoint, `(poster spec, think tags or None, sys.path)` (the
  child imports aiohttp or openai from where the parent would; the spec carries the API
  key through the pipe, never on a command line), then lists of `(n, body)` (post it)
  and `(n, None)` (forget it: the attempt was cancelled by its timeout, the deadline or
  the end of the run);
- child -> main: first `(READY,)` once it has made its poster, then lists of
  `(n, OK, reply)` or `(n, FAILED, error)`: the `ModelReply` or the `BackendError` the
  POST gave, written by `ModelReply.to_wire` / `BackendError.to_wire` and read back by
  their `from_wire` (backends/base.py: the one pair for each, next to its type).

The child ends when its stdin closes (`close`, or this process ending). A child that
ends while requests are in flight fails them with a retryable "connection failed"
error that quotes the last line of its stderr (redacted by the backend, as every
error of an attempt); the next request starts a new child.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import json
import marshal
import os
import signal
import struct
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_tom.backends.base import BackendError, ChatBody, ModelReply
from pytest_tom.backends.openai_api.client_post import ClientPost
from pytest_tom.backends.openai_api.connect import DEFAULT_CONNECT_TIMEOUT
from pytest_tom.backends.reply_parts import ThinkTags, chat_reply

if TYPE_CHECKING:  # aiohttp: imported in the child only
    from pytest_tom.backends.openai_api.direct_post import DirectPost

OK, FAILED = 0, 1
READY = -1  # the child's first answer: it is ready for requests
_LENGTH = struct.Struct("<I")
_STDERR_KEPT = 2000  # characters of the child's stderr quoted when it ends unasked


def frame(values: list[Any]) -> bytes:
    data = marshal.dumps(values)
    return _LENGTH.pack(len(data)) + data


class Frames:
    """Splits a byte stream into the values of its frames."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[Any]:
        buf = self._buffer
        buf += data
        out: list[Any] = []
        at = 0
        while len(buf) - at >= 4:
            (size,) = _LENGTH.unpack_from(buf, at)
            if len(buf) - at - 4 < size:
                break
            out.extend(marshal.loads(buf[at + 4:at + 4 + size]))  # a slice: one copy
            at += 4 + size
        if at:
            del buf[:at]
        return out


def plain(body: ChatBody) -> ChatBody:
    """`body` as marshal can write it: unchanged when it is plain JSON data already; else
    (a str subclass, a tuple ...) as the JSON it would be sent as, read back. A body that
    is no JSON raises the encoder's error here, as `DirectPost.post` would raise it."""
    try:
        marshal.dumps(body)
    except ValueError:
        return json.loads(json.dumps(body, ensure_ascii=False, allow_nan=False))
    return body


class _ChildProtocol(asyncio.SubprocessProtocol):
    def __init__(self, worker: PostWorker):
        self.worker = worker
        self.frames = Frames()
        self.stderr = bytearray()
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.worker._answered(self.frames.feed(data))
        else:
            self.stderr += data
            del self.stderr[:-_STDERR_KEPT]

    def connection_lost(self, exc: Exception | None) -> None:
        """The child has exited and its pipes are read to the end."""
        if not self.ended.done():
            self.ended.set_result(None)
        self.worker._ended(self)


# the child's command: it imports the very package this process uses (a checkout on
# sys.path, an installed wheel), without putting its folder on the child's sys.path
_CHILD = ("import importlib.util as u, sys\n"
          "p = sys.argv[1]\n"
          "s = u.spec_from_file_location('pytest_tom', p + '/__init__.py', "
          "submodule_search_locations=[p])\n"
          "m = sys.modules['pytest_tom'] = u.module_from_spec(s)\n"
          "s.loader.exec_module(m)\n"
          "from pytest_tom.backends.openai_api.post_worker import main\n"
          "main()\n")


# what the child makes and posts with: ("direct", base URL, headers, connect timeout) or
# ("client", base URL, API key, timeout, connect timeout, transport); plain values only
# (str, not a `Secret`, a str subclass marshal does not write)
PosterSpec = tuple[Any, ...]


def direct_poster(base_url: str | None, headers: dict[str, str],
                  connect_timeout: float = DEFAULT_CONNECT_TIMEOUT) -> PosterSpec:
    """The worker path's poster: `direct_post.DirectPost(base_url, headers, connect_timeout)`."""
    return ("direct", None if base_url is None else str(base_url),
            {str(k): str(v) for k, v in headers.items()}, float(connect_timeout))


def client_poster(base_url: str | None, api_key: str, timeout: float, connect_timeout: float,
                  transport: str) -> PosterSpec:
    """The sdk path's poster: `client_post.ClientPost(...)`, the openai client."""
    return ("client", None if base_url is None else str(base_url), str(api_key),
            float(timeout), float(connect_timeout), str(transport))


def make_poster(spec: PosterSpec) -> DirectPost | ClientPost:
    """In the child: the `DirectPost` or `ClientPost` that `spec` names, ready to post (the
    openai client made, its `import openai` paid before the child says it is ready)."""
    kind, *args = spec
    if kind == "direct":
        from pytest_tom.backends.openai_api.direct_post import DirectPost  # noqa: PLC0415 after sys.path is set

        return DirectPost(*args)
    poster = ClientPost(*args)
    poster.client  # noqa: B018 - made now: the first request does not wait for the import
    return poster


class PostWorker:
    """Posts chat-completions bodies to one endpoint from a child process; answers with the
    `ModelReply` (or raises the `BackendError`) that the child's poster (`DirectPost` or
    `ClientPost`) and `chat_reply` make."""

    def __init__(self, poster: PosterSpec, tags: ThinkTags | None):
        # the parent's sys.path too: the child imports aiohttp (or openai) from where this
        # process would
        self._config = (tuple(poster),
                        None if tags is None else (str(tags.open), str(tags.close)),
                        [str(p) for p in sys.path])
        self._ids = itertools.count()
        self._waiting: dict[int, asyncio.Future[ModelReply]] = {}
        self._outbox: list[Any] = []
        self._transport: asyncio.SubprocessTransport | None = None
        self._protocol: _ChildProtocol | None = None
        self._stdin: Any = None
        self._starting: asyncio.Task[None] | None = None
        self._greeted: asyncio.Future[None] | None = None  # the child's first frame

    async def reply(self, body: ChatBody) -> ModelReply:
        if self._stdin is None:
            await self.ready()
        n = next(self._ids)
        fut: asyncio.Future[ModelReply] = asyncio.get_running_loop().create_future()
        self._waiting[n] = fut
        self._send((n, plain(body)))
        try:
            return await fut
        except asyncio.CancelledError:
            if self._waiting.pop(n, None) is not None and self._stdin is not None:
                self._send((n, None))
            raise

    async def ready(self) -> None:
        """Start the child unless it runs: called before an attempt's timeout starts (the
        child's start-up, a few tenths of a second, is not the server's time). One start
        for every caller, shielded from a caller's cancellation."""
        if self._stdin is not None:
            return
        if self._starting is None:
            self._starting = asyncio.get_running_loop().create_task(self._spawn())
            self._starting.add_done_callback(self._started)
        await asyncio.shield(self._starting)

    def _started(self, task: asyncio.Task[None]) -> None:
        self._starting = None
        if not task.cancelled():
            task.exception()  # retrieved: every caller got it already

    async def _spawn(self) -> None:
        loop = asyncio.get_running_loop()
        package = str(Path(__file__).resolve().parents[2])
        try:
            transport, protocol = await loop.subprocess_exec(
                lambda: _ChildProtocol(self), sys.executable, "-c", _CHILD, package)
        except OSError as exc:
            raise BackendError(f"connection failed: the request process did not start: {exc}",
                               retryable=True) from None
        self._transport, self._protocol = transport, protocol
        stdin = transport.get_pipe_transport(0)
        stdin.write(frame([self._config]))
        self._greeted = loop.create_future()
        try:
            await self._greeted  # the child has imported what it needs and read the endpoint
        except asyncio.CancelledError:  # closed while it started
            transport.kill()
            self._transport = self._protocol = None
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(protocol.ended), 5)
            transport.close()
            raise
        self._stdin = stdin

    def _send(self, message: Any) -> None:
        self._outbox.append(message)
        if len(self._outbox) == 1:
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        out, self._outbox = self._outbox, []
        if out and self._stdin is not None and not self._stdin.is_closing():
            self._stdin.write(frame(out))

    def _answered(self, answers: list[Any]) -> None:
        waiting = self._waiting
        for answer in answers:
            if answer[0] == READY:
                if self._greeted is not None and not self._greeted.done():
                    self._greeted.set_result(None)
                continue
            fut = waiting.pop(answer[0], None)
            if fut is None or fut.done():
                continue  # cancelled meanwhile
            if answer[1] == OK:
                fut.set_result(ModelReply.from_wire(answer[2]))
            else:
                fut.set_exception(BackendError.from_wire(answer[2]))

    def _ended(self, protocol: _ChildProtocol) -> None:
        """The child ended: fail what it had not answered; the next request starts another."""
        if protocol is not self._protocol:
            return
        said = protocol.stderr.decode("utf-8", "replace").strip()
        why = f": {said.splitlines()[-1]}" if said else ""
        transport = self._transport
        code = transport.get_returncode() if transport is not None else None
        if transport is not None:
            transport.close()  # it has exited: nothing is left to read or write
        self._transport = self._protocol = self._stdin = None
        if self._greeted is not None and not self._greeted.done():
            self._greeted.set_exception(BackendError(
                f"connection failed: the request process ended as it started (exit status "
                f"{code}){why}", retryable=True))
        waiting, self._waiting = self._waiting, {}
        for fut in waiting.values():
            if not fut.done():
                fut.set_exception(BackendError(
                    f"connection failed: the request process ended (exit status {code}){why}",
                    retryable=True))

    async def close(self) -> None:
        """Close the child's stdin and wait for it to end (it finishes nothing more); a
        child still starting (warmed, never asked: a fully cached run) is stopped."""
        starting = self._starting
        if starting is not None:
            starting.cancel()
            with contextlib.suppress(BaseException):
                await starting
        transport, protocol = self._transport, self._protocol
        if transport is None or protocol is None:
            return
        self._flush()
        self._stdin = None
        with contextlib.suppress(Exception):
            transport.get_pipe_transport(0).close()
        try:
            await asyncio.wait_for(asyncio.shield(protocol.ended), 5)
        except (asyncio.TimeoutError, Exception):
            with contextlib.suppress(Exception):
                transport.kill()
        transport.close()


# -- the child ---------------------------------------------------------------------------


async def _serve() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**31)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    out_fd = os.dup(sys.stdout.fileno())
    sys.stdout = sys.stderr  # nothing else may write to the frames' pipe
    writer, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(out_fd, "wb"))
    frames = Frames()
    outbox: list[Any] = []
    tasks: dict[int, asyncio.Task[None]] = {}

    def flush() -> None:
        answers = outbox[:]
        outbox.clear()
        if answers:
            writer.write(frame(answers))

    def answer(message: tuple[Any, ...]) -> None:
        outbox.append(message)
        if len(outbox) == 1:
            loop.call_soon(flush)

    config: tuple[Any, ...] | None = None
    poster: DirectPost | ClientPost | None = None
    tags: ThinkTags | None = None

    async def one(n: int, body: ChatBody) -> None:
        assert poster is not None  # made from the first frame, before any body
        try:
            reply = chat_reply(await poster.post(body), tags)
        except Exception as exc:  # anything else the POST raises: an error of the item
            error = exc if isinstance(exc, BackendError) else BackendError(
                f"{type(exc).__name__}: {exc}")
            answer((n, FAILED, error.to_wire()))
        else:
            answer((n, OK, reply.to_wire()))
        finally:
            tasks.pop(n, None)

    while True:
        data = await reader.read(1 << 20)
        if not data:
            break
        for message in frames.feed(data):
            if config is None:
                config = message
                spec, pair, path = config
                sys.path[:] = path
                tags = None if pair is None else ThinkTags(*pair)
                poster = make_poster(spec)
                # what the start imported and made (aiohttp's or openai's modules: tens of thousands of
                # objects) lives as long as this process: out of the collector's sight, so
                # that its full collections look only at the requests' objects (issue 47:
                # they were about 5 µs of this process's CPU per request at latency 0)
                gc.freeze()
                answer((READY,))
                continue
            n, body = message
            if body is None:
                task = tasks.pop(n, None)
                if task is not None:
                    task.cancel()
            else:
                tasks[n] = loop.create_task(one(n, body))
    for task in list(tasks.values()):
        task.cancel()
    if poster is not None:
        await poster.close()
    flush()
    writer.close()


def main() -> None:
    # Ctrl-C reaches the whole process group: the parent decides when this ends (it closes
    # the pipe), so that a stopping run's last requests end as the parent says
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asyncio.run(_serve())


if __name__ == "__main__":
    main()
