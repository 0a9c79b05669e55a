"""Several endpoints of one model (`--tom-base-url "URL URL ..."`): which one asks.

Replicas of one model (one vLLM or llama.cpp server per GPU, no load balancer
in front) each get their own backend (an `OpenAIBackend`: its own client and
connection pool). For every attempt the pool picks one:

- the endpoint with the fewest requests in flight (ties in turn), among those
  that are in;
- a retry goes to an endpoint where this request has not failed yet while there
  is one (the runner retries the same request object; `ModelRequest.failed_at`
  remembers where it failed), and comes back with `retry_after = 0`: another
  server owes no backoff for the first one's trouble;
- an endpoint that fails `FAILURES_TO_LEAVE` retryable attempts in a row (a
  refused connection, a 5xx, a 429, a timeout) is left out for a cool-down that
  doubles each time it is left out again (`FIRST_COOL_DOWN` up to
  `MAX_COOL_DOWN` seconds); then one request at a time probes it, and the first
  answer puts it back in. An answer that is an error of the request (HTTP 400,
  an empty completion) is still an answer: the server is up.
- When every endpoint is out, the one that comes back first is asked anyway:
  the run never waits idle, and the runner's retries, backoff and deadline
  decide when an item fails, as with one endpoint (an error outcome that stays
  in the denominator).

Everything happens on the runner's event loop: no locking. Each reply and error
names its endpoint (redacted) so that the item records count requests,
failures and retries moved elsewhere per endpoint. The cache identity is the
first endpoint's: the replicas serve one model, so the cache key does not
depend on which one answered, and a run against the first URL alone shares it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TypedDict

from pytest_tom.backends.base import (
    Backend,
    BackendError,
    BackendIdentity,
    ModelReply,
    ModelRequest,
)


class EndpointCounts(TypedDict):
    """An endpoint's requests and failures in this process."""

    requests: int
    failures: int


# `EndpointPool.status()`: an endpoint's counts and whether it is in (`in` is a keyword:
# the functional form)
EndpointStatus = TypedDict("EndpointStatus", {"endpoint": str, "requests": int, "failures": int,
                                              "in": bool, "outages": int})

FAILURES_TO_LEAVE = 3  # retryable failures in a row that take an endpoint out
FIRST_COOL_DOWN = 1.0  # seconds out the first time; doubled each time it is out again
MAX_COOL_DOWN = 60.0


@dataclass
class Endpoint:
    """One replica and what the pool knows of it (times are `time.monotonic()`)."""

    index: int
    backend: Backend
    label: str  # the redacted URL: what reports show
    in_flight: int = 0
    failures_in_row: int = 0
    outages: int = 0  # cool-downs since its last answer (the next one lasts longer)
    out_until: float = 0.0
    probing: bool = False  # a probe after a cool-down is in flight
    counts: EndpointCounts = field(default_factory=lambda: EndpointCounts(requests=0, failures=0))

    def is_in(self, now: float) -> bool:
        """Takes requests: not cooling down, and not already probed by a request in flight."""
        if self.outages == 0:
            return True
        return self.out_until <= now and not self.probing


