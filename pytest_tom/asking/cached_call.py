"""The cached-call layer: between the runner and a backend whose answers depend on the
request alone (`BackendAbilities.cacheable`), so that no call is asked twice.

For each call, `CachedCalls.call`:

1. computes the call's cache key (`cache.request_key`: the backend's identity, the
   messages, the sampling parameters, the sample index) and asks the response cache
   (a hit costs no request and no slot);
2. shares an identical call already in flight in this process instead of repeating it;
3. with the cache on, claims the key in the cache so that another process (an xdist
   worker, a second run) waits for this answer instead of asking too; a key claimed by
   a live process is waited for (`poll`), up to the deadline;
4. asks (`ask`: the retry policy over the runner's slots) and stores the reply the
   moment it arrives, or gives the claim back when the call fails or is cancelled.

Before that, the runner may read the first calls of many conversations at once
(`read_ahead`: a few queries instead of one per call, what a fully cached rerun is made
of); a call whose key it did not find comes to `call` as `looked` and is not read again.

The cached value is the typed reply (`ModelReply`: text, usage, model); failures are
never cached. The cache turns itself off on any SQLite or disk error: `problem` says
why in one line, and the calls go on as without a cache. Cache calls never wait inside
SQLite: a sibling's lock is waited for with `asyncio.sleep` (`ResponseCache.a...`), so
the loop keeps sending and reading meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pytest_tom.asking.cache import ResponseCache, request_key
from pytest_tom.asking.completion import Completion, RunnerStats
from pytest_tom.backends.base import (
    Backend,
    BackendError,
    BackendIdentity,
    ModelReply,
    ModelRequest,
)
from pytest_tom.core.option_table import TomOptions

# the request itself, when neither the cache nor a call in flight answers it
Ask = Callable[[ModelRequest, Completion], Awaitable[ModelReply]]


def cache_dir(options: TomOptions, rootdir: str | Path) -> Path:
    """`--tom-cache-dir` (relative to the rootdir), default `<rootdir>/.tom_cache`."""
    raw = options.cache_dir or ".tom_cache"
    path = Path(raw).expanduser()
    return path if path.is_absolute() else Path(rootdir) / path


def open_cache(backend: Backend, options: TomOptions, rootdir: str | Path) -> ResponseCache | None:
    """The response cache of a run (`--tom-cache`, `--tom-cache-dir`), or None: off, or a
    backend whose answers are not cached. A claim older than the deadline and a minute
    is abandoned (one from another host; a dead process's on this host at once)."""
    mode = options.cache or "on"
    if mode == "off" or not backend.abilities.cacheable:
        return None
    return ResponseCache(cache_dir(options, rootdir), mode=mode,
                         stale_after=options.deadline + 60.0)


def sharing_key(request: ModelRequest, sample: int) -> Any:
    """What makes two calls of one process identical, when no cache needs the canonical key:
    their messages, parameters and sample as a tuple (compared, never hashed to text).

    The cache key (`cache.request_key`: the canonical JSON of the call, SHA-256) is what
    the response cache stores under and other processes read; without a cache it only
    decides which calls in flight are shared, and computing it was about a fifth of the
    runner's CPU per call at latency 0. Two calls of one run share this key when they ask
    the same, as with the cache key (the backend is the same: one `CachedCalls` per
    backend). A message holding something unhashable (a list of content parts) takes the
    cache key's JSON instead.
    """
    try:
        key = (sample, request.params,
               tuple(tuple(sorted(m.items())) for m in request.messages))
        hash(key)
    except TypeError:
        return ("canonical", request_key({}, request.messages, request.params.to_dict(), sample))
    return key


class CachedCalls:
    """Hit, share, claim, ask and store, for one process's calls of one backend.

    Runs on the runner's event loop (no locking); counts its own events (cache hits,
    shared calls, calls waiting for another process) into the runner's counters.
    """

    def __init__(self, identity: BackendIdentity, ask: Ask, stats: RunnerStats, *,
                 cache: ResponseCache | None = None, deadline: float, poll: float = 0.05):
        self.identity = identity  # the backend's: never a secret (redacted URL, no key)
        self.ask = ask
        self.stats = stats
        self.cache = cache if cache is not None and cache.mode != "off" else None
        self.deadline = deadline  # how long an answer asked by another process is waited for
        self.poll = poll
        # calls in flight by key: the cache key with the cache on, else `sharing_key`
        self._inflight: dict[Any, asyncio.Future[ModelReply]] = {}

    @property
    def problem(self) -> str | None:
        """Why the cache was turned off during this run (one line), or None."""
        return self.cache.problem if self.cache is not None else None

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()

    @property
    def reads_ahead(self) -> bool:
        """Whether `read_ahead` can answer anything (the cache is on or read-only)."""
        return self.cache is not None and self.cache.readable

    def cache_key(self, request: ModelRequest, sample: int) -> str:
        """The cache key of one call (`cache.request_key`)."""
        return request_key(self.identity, request.messages, request.params.to_dict(), sample)

    async def read_ahead(self, calls: list[tuple[ModelRequest, int]]
                         ) -> list[tuple[str, ModelReply | None]]:
        """The cache keys of `calls` (request, sample) and their stored replies (None: not
        stored), read together (`ResponseCache.aget_many`: a few queries, not one per call).
        A reply found counts as a cache hit when the caller takes it (`hit`); a key not
        found goes to `call` as `looked`, which then does not read it again."""
        keys = [self.cache_key(request, sample) for request, sample in calls]
        found = await self.cache.aget_many(keys) if self.cache is not None else {}
        return [(key, found.get(key)) for key in keys]

    def hit(self, comp: Completion) -> None:
        """Count a reply of `read_ahead` that `comp` took."""
        comp.cached += 1
        self.stats.cache_hits += 1

    async def call(self, request: ModelRequest, sample: int, comp: Completion,
                   looked: str | None = None) -> tuple[ModelReply, bool]:
        """(reply, came without a request of ours). Raises the `ask`'s final error.
        `looked`: the call's cache key, just read by `read_ahead` and not found."""
        cache = self.cache
        key = looked or (self.cache_key(request, sample) if cache is not None
                         else sharing_key(request, sample))
        if cache is not None and cache.readable and looked is None:
            hit = await cache.aget(key)
            if hit is not None:
                return self._hit(comp, hit)
        shared = self._inflight.get(key)
        if shared is not None:  # the same call is in flight for another item: share it
            reply = await asyncio.shield(shared)
            comp.shared += 1
            self.stats.shared += 1
            return reply, True
        fut: asyncio.Future[ModelReply] = asyncio.get_running_loop().create_future()
        self._inflight[key] = fut
        try:
            if cache is None:  # only shared: asked at once (a coroutine fewer per request)
                result = await self.ask(request, comp), False
            else:
                result = await self._claim_and_ask(request, comp, key)
        except BaseException as exc:
            fut.set_exception(exc if isinstance(exc, Exception) else BackendError("cancelled"))
            fut.exception()  # mark retrieved: nobody else may be waiting
            raise
        else:
            fut.set_result(result[0])
            return result
        finally:
            self._inflight.pop(key, None)

    def _hit(self, comp: Completion, reply: ModelReply) -> tuple[ModelReply, bool]:
        self.hit(comp)
        return reply, True

    async def _claim_and_ask(self, request: ModelRequest, comp: Completion,
                             key: Any) -> tuple[ModelReply, bool]:
        """Ask for `key` unless another process is already asking; store the answer."""
        cache = self.cache
        if cache is not None and cache.coordinating:
            deadline = asyncio.get_running_loop().time() + self.deadline
            hit = await self._claim(cache, key, deadline)
            if hit is not None:
                return self._hit(comp, hit)
        try:
            reply = await self.ask(request, comp)
        except BaseException as exc:
            if cache is not None:
                if isinstance(exc, asyncio.CancelledError):
                    cache.release(key)  # at once: the run is stopping (no await here)
                else:
                    await cache.arelease(key)
            raise
        if cache is not None:  # a sibling's lock is waited for without stopping the loop
            if cache.writable:
                await cache.aput(key, reply)
            else:
                await cache.arelease(key)
        return reply, False

    async def _claim(self, cache: ResponseCache, key: str, deadline: float) -> ModelReply | None:
        """Claim `key` for this process (returns None), or wait while another live process
        holds it and return its answer. Raises when its answer does not come in time."""
        loop = asyncio.get_running_loop()
        if not await cache.aclaim(key):
            self.stats.waiting += 1
            try:
                while not await cache.aclaim(key):
                    await asyncio.sleep(self.poll)
                    hit = await cache.aget(key)
                    if hit is not None:
                        return hit
                    if loop.time() > deadline:
                        raise BackendError(f"another process was asking the same and gave no "
                                           f"answer within the deadline ({self.deadline:g}s)")
            finally:
                self.stats.waiting -= 1
        hit = await cache.aget(key)  # answered between our first look and our claim
        if hit is not None:
            await cache.arelease(key)
        return hit
