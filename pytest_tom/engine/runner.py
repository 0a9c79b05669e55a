"""The runner: one per process, it makes the model calls of the items.

It owns an asyncio event loop in a background thread and hands each item its
`Completion` (every response of its conversation, or an error). For each call:

1. the response cache is asked first (a hit costs no request and no slot);
2. an identical call already in flight in this process is shared, not repeated;
3. with the cache on, the call is claimed in the cache so that another process
   (an xdist worker, a second run) waits for this answer instead of asking too;
4. the call waits for a slot: at most `concurrency` requests are in flight, fewer
   while the server keeps answering 429 (see `AdaptiveLimit`);
5. retryable failures (429, 5xx, timeouts, connection resets) are retried with
   exponential backoff and jitter, honouring Retry-After, at most `retries`
   times and never past the per-request `deadline`; other failures are final;
6. the answer is written to the cache the moment it arrives. Cache calls never wait
   inside SQLite: a sibling process's lock is waited for with `asyncio.sleep`
   (`ResponseCache.a...`), so the loop keeps sending and reading meanwhile.

A key (an item, or one sample of it) is started at most once per process. The
runner knows requests and responses only: which messages to send next is
decided by a callback from the caller. Nothing here raises because of the
server: a call that finally fails is the `error` of its Completion.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import random
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_tom.backends.base import Backend, BackendError, ModelReply, ModelRequest
from pytest_tom.core.bounded import within
from pytest_tom.core.option_table import TomOptions
from pytest_tom.core.outcome import REQUEST_FAILED
from pytest_tom.engine.cache import CachedReply, ResponseCache, request_key

# given the responses so far, the next request of a conversation, or None when done
Conversation = Callable[[list[str]], ModelRequest | None]

THROTTLE_STATUS = 429

# conversations under way at once, per concurrency slot. Thousands are submitted at once;
# started all together, each would build its request, hash its key and look it up and
# claim it in the cache before the event loop sent the first request or read the first
# answer (about a second at 2,000 items). A few per slot keep the slots busy and let the
# rest start in submission order as the first ones finish.
ADMITTED = 2


def is_cacheable(backend: Backend) -> bool:
    """Whether the backend declares that its answers depend on the request alone (safe to
    cache and to share between identical calls): `Backend.cacheable`, never its name."""
    return bool(getattr(backend, "cacheable", False))


@dataclass
class Completion:
    """The model side of one item (or one sample of it): responses in call order, or an error."""

    responses: list[str] = field(default_factory=list)
    error: str | None = None
    error_kind: str | None = None
    usage: dict[str, int] = field(default_factory=dict)  # tokens of calls made in this run
    cached_usage: dict[str, int] = field(default_factory=dict)  # tokens of calls from the cache
    model: str | None = None  # the model the server says answered
    requests: int = 0  # HTTP attempts, retries included
    retries: int = 0
    cached: int = 0  # calls answered by the response cache
    shared: int = 0  # calls answered by an identical call of this run (nothing was cached)
    seconds: float = 0.0
    # (endpoint, answered) of each attempt, when the backend has several endpoints
    attempts: list[tuple[str, bool]] = field(default_factory=list)

    @property
    def final(self) -> str:
        return self.responses[-1] if self.responses else ""


@dataclass
class RunnerStats:
    """Counters for the progress line and the summary (written by the loop thread only)."""

    submitted: int = 0  # conversations started
    done: int = 0  # conversations finished (answered or failed)
    done_cached: int = 0  # finished without any request
    errors: int = 0  # conversations that failed
    requests: int = 0  # HTTP attempts
    cache_hits: int = 0  # calls answered from the response cache
    shared: int = 0  # calls answered by an identical call in flight in this process
    retries: int = 0
    throttled: int = 0  # 429 answers
    waiting: int = 0  # calls waiting for another process's answer right now
    started: float | None = None  # perf_counter of the first submission
    finished: float | None = None  # perf_counter of the latest conversation finished

    def elapsed(self) -> float:
        """Seconds since the first submission; once every conversation is finished, up to
        the last answer (the items may still be scored after it)."""
        if self.started is None:
            return 0.0
        if self.finished is not None and self.done >= self.submitted:
            return self.finished - self.started
        return time.perf_counter() - self.started


class AdaptiveLimit:
    """A semaphore whose size follows the server: cut when 429s pile up, regrown after.

    Time is divided into epochs: an epoch ends when as many requests started
    under the current limit have been answered as the limit allows in flight.
    At its end, if at least two of its answers, and at least a quarter of
    them, were 429, the limit is halved; if none was, it grows by a quarter (at
    least 1) up to the configured maximum; otherwise it stays. Answers to
    requests sent under an earlier limit do not count, so one burst of 429s
    cuts the limit once, not to 1, and a server that refuses a few requests at
    random (not because of the load) keeps the full concurrency. Runs on one
    event loop: no locking needed.
    """

    SHARE = 0.25  # share of 429s in an epoch that cuts the limit
    MIN_THROTTLES = 2

    def __init__(self, maximum: int):
        self.maximum = max(1, maximum)
        self.limit = self.maximum
        self.active = 0
        self.epoch = 0
        self.lowered = 0  # how many times the limit was cut
        self.lowest = self.maximum
        self._answered = 0  # answers to requests of the current epoch
        self._throttles = 0  # ... of which 429
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    async def acquire(self) -> int:
        """Wait for a slot; returns the epoch to pass to `answered`."""
        if self.active < self.limit and not self._waiters:
            self.active += 1
            return self.epoch
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()  # the slot was handed over just before the cancel
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(fut)
            raise
        return self.epoch

    def release(self) -> None:
        self.active -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.active < self.limit:
            fut = self._waiters.popleft()
            if not fut.done():
                self.active += 1
                fut.set_result(None)

    def answered(self, epoch: int, throttled: bool) -> None:
        """A request started in `epoch` got an answer (`throttled`: it was a 429)."""
        if epoch != self.epoch:
            return
        self._answered += 1
        self._throttles += throttled
        if self._answered < self.limit:
            return
        if self._throttles >= self.MIN_THROTTLES and self._throttles >= self.SHARE * self._answered:
            if self.limit > 1:
                self.limit = max(1, self.limit // 2)
                self.lowest = min(self.lowest, self.limit)
                self.lowered += 1
        elif self._throttles == 0 and self.limit < self.maximum:
            self.limit = min(self.maximum, self.limit + max(1, self.limit // 4))
            self._wake()
        self.epoch += 1
        self._answered = self._throttles = 0


class Runner:
    """Concurrent, cached, retried model calls for one process."""

    def __init__(self, backend: Backend, concurrency: int = 16, retries: int = 5,
                 backoff: float = 0.5, max_backoff: float = 30.0, *,
                 cache: ResponseCache | None = None, deadline: float = 600.0,
                 poll: float = 0.05):
        self.backend = backend
        # what the backend can use: one call at a time for a model that is not thread-safe,
        # two batches for a batching one (Backend.in_flight)
        in_flight = getattr(backend, "in_flight", None)
        asked = max(1, concurrency)
        self.concurrency = max(1, in_flight(asked) if in_flight is not None else asked)
        self.retries = max(0, retries)
        self.backoff = max(0.0, backoff)
        self.max_backoff = max_backoff
        self.deadline = deadline if deadline and deadline > 0 else 600.0
        self.poll = poll
        self.cacheable = is_cacheable(backend)
        self.cache = cache if (cache is not None and self.cacheable and cache.mode != "off") else None
        self._identity = backend.identity() if self.cacheable else {}
        self.stats = RunnerStats()
        self.limiter = AdaptiveLimit(self.concurrency)
        self.failures: list[tuple[str, str]] = []  # (key, error) of conversations that failed
        self._futures: dict[str, Future[Completion]] = {}
        # submitted, not started yet: (future, key, conversation, sample), see `submit`
        self._queued: list[tuple[Future[Completion], str, Conversation, int]] = []
        self._tasks: set[asyncio.Task[None]] = set()  # started, not finished (for `close`)
        # keys whose completion the caller took (`forget`): a large run holds no future,
        # task or completion per item once its item is scored (issue 24: bounded memory)
        self._taken: set[str] = set()
        self._inflight: dict[str, asyncio.Future[tuple[ModelReply, bool]]] = {}
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        # conversations past their start at once (created in the loop, at the first one)
        self._admission: asyncio.Semaphore | None = None

    @classmethod
    def from_options(cls, backend: Backend, options: TomOptions, rootdir: str | Path) -> Runner:
        """The runner a pytest-tom session asks for (`options`: resolved --tom-* values)."""
        mode = options.cache or "on"
        cache = None
        if mode != "off" and is_cacheable(backend):
            cache = ResponseCache(cache_dir(options, rootdir), mode=mode,
                                  stale_after=options.deadline + 60.0)
        return cls(backend, concurrency=options.concurrency, retries=options.retries,
                   backoff=options.backoff, cache=cache, deadline=options.deadline)

    # -- loop management ---------------------------------------------------------------
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise RuntimeError("the runner is closed")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                loop.set_default_executor(ThreadPoolExecutor(max_workers=self.concurrency,
                                                             thread_name_prefix="tom-call"))
                self._thread = threading.Thread(target=loop.run_forever, name="tom-runner",
                                                daemon=True)
                self._thread.start()
                self._loop = loop
            return self._loop

    def close(self) -> None:
        """Stop: cancel what is still in flight, close the backend and the cache."""
        with self._lock:
            self._closed = True
            loop, self._loop = self._loop, None
            pending = [f for f in self._futures.values() if not f.done()]
        if loop is not None:
            for fut in pending:
                fut.cancel()
            with contextlib.suppress(RuntimeError):  # the loop may be closed already
                loop.call_soon_threadsafe(_cancel_all, self._tasks)
            with contextlib.suppress(Exception):  # closing must never fail the session
                asyncio.run_coroutine_threadsafe(self.backend.aclose(), loop).result(timeout=10)
            loop.call_soon_threadsafe(loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=10)
            if not loop.is_running():
                loop.close()
        if self.cache is not None:
            self.cache.close()

    # -- public API ----------------------------------------------------------------------
    def submit(self, key: str, conversation: Conversation, sample: int = 0) -> Future[Completion]:
        """Start the conversation for `key` unless it is already started; never twice.

        `sample` is the sample index (0 unless --tom-samples > 1): part of the cache key.

        The conversations submitted while the loop is busy are started together by one
        callback (`_start_queued`): a run submits thousands at once, and one wake-up of
        the loop per conversation (`asyncio.run_coroutine_threadsafe`) was a visible share
        of a run's CPU at latency 0.
        """
        fut = self._futures.get(key)
        if fut is not None:
            return fut
        loop = self._ensure_loop()
        with self._lock:
            fut = self._futures.get(key)
            if fut is None:
                if self.stats.started is None:
                    self.stats.started = time.perf_counter()
                self.stats.submitted += 1
                if self._idle.is_set():
                    self._idle.clear()
                fut = Future()
                self._futures[key] = fut
                self._queued.append((fut, key, conversation, sample))
                if len(self._queued) == 1:
                    loop.call_soon_threadsafe(self._start_queued)
        return fut

    def _start_queued(self) -> None:
        """In the loop: a task for each conversation submitted since the last call, which
        settles its `Future` itself (one not cancelled meanwhile by `close`)."""
        with self._lock:
            queued, self._queued = self._queued, []
        loop = asyncio.get_running_loop()
        for fut, key, conversation, sample in queued:
            if not fut.cancelled():
                task = loop.create_task(self._settle(fut, self._run(key, conversation, sample)))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _settle(fut: Future[Completion], run: Coroutine[Any, Any, Completion]) -> None:
        try:
            comp = await run
        except BaseException as exc:  # cancelled by `close` (or a bug): the waiter wakes up
            with contextlib.suppress(InvalidStateError):  # unless `close` cancelled it first
                fut.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
        else:
            with contextlib.suppress(InvalidStateError):  # cancelled meanwhile by `close`
                fut.set_result(comp)

    def submitted(self, key: str) -> bool:
        return key in self._futures or key in self._taken

    def forget(self, keys: list[str]) -> None:
        """The caller has the finished completions of `keys` and keeps what it needs: drop
        them here. A key forgotten and submitted again (a plugin that runs an item twice)
        starts a new conversation (answered by the cache when it is on)."""
        with self._lock:
            for key in keys:
                fut = self._futures.get(key)
                if fut is not None and fut.done():
                    del self._futures[key]
                    self._taken.add(key)

    def done(self, key: str) -> bool:
        """Whether the conversation of `key` was started and is finished (never blocks)."""
        fut = self._futures.get(key)
        return (fut is not None and fut.done()) or key in self._taken

    def result(self, key: str, conversation: Conversation, sample: int = 0) -> Completion:
        return self.submit(key, conversation, sample).result()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every submitted conversation is finished (True) or `timeout` passes."""
        return self._idle.wait(timeout)

    @property
    def cache_problem(self) -> str | None:
        """Why the cache was turned off during this run (one line), or None."""
        return self.cache.problem if self.cache is not None else None

    @property
    def pending(self) -> int:
        return self.stats.submitted - self.stats.done

    # -- one conversation ------------------------------------------------------------
    async def _run(self, key: str, conversation: Conversation, sample: int) -> Completion:
        if self._admission is None:
            self._admission = asyncio.Semaphore(ADMITTED * self.concurrency)
        async with self._admission:
            return await self._converse(key, conversation, sample)

    async def _converse(self, key: str, conversation: Conversation, sample: int) -> Completion:
        comp = Completion()
        start = time.perf_counter()
        try:
            while True:
                request = conversation(comp.responses)
                if request is None:
                    break
                reply, cached = await self._call(request, comp, sample)
                comp.responses.append(reply.text)
                if reply.model:
                    comp.model = reply.model
                into = comp.cached_usage if cached else comp.usage
                for k, v in (reply.usage or {}).items():
                    into[k] = into.get(k, 0) + int(v or 0)
        except BackendError as exc:
            comp.error, comp.error_kind = str(exc), exc.kind
        except asyncio.CancelledError:
            comp.error, comp.error_kind = "cancelled (the run was stopped)", REQUEST_FAILED
            self._finish(key, comp, start)
            raise
        except BaseException as exc:  # the run never crashes because of a model call:
            # a third-party backend's SystemExit or KeyboardInterrupt is an error of this item
            comp.error, comp.error_kind = f"{type(exc).__name__}: {exc}", REQUEST_FAILED
        self._finish(key, comp, start)
        return comp

    def _finish(self, key: str, comp: Completion, start: float) -> None:
        comp.seconds = time.perf_counter() - start
        st = self.stats
        if comp.error:
            st.errors += 1
            self.failures.append((key, comp.error))
        elif comp.requests == 0:
            st.done_cached += 1  # no request of its own (cache or shared): not in the pace
        st.done += 1
        st.finished = time.perf_counter()
        if st.done >= st.submitted:
            self._idle.set()

    # -- one call --------------------------------------------------------------------
    async def _call(self, request: ModelRequest, comp: Completion,
                    sample: int) -> tuple[ModelReply, bool]:
        """(reply, came without a request of ours)."""
        if not self.cacheable:
            return await self._fetch(request, comp), False
        key = request_key(self._identity, request.messages, request.params.to_dict(), sample)
        cache = self.cache
        if cache is not None and cache.readable:
            hit = await cache.aget(key)
            if hit is not None:
                return self._hit(comp, ModelReply(text=hit.text, usage=hit.usage, model=hit.model))
        shared = self._inflight.get(key)
        if shared is not None:  # the same call is in flight for another item: share it
            reply, _ = await asyncio.shield(shared)
            comp.shared += 1
            self.stats.shared += 1
            return reply, True
        fut: asyncio.Future[tuple[ModelReply, bool]] = asyncio.get_running_loop().create_future()
        self._inflight[key] = fut
        try:
            result = await self._fetch_shared(request, comp, key)
        except BaseException as exc:
            fut.set_exception(exc if isinstance(exc, Exception) else BackendError("cancelled"))
            fut.exception()  # mark retrieved: nobody else may be waiting
            raise
        else:
            fut.set_result(result)
            return result
        finally:
            self._inflight.pop(key, None)

    def _hit(self, comp: Completion, reply: ModelReply) -> tuple[ModelReply, bool]:
        comp.cached += 1
        self.stats.cache_hits += 1
        return reply, True

    async def _fetch_shared(self, request: ModelRequest, comp: Completion,
                            key: str) -> tuple[ModelReply, bool]:
        """Request `key` unless another process is already asking; cache the answer."""
        cache = self.cache
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.deadline
        if cache is not None and cache.coordinating:
            hit = await self._claim(cache, key, deadline)
            if hit is not None:
                return self._hit(comp, ModelReply(hit.text, hit.usage, hit.model))
        try:
            reply = await self._fetch(request, comp)
        except BaseException as exc:
            if cache is not None:
                if isinstance(exc, asyncio.CancelledError):
                    cache.release(key)  # at once: the run is stopping (no await here)
                else:
                    await cache.arelease(key)
            raise
        if cache is not None:  # a sibling's lock is waited for without stopping the loop
            if cache.writable:
                await cache.aput(key, reply.text, reply.usage, reply.model)
            else:
                await cache.arelease(key)
        return reply, False

    async def _claim(self, cache: ResponseCache, key: str, deadline: float) -> CachedReply | None:
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

    async def _fetch(self, request: ModelRequest, comp: Completion) -> ModelReply:
        """The request itself: a slot, the call, retries with backoff until the deadline.

        The deadline runs from the moment the call first holds a concurrency slot: time
        spent queued behind other items (thousands are submitted at once) does not count.
        A final failure says what happened at each attempt (`attempts_error`).
        """
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        history: list[BackendError] = []
        while True:
            if deadline is not None and deadline - loop.time() <= 0:
                raise attempts_error(history, f"no answer within the deadline of "
                                     f"{self.deadline:g}s (--tom-deadline)", request)
            epoch = await self.limiter.acquire()
            if deadline is None:
                deadline = loop.time() + self.deadline
            comp.requests += 1
            self.stats.requests += 1
            started = loop.time()
            try:
                reply = await within(self.backend.acomplete(request),
                                     max(0.001, deadline - loop.time()))
            except asyncio.TimeoutError:
                if request.asked_at:  # a pool's endpoint was asked: the attempt counts there
                    comp.attempts.append((request.asked_at, False))
                took = loop.time() - started
                history.append(BackendError(f"stopped by the deadline after "
                                            f"{took:.{1 if took < 10 else 0}f}s", timed_out=True))
                raise attempts_error(history, f"no answer within the deadline of "
                                     f"{self.deadline:g}s (--tom-deadline)", request) from None
            except BackendError as exc:
                error = exc
                if exc.endpoint:
                    comp.attempts.append((exc.endpoint, False))
            else:
                if reply.endpoint:
                    comp.attempts.append((reply.endpoint, True))
                self.limiter.answered(epoch, throttled=False)
                return reply
            finally:
                self.limiter.release()
            history.append(error)
            self.limiter.answered(epoch, throttled=error.status == THROTTLE_STATUS)
            if error.status == THROTTLE_STATUS:
                self.stats.throttled += 1
            if not error.retryable:
                raise attempts_error(history, None, request)
            if len(history) > self.retries:
                raise attempts_error(history, "gave up", request)
            delay = self._delay(len(history) - 1, error.retry_after)
            if loop.time() + delay > deadline:
                raise attempts_error(history, f"a retry in {delay:.1f}s would pass the deadline "
                                     f"of {self.deadline:g}s (--tom-deadline)", request)
            comp.retries += 1
            self.stats.retries += 1
            await asyncio.sleep(delay)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        """Retry-After when the server gives one (plus up to 10% jitter), else exponential
        backoff with full jitter in [0.5, 1.5) of base * 2**attempt, capped at max_backoff."""
        if retry_after is not None and retry_after >= 0:
            return retry_after * (1.0 + 0.1 * random.random())
        return min(self.max_backoff, self.backoff * 2**attempt) * (0.5 + random.random())


