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

The runner does not ramp a backend that gates its connections (`BackendAbilities.
opens_connections`): its slots start at the whole concurrency.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Awaitable, Callable

# probes in flight at once: a listen backlog of 5 holds 6 handshakes, so 4 never overflow
# it, even with a few other clients connecting
OPEN_AT_ONCE = 4

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

    def __init__(self, probe: Probe, at_once: int = OPEN_AT_ONCE):
        self._probe = probe
        self.at_once = max(1, at_once)
        self.open = 0  # connections shown taken, not known closed since
        self.busy = 0  # requests let through, not ended
        self.own = 0  # ... of which on a connection of their own (no probe showed one)
        self.probing = 0  # probes in flight
        self.probes = 0  # probes sent
        self.unproven = 0  # requests let through on a connection of their own
        self._waiting: collections.deque[asyncio.Future[bool]] = collections.deque()
        self._tasks: set[asyncio.Task[None]] = set()

    async def enter(self) -> bool:
        """Wait until this request may start; True when it goes on a connection of its own
        (no probe showed one: it opens it itself). Pass it to `leave` when the request ends."""
        if self.busy - self.own < self.open and not self._waiting:
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
                self.open += 1
        elif lost and self.open > 0:
            self.open -= 1
        self._admit()
        if self._waiting:
            self._more()

    def _admit(self) -> None:
        while self._waiting and self.busy - self.own < self.open:
            self._let_through(own=False)

    def _let_through(self, own: bool) -> None:
        """The first request still waiting goes on (one cancelled meanwhile is skipped)."""
        while self._waiting:
            fut = self._waiting.popleft()
            if not fut.done():
                self.busy += 1
                self.own += own
                fut.set_result(own)
                return

    def _more(self) -> None:
        """Probes for the requests waiting beyond the connections free and being opened
        (a request on a connection of its own needs none)."""
        need = self.busy - self.own + len(self._waiting) - self.open - self.probing
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
            self.open += 1
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