class EndpointPool(Backend):
    """A backend made of several backends of one model; see the module's docstring."""

    def __init__(self, backends: Sequence[Backend], labels: Sequence[str] | None = None):
        if not backends:
            raise ValueError("an endpoint pool needs at least one backend")
        first = backends[0]
        self.name = first.name
        self.model = first.model
        names = list(labels) if labels is not None else [_label(b) for b in backends]
        self.endpoints = [Endpoint(i, b, names[i]) for i, b in enumerate(backends)]
        # what the first can do, for each of them (one model, one option for every
        # endpoint); the early stop waits for each endpoint to fail
        self.abilities = replace(first.abilities, endpoints=len(self.endpoints),
                                 warms=any(b.abilities.warms for b in backends))
        self._turn = 0  # ties of in-flight counts go round

    # -- what the run shows --------------------------------------------------------------
    def identity(self) -> BackendIdentity:
        return self.endpoints[0].backend.identity()

    def describe(self) -> str:
        """Short, for the model's name in tables; `details` (the header) lists the endpoints."""
        return f"{self.name}:{self.model} @ {len(self.endpoints)} endpoints"

    def details(self) -> str:
        return ", ".join(ep.label for ep in self.endpoints)

    def request_path(self) -> str | None:
        return self.endpoints[0].backend.request_path()  # one option for every endpoint

    # -- one attempt ---------------------------------------------------------------------
    async def acomplete(self, request: ModelRequest) -> ModelReply:
        ep = self.pick(request)
        now = time.monotonic()
        probe = ep.outages > 0 and ep.out_until <= now
        ep.probing = ep.probing or probe
        ep.in_flight += 1
        ep.counts["requests"] += 1
        request.asked_at = ep.label
        try:
            reply = await ep.backend.acomplete(request)
        except BackendError as exc:
            ep.in_flight -= 1
            if probe:
                ep.probing = False
            raise self._failed(ep, exc, request) from None
        except BaseException:  # cancelled (the deadline, the run stopped): no verdict
            ep.in_flight -= 1
            if probe:
                ep.probing = False
            raise
        ep.in_flight -= 1
        if probe:
            ep.probing = False
        self._answered(ep)
        reply.endpoint = ep.label
        return reply

    def pick(self, request: ModelRequest) -> Endpoint:
        """The endpoint for this attempt (see the module's docstring)."""
        now = time.monotonic()
        ready = [ep for ep in self.endpoints if ep.is_in(now)]
        fresh = [ep for ep in ready if ep.index not in request.failed_at]
        choices = fresh or ready
        if not choices:  # every endpoint is out: the one back first is asked anyway
            return min(self.endpoints, key=lambda ep: (ep.out_until, ep.in_flight, ep.index))
        n = len(self.endpoints)
        turn = self._turn
        self._turn = (self._turn + 1) % n
        return min(choices, key=lambda ep: (ep.in_flight, (ep.index - turn) % n))

    def _answered(self, ep: Endpoint) -> None:
        ep.failures_in_row = 0
        ep.outages = 0
        ep.out_until = 0.0

    def _failed(self, ep: Endpoint, exc: BackendError, request: ModelRequest) -> BackendError:
        """Note the failure; the error the runner sees names the endpoint and, when another
        endpoint can take the retry now, asks for it at once."""
        ep.counts["failures"] += 1
        if not exc.retryable:  # the server answered: the request is at fault, not the server
            self._answered(ep)
            return exc.named(ep.label, exc.retry_after)
        now = time.monotonic()
        request.failed_at.add(ep.index)
        ep.failures_in_row += 1
        cooling = ep.outages > 0 and ep.out_until > now
        if not cooling and (ep.outages > 0 or ep.failures_in_row >= FAILURES_TO_LEAVE):
            ep.out_until = now + min(MAX_COOL_DOWN, FIRST_COOL_DOWN * 2 ** ep.outages)
            ep.outages += 1
            ep.failures_in_row = 0
        elsewhere = any(o.is_in(now) and o.index not in request.failed_at
                        for o in self.endpoints)
        return exc.named(ep.label, 0.0 if elsewhere else exc.retry_after)

    def status(self) -> list[EndpointStatus]:
        """Each endpoint's counts and state in this process (for tests and benchmarks)."""
        now = time.monotonic()
        return [{"endpoint": ep.label, **ep.counts, "in": ep.is_in(now) and ep.outages == 0,
                 "outages": ep.outages} for ep in self.endpoints]

    async def warm(self) -> None:
        await asyncio.gather(*(ep.backend.warm() for ep in self.endpoints))

    async def aclose(self) -> None:
        for ep in self.endpoints:
            await ep.backend.aclose()


def _label(backend: Backend) -> str:
    identity = backend.identity()
    return str(identity.get("base_url") or backend.describe())