def _cancel_all(tasks: set[asyncio.Task[None]]) -> None:
    """In the loop, at `close`: cancel every conversation still running (their futures
    are cancelled already; a cancelled conversation ends as an error of its item)."""
    for task in list(tasks):
        task.cancel()


def attempts_error(history: list[BackendError], why: str | None,
                   request: ModelRequest) -> BackendError:
    """The final error of a call, saying what happened at each attempt.

    One attempt: its own message (plus `why`). Several: `gave up after 3 attempts:
    1 HTTP 503 · 2 timed out after 120s ...`. When an attempt timed out, the likely
    cause and the options that help are named: a model that writes a very long answer
    (lower --tom-max-tokens) or a slow server (raise --tom-timeout).
    """
    if not history:
        return BackendError(why or "no attempt was made")
    last = history[-1]
    if len(history) == 1:
        text = str(last) if why is None else f"{last} ({why})"
    else:
        runs: list[tuple[int, int, str]] = []  # (first, last attempt, message), runs merged
        for i, e in enumerate(history, 1):
            if runs and runs[-1][2] == str(e):
                runs[-1] = (runs[-1][0], i, str(e))
            else:
                runs.append((i, i, str(e)))
        if len(runs) == 1:
            steps = "the same each time"
        else:
            steps = " · ".join(f"{a}{'' if a == b else f'-{b}'}: {m}" for a, b, m in runs)
        text = f"{last} ({why or 'failed'} after {len(history)} attempts: {steps})"
    if any(e.timed_out for e in history):
        limit = request.params.max_tokens
        length = f"max_tokens {limit}" if limit is not None else "no max_tokens"
        text += (f"; a timeout often means a very long answer ({length}): lower "
                 f"--tom-max-tokens; or a server that answers one request at a time: lower "
                 f"--tom-concurrency, or raise --tom-timeout")
    return BackendError(text, kind=last.kind, status=last.status,
                        timed_out=any(e.timed_out for e in history))


def cache_dir(options: TomOptions, rootdir: str | Path) -> Path:
    """`--tom-cache-dir` (relative to the rootdir), default `<rootdir>/.tom_cache`."""
    raw = options.cache_dir or ".tom_cache"
    path = Path(raw).expanduser()
    return path if path.is_absolute() else Path(rootdir) / path
