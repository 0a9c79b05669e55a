"""How `openai:` opens new connections, on both request paths (the worker path's child and
the client path): each one shown taken by the server before a question uses it, a few at
a time, at the pace the server takes them (issue 47).

Against a freshly started server whose listen backlog is small (5: cpp-httplib's default,
Python's `http.server`'s), connections opened all at once overflow the server's accept
queue and their handshakes are dropped (backends/openai_api/connect.py). Only an answer
shows that the server's own accept loop took a connection: a connect succeeds as soon as
its kernel completed the handshake. The runner's ramp (asking/runner.py `AdaptiveLimit`)
opens one more connection per answer of the *model*: about three and a half latencies of a
run at 64 in flight (0.3 s of the 3.1 s that 2,000 questions at 100 ms take at best,
seconds against a slow model), paid against every server, crowded or not.

Here a new connection is opened by a cheap request the server answers at once, `GET <base
URL>/models` (the OpenAI API's model list, which every compatible server serves; any HTTP
answer, a 401 or a 404 too, shows the connection taken). Its answer read, the connection is
idle in the session's pool, and the question waiting for it is let through at once and
takes it. A question starts at once while the connections shown taken outnumber the
questions under way; else it waits, and a probe is sent for it, at most `OPEN_AT_ONCE`
probes at a time: fewer than a backlog of 5 holds (6 handshakes), so a fresh small server
never overflows, and a loopback server answers each in well under a millisecond (64
connections in a few ms, against the ramp's 0.3 s). Each probe ends one wait whatever came
of it: a probe that got no answer in time (the connect timeout), or whose connection the
server closes after it (`Connection: close`), lets one question through on a connection of
its own, which then fails, is retried or succeeds as it would without a gate, so that a
server that is down or serves no model list is never waited for twice. A question whose
connection broke or was closed by the server counts one connection fewer; one that went on
a connection of its own and was answered on it, kept open, counts that connection (so
that against a server without a model list, or one that closes the connection after a
probe's answer, only the first `--tom-concurrency` questions cost a probe).

A connection left idle is closed by most servers after a few seconds (uvicorn's, llama.cpp's
and Node's keep-alive: 5 s; gunicorn's 2 s), without the client being told until it next
uses it: its HTTP library then opens a new one, unpaced. So a connection idle longer than
`IDLE_TRUSTED` is not counted any more: the next question that would have taken it sends a
probe first (which reuses the connection when the server kept it: one cheap request).

The runner does not ramp a backend that gates its connections (`BackendAbilities.
opens_connections`): its slots start at the whole concurrency.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import Awaitable, Callable

# probes in flight at once: a listen backlog of 5 holds 6 handshakes, so 4 never overflow
# it, even with a few other clients connecting
OPEN_AT_ONCE = 4

# seconds a connection left idle is still counted open: below the shortest keep-alive of
# the usual servers (gunicorn 2 s; uvicorn, llama.cpp, Node 5 s)
IDLE_TRUSTED = 1.5

# one cheap request on a new connection: True when the server answered and keeps the
# connection open for the next request, False when it answered and closes it, None when no
# answer came in time (or the connection failed). Never raises but for cancellation.
Probe = Callable[[], Awaitable["bool | None"]]


def kept_alive(http11: bool, connection: str | None) -> bool:
    """Whether a connection whose answer came over HTTP/1.1 (`http11`) with this
    `Connection` header stays open for the next request (HTTP/1.1 keeps it unless told
    "close"; HTTP/1.0 closes it unless told "keep-alive")."""
    if connection is None:
        return http11
    tokens = {t.strip().lower() for t in connection.split(",")}
    return "close" not in tokens if http11 else "keep-alive" in tokens


class ConnectionGate:
    """Lets a request start when a connection shown taken by the server is free; else
    opens one for it with a probe (see the module's docstring). One event loop; no locks."""

    def __init__(self, probe: Probe, at_once: int = OPEN_AT_ONCE,
                 clock: Callable[[], float] = time.monotonic):
        self._probe = probe
        self.at_once = max(1, at_once)
        self._clock = clock
        # connections shown taken and free, each as the time it was left idle (the
        # latest last: the HTTP libraries reuse the one released last)
        self._idle: collections.deque[float] = collections.deque()
        self.expired = 0  # idle connections no longer counted (`IDLE_TRUSTED`)
        self.busy = 0  # requests let through, not ended
        self.own = 0  # ... of which on a connection of their own (no probe showed one)
        self.probing = 0  # probes in flight
        self.probes = 0  # probes sent
        self.unproven = 0  # requests let through on a connection of their own
        self._waiting: collections.deque[asyncio.Future[bool]] = collections.deque()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def open(self) -> int:
        """Connections shown taken, not known closed since: the free ones and those of the
        requests under way on a connection a probe or an earlier answer showed."""
        return len(self._idle) + self.busy - self.own

    def _forget_stale(self) -> None:
        """Stop counting the connections idle longer than `IDLE_TRUSTED`."""
        idle = self._idle
        if not idle:
            return
        limit = self._clock() - IDLE_TRUSTED
        while idle and idle[0] < limit:
            idle.popleft()
            self.expired += 1

    async def enter(self) -> bool:
        """Wait until this request may start; True when it goes on a connection of its own
        (no probe showed one: it opens it itself). Pass it to `leave` when the request ends."""
        self._forget_stale()
        if self._idle and not self._waiting:
            self._idle.pop()
            self.busy += 1
            return False
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append(fut)
        self._more()
        try:
            return await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # let through just before the cancel:
                own = fut.result()  # nothing was opened for it; a free connection stays free
                self.leave(lost=own, own=own)
            else:
                with contextlib.suppress(ValueError):  # skipped by `_let_through` already
                    self._waiting.remove(fut)
            raise

    def leave(self, lost: bool = False, own: bool = False) -> None:
        """A request let through ended (`own`: what `enter` returned); `lost`: its connection
        broke or the server closes it. A request on a connection of its own that the server
        answered and keeps open has shown that connection taken: it counts from now on."""
        self.busy -= 1
        if own:
            self.own -= 1
        if not lost:
            self._idle.append(self._clock())
        self._admit()
        if self._waiting:
            self._more()

    def _admit(self) -> None:
        while self._waiting and self._idle:
            if self._let_through(own=False):
                self._idle.pop()

    def _let_through(self, own: bool) -> bool:
        """The first request still waiting goes on (one cancelled meanwhile is skipped);
        False when none was waiting any more."""
        while self._waiting:
            fut = self._waiting.popleft()
            if not fut.done():
                self.busy += 1
                self.own += own
                fut.set_result(own)
                return True
        return False

    def _more(self) -> None:
        """Probes for the requests waiting beyond the connections free and being opened
        (a request on a connection of its own needs none)."""
        need = len(self._waiting) - len(self._idle) - self.probing
        loop = asyncio.get_running_loop()
        while need > 0 and self.probing < self.at_once:
            need -= 1
            self.probing += 1
            self.probes += 1
            task = loop.create_task(self._one())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _one(self) -> None:
        try:
            kept = await self._probe()
        except Exception:  # noqa: BLE001 a probe that breaks shows no connection: the
            kept = None  # waiting request still goes on (it meets the problem itself)
        finally:
            self.probing -= 1
        if kept:
            self._idle.append(self._clock())
            self._admit()  # the waiting request takes the connection just made, before
            # another probe could (its task runs first: the loop's ready queue is in order)
        elif self._waiting:  # no connection shown: one request goes on its own
            self.unproven += 1
            self._let_through(own=True)
        if self._waiting:
            self._more()

    def close(self) -> None:
        """Cancel the probes in flight (the session is closing)."""
        for task in list(self._tasks):
            task.cancel()
