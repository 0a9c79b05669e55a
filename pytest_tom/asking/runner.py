"""The runner: one per process, it makes the model calls of the items.

It owns an asyncio event loop in a background thread and hands each item its
`Completion` (every response of its conversation, or an error). The runner keeps the
loop, the admission of conversations and requests, and the bookkeeping; each call of a
conversation goes through two small layers, each decided once when the runner is made:

- the cached-call layer (`asking/cached_call.CachedCalls`, for a backend whose answers
  depend on the request alone): the response cache is asked first, an identical call
  in flight is shared, the call is claimed in the cache so that another process waits
  for this answer instead of asking too, and the answer is stored the moment it arrives;
- the retry policy (`asking/retry_policy.RetryPolicy`): each attempt holds one of the
  runner's slots, retryable failures are retried with backoff and Retry-After, never
  past the per-call deadline.

Admission: at most `concurrency` requests are in flight, fewer while the server keeps
answering 429 or its connections are not made in time (`AdaptiveLimit`, the slots); a
server backend's run (`BackendAbilities.server`) starts with RAMP_START requests in
flight and adds one per answer (each new slot is a new connection: they are opened a few
at a time, more as they succeed), and a few conversations per slot are under way at once
(`ADMITTED`); a backend that answers batches gets the calls in flight
together (`BackendAbilities.in_flight`). What the backend can do is read once, from its
`abilities`, when the runner is made; no call asks the backend anything but `acomplete`.

With a readable cache, the first calls of the conversations submitted together are read
from it together before their tasks start (`Runner._read_ahead`); a conversation the cache
answers to its end needs no task at all (a fully cached rerun: issue 47).

A key (an item, or one sample of it) is started at most once per process. The
runner knows requests and responses only: which messages to send next is
decided by a callback from the caller. Nothing here raises because of the
server: a call that finally fails is the `error` of its Completion, a `CallError` made
once here from the call's final exception and carried as it is into the item's outcome.
The replies are kept as the backend (or the cache) gave them (`Completion.replies`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import InvalidStateError, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_tom.asking.cache import ResponseCache
from pytest_tom.asking.cached_call import CachedCalls, open_cache
from pytest_tom.asking.completion import CallError, Completion, RunnerStats
from pytest_tom.asking.early_stop import EarlyStop, NotAsked, rules_for
from pytest_tom.asking.reasoning import raise_text
from pytest_tom.asking.retry_policy import THROTTLE_STATUS, RetryPolicy, Slots
from pytest_tom.backends.base import Backend, BackendError, ModelReply, ModelRequest
from pytest_tom.core.bounded import within
from pytest_tom.core.interruptible import Latch, LatchedFuture, in_loop, result_of
from pytest_tom.core.option_table import TomOptions

# given the responses so far, the next request of a conversation, or None when done
Conversation = Callable[[list[str]], ModelRequest | None]

# conversations under way at once, per concurrency slot. Thousands are submitted at once;
# started all together, each would build its request, hash its key and look it up and
# claim it in the cache before the event loop sent the first request or read the first
# answer (about a second at 2,000 items). A few per slot keep the slots busy and let the
# rest start in submission order as the first ones finish.
ADMITTED = 2
# conversations whose first calls are read from the cache together (`Runner._read_ahead`):
# one query for them all, and the loop's other work between two such reads
READ_AHEAD = 256
# requests in flight at the start of a server backend's run (`BackendAbilities.server`) that
# does not open its connections itself (`opens_connections`: openai:'s connection gate):
# each slot past them opens once an answer came (`AdaptiveLimit`'s ramp). A freshly started
# server with a listen backlog of 5 (cpp-httplib's default, Python's http.server's) drops
# the handshakes of connections opened all at once beyond it
RAMP_START = 4
# seconds the first conversations wait for the backend to get ready (`Backend.warm`) before
# their calls start on their own: a process start, not a model's answer
WARM_WAIT = 30.0


class AdaptiveLimit:
    """A semaphore whose size follows the server: ramped up, cut when 429s pile up, regrown.

    With `start` below the maximum it begins there and ramps up: every answer adds one slot
    (doubling per round of answers) until the maximum, the first 429 or the first connection
    not made in time. For a server each slot beyond those already used is a new connection:
    they are opened a few at a time, more as they succeed, rather than all at once.

    Time is divided into epochs: an epoch ends when as many requests started
    under the current limit have been answered as the limit allows in flight.
    At its end, if at least two of its answers, and at least a quarter of
    them, were 429, the limit is halved; if none was, it grows by a quarter (at
    least 1) up to the configured maximum; otherwise it stays. Answers to
    requests sent under an earlier limit do not count, so one burst of 429s
    cuts the limit once, not to 1, and a server that refuses a few requests at
    random (not because of the load) keeps the full concurrency. A connection not made
    in time (`connect_failed`) counts in an epoch as a 429 does. Runs on one event loop:
    no locking needed.
    """

    SHARE = 0.25  # share of 429s in an epoch that cuts the limit
    RAMP_STEP = 1  # slots added per answer while ramping up: the limit doubles per round
    MIN_THROTTLES = 2

    def __init__(self, maximum: int, start: int | None = None):
        self.maximum = max(1, maximum)
        self.limit = self.maximum if start is None else max(1, min(start, self.maximum))
        self.ramping = self.limit < self.maximum  # one more slot per answer
        self.cut_for: list[str] = []  # what cut the limit: "429s", "failed connects"
        self._connects = 0  # connections of the current epoch not made in time
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

    @property
    def why_lower(self) -> str:
        """Why the limit is below the maximum, in a few words (for the requests line)."""
        if self.ramping:
            return "ramping up"
        return " and ".join(self.cut_for) or "ramping up"

    def answered(self, epoch: int, throttled: bool) -> None:
        """A request started in `epoch` got an answer (`throttled`: it was a 429)."""
        if self.ramping:
            if throttled:
                self.ramping = False
            else:
                self.limit = min(self.maximum, self.limit + self.RAMP_STEP)
                self.ramping = self.limit < self.maximum
                self._wake()
        self._settle(epoch, throttled)

    def connect_failed(self, epoch: int) -> None:
        """An attempt started in `epoch` got no connection in time: the server is crowded
        with connections (a full listen queue). The ramp stops; in an epoch it counts as a
        429 does."""
        self.ramping = False
        self._connects += epoch == self.epoch
        self._settle(epoch, True)

    def _settle(self, epoch: int, throttled: bool) -> None:
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
                why = "429s" if self._throttles > self._connects else "failed connects"
                if why not in self.cut_for:
                    self.cut_for.append(why)
        elif self._throttles == 0 and self.limit < self.maximum:
            self.limit = min(self.maximum, self.limit + max(1, self.limit // 4))
            self.ramping = self.ramping and self.limit < self.maximum
            self._wake()
        self.epoch += 1
        self._answered = self._throttles = self._connects = 0


class Runner:
    """Concurrent, cached, retried model calls for one process."""

    def __init__(self, backend: Backend, concurrency: int = 16, retries: int = 5,
                 backoff: float = 0.5, max_backoff: float = 30.0, *,
                 cache: ResponseCache | None = None, deadline: float = 600.0,
                 poll: float = 0.05, retry: RetryPolicy | None = None,
                 early_stop: EarlyStop | None = None, cut_off: str | None = None,
                 cut_off_shown: str | None = None):
        """`retry`: the retry policy (default: one of `retries`, `backoff`, `max_backoff`
        and `deadline`); `cache`: the response cache, used when the backend is cacheable;
        `poll`: how often an answer asked by another process is looked for; `early_stop`:
        the rules that stop the run early (default: those of the backend, `rules_for`, with
        the cut-off rule when `cut_off` says what to raise, `cut_off_shown` once a reply
        showed a thought)."""
        self.backend = backend
        self.abilities = abilities = backend.abilities  # read once: what the backend can do
        # what the backend can use: one call at a time for a model that is not thread-safe,
        # two batches for a batching one (BackendAbilities.in_flight)
        self.concurrency = max(1, abilities.in_flight(max(1, concurrency)))
        self.retry = retry or RetryPolicy(retries, backoff, max_backoff, deadline)
        self.stats = RunnerStats()
        # a server's connections are ramped up (RAMP_START) unless the backend opens them a
        # few at a time itself (`opens_connections`); an in-process model has none
        ramp = RAMP_START if abilities.server and not abilities.opens_connections else None
        self.limiter = AdaptiveLimit(self.concurrency, ramp)
        # the first requests watched: a rule may stop the run (asking/early_stop.py); from
        # then on no attempt starts (its slot is refused)
        self.early_stop = early_stop if early_stop is not None else EarlyStop(rules_for(
            abilities.server, abilities.endpoints, cut_off, cut_off_shown))
        send: Any = backend.acomplete
        slots: Slots = self.limiter
        if self.early_stop.rules:
            slots = StopGate(self.limiter, self.early_stop)
            if self.early_stop.watches_attempts:
                send = self._watched_send
        # one call, however it is answered: the request under the retry policy ...
        self._ask = functools.partial(self.retry.call, send, slots, self.stats)
        # ... behind the cache and the sharing of identical calls when the answers allow it
        self.calls: CachedCalls | None = None
        if abilities.cacheable:
            self.calls = CachedCalls(backend.identity(), self._ask, self.stats, cache=cache,
                                     deadline=self.retry.deadline, poll=poll)
        self.failures: list[tuple[str, CallError]] = []  # (key, error) of conversations that failed
        self._futures: dict[str, LatchedFuture[Completion]] = {}
        # submitted, not started yet: (future, key, conversation, sample), see `submit`
        self._queued: list[Queued] = []
        self._tasks: set[asyncio.Task[None]] = set()  # started, not finished (for `close`)
        # keys whose completion the caller took (`forget`): a large run holds no future,
        # task or completion per item once its item is scored (issue 24: bounded memory)
        self._taken: set[str] = set()
        self._lock = threading.Lock()
        self._idle = True  # every submitted conversation finished (under _lock)
        self._idle_waiters: list[Latch] = []  # `wait_idle`: opened when the runner is idle
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        # `Backend.warm`, started with the first conversations (`_start_queued`) or earlier
        # (`warm_up`); each conversation waits for it before its first call, so that no
        # deadline counts it
        self._warming: asyncio.Task[None] | None = None
        self._closed = False
        self._stopped = False  # `stop`: nothing more is started
        # admission (`_start`, `_admit_next`): conversations under way (each a task) and
        # those waiting for their turn, in submission order; a waiting one is no task yet
        self._under_way = 0
        self._waiting: collections.deque[Waiting] = collections.deque()

    @classmethod
    def from_options(cls, backend: Backend, options: TomOptions, rootdir: str | Path) -> Runner:
        """The runner a pytest-tom session asks for (`options`: resolved --tom-* values)."""
        # a sweep asks its small values on purpose: an all cut-off value is a figure, not waste
        stops = (options.early_stop == "on" and options.sweep is None
                 and not backend.abilities.recorded)
        return cls(backend, concurrency=options.concurrency,
                   cache=open_cache(backend, options, rootdir),
                   retry=RetryPolicy.from_options(options),
                   cut_off=raise_text(options) if stops else None,
                   cut_off_shown=raise_text(options, shown=True) if stops else None)

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

    def warm_up(self) -> None:
        """Get the backend ready now, before any conversation is submitted: the plugin
        calls it when collection reaches the first suite file, so that openai:'s request
        process starts while pytest collects rather than after (`WarmUpAtCollection`)."""
        self._ensure_loop().call_soon_threadsafe(self._start_warming)

    def _start_warming(self) -> None:
        """In the loop: the warm-up task, once (the first conversations or `warm_up`)."""
        if self._warming is None and not self._closed:
            self._warming = asyncio.get_running_loop().create_task(self._warm())

    async def _warm(self) -> None:
        """The backend gets ready (openai:'s request process) while the caller goes on
        building and submitting its requests; at most WARM_WAIT seconds are waited for."""
        if self.abilities.warms:
            with contextlib.suppress(Exception):  # the first request finds any problem
                await within(self.backend.warm(), WARM_WAIT)

    def stop(self, timeout: float = 10.0) -> None:
        """Ask nothing more (the run ended before its items did: Ctrl-C, -x, an early stop):
        cancel every conversation not finished and wait until they have ended, so that the
        counts read after it (the requests line, the requests section) are final and agree.
        The loop stays for `close`; a conversation submitted later is cancelled at once."""
        with self._lock:
            self._stopped = True
            loop = self._loop
        if loop is None or self._closed:
            return
        with contextlib.suppress(Exception):  # stopping must never fail the session
            result_of(in_loop(loop, self._cancel_running), timeout)

    async def _cancel_running(self) -> None:
        self._drop_waiting()
        tasks = [t for t in self._tasks if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    def close(self) -> None:
        """Stop: cancel what is still in flight, close the backend and the cache."""
        with self._lock:
            self._closed = True
            loop, self._loop = self._loop, None
            pending = [f for f in self._futures.values() if not f.finished]
        if loop is not None:
            for fut in pending:
                fut.cancel()
            with contextlib.suppress(RuntimeError):  # the loop may be closed already
                loop.call_soon_threadsafe(self._cancel_all)
            with contextlib.suppress(Exception):  # closing must never fail the session
                result_of(in_loop(loop, self.backend.aclose), 10)
            loop.call_soon_threadsafe(loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=10)
            if not loop.is_running():
                loop.close()
        if self.calls is not None:
            self.calls.close()

    # -- public API ----------------------------------------------------------------------
    def submit(self, key: str, conversation: Conversation,
               sample: int = 0) -> LatchedFuture[Completion]:
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
                self._idle = False
                fut = LatchedFuture()
                self._futures[key] = fut
                self._queued.append((fut, key, conversation, sample))
                if len(self._queued) == 1:
                    loop.call_soon_threadsafe(self._start_queued)
        return fut

    def started(self, key: str) -> LatchedFuture[Completion] | None:
        """The future of the conversation submitted for `key` (and not forgotten), or None."""
        return self._futures.get(key)

    def _start_queued(self) -> None:
        """In the loop: a task for each conversation submitted since the last call, which
        settles its `LatchedFuture` itself (one not cancelled meanwhile by `close`). With a
        readable cache their first calls are read from it together first (`_read_ahead`)."""
        with self._lock:
            queued, self._queued = self._queued, []
        if not queued:
            return
        if self.calls is not None and self.calls.reads_ahead and not self._stopped:
            self._track(asyncio.get_running_loop().create_task(self._read_ahead(queued)))
            return
        self._start_warming()
        for fut, key, conversation, sample in queued:
            if not fut.cancelled():
                self._start(fut, key, conversation, sample)

    def _start(self, fut: LatchedFuture[Completion], key: str, conversation: Conversation,
               sample: int, ahead: Ahead | None = None) -> None:
        """In the loop: the task of one conversation (from where `ahead` left it), or its
        place in the queue while ADMITTED per slot are under way; none once the runner
        stopped (its future ends cancelled, never started).

        Thousands are submitted at once: a task each, most of them waiting at once for
        their turn, cost a task step, a waiter and a wake-up more per conversation (a few
        µs of the runner's CPU per request at latency 0); a waiting conversation is kept
        as its arguments instead, and its task made when its turn comes (`_admit_next`).

        No task is made once `stop` set `_stopped`: `_cancel_running` cancels the tasks
        that exist when it runs, and a task cancelled before its first step never runs
        `_settle`, so its future would never be settled (`_read_ahead` comes here after
        awaiting the cache, possibly after the stop)."""
        if self._stopped:
            fut.cancel()
        elif self._under_way < ADMITTED * self.concurrency and not self._waiting:
            self._under_way += 1
            self._track(asyncio.get_running_loop().create_task(
                self._settle(fut, self._run(key, conversation, sample, ahead))))
        else:
            self._waiting.append((fut, key, conversation, sample, ahead))

    def _admit_next(self) -> None:
        """In the loop: a conversation ended; the next one waiting starts (none once the
        runner stopped or closed: those still waiting end cancelled)."""
        self._under_way -= 1
        if not self._waiting:
            return
        if self._stopped or self._closed:
            self._drop_waiting()
            return
        fut, key, conversation, sample, ahead = self._waiting.popleft()
        self._under_way += 1
        self._track(asyncio.get_running_loop().create_task(
            self._settle(fut, self._run(key, conversation, sample, ahead))))

    def _drop_waiting(self) -> None:
        """In the loop, at `stop` or `close`: the conversations waiting for their turn end
        cancelled, never started and counted nowhere, as those submitted after the stop
        (a conversation cut short under way ends with `asyncio.CancelledError` instead)."""
        waiting, self._waiting = self._waiting, collections.deque()
        for fut, _key, _conversation, _sample, _ahead in waiting:
            fut.cancel()  # False, harmlessly, when `close` cancelled it first

    def _cancel_all(self) -> None:
        """In the loop, at `close`: cancel every conversation still running or waiting
        (their futures are cancelled already; a cancelled conversation ends as an error of
        its item)."""
        self._drop_waiting()
        for task in list(self._tasks):
            task.cancel()

    def _track(self, task: asyncio.Task[None]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _read_ahead(self, queued: list[Queued]) -> None:
        """In the loop: the first calls of `queued` read from the cache together, READ_AHEAD
        conversations at a time (`CachedCalls.read_ahead`: a few queries, not one per call).

        A fully cached rerun reads every item's answer from the cache: one query, one task
        and one wake-up of the loop per item were most of its request side. A conversation
        the cache answers to its end is settled here, without a task, counted as the task
        would count it; the others start as tasks from where the cache left them (a first
        call not found is asked without reading the cache again)."""
        done = 0
        try:
            while done < len(queued):
                chunk = queued[done:done + READ_AHEAD]
                firsts: list[tuple[Queued, Ahead]] = []
                for entry in chunk:
                    fut, _key, conversation, _sample = entry
                    if self._stopped:
                        fut.cancel()
                    elif not fut.cancelled():
                        firsts.append((entry, self._first_call(conversation)))
                asking = [(ahead.request, entry[3]) for entry, ahead in firsts
                          if isinstance(ahead.request, ModelRequest)]
                found = iter(await self._look_up(asking))
                for (fut, key, conversation, sample), ahead in firsts:
                    try:
                        if isinstance(ahead.request, ModelRequest):
                            cache_key, reply = next(found)
                            if reply is None:
                                ahead.looked = cache_key
                            else:
                                self._cached_first(ahead, reply, conversation)
                    except Exception as exc:  # noqa: BLE001 as in `_converse`: its error
                        ahead.comp.error = CallError.of(exc)
                        ahead.request = None
                    if ahead.request is None:  # answered to its end by the cache (or failed)
                        self._finish(key, ahead.comp, ahead.start, suite=ahead.suite,
                                     budget=ahead.budget)
                        with contextlib.suppress(InvalidStateError):  # cancelled by `close`
                            fut.set_result(ahead.comp)
                    else:
                        self._start_warming()
                        self._start(fut, key, conversation, sample, ahead)
                done += len(chunk)
                if done < len(queued):
                    await asyncio.sleep(0)  # the loop's other work between two reads
        except asyncio.CancelledError:  # `stop` or `close`: nothing of the rest is started
            for fut, _key, _conversation, _sample in queued[done:]:
                fut.cancel()
            raise

    async def _look_up(self, calls: list[tuple[ModelRequest, int]]
                       ) -> list[tuple[str | None, ModelReply | None]]:
        """(cache key, stored reply) of each call; nothing found, and no key, when reading
        fails (each call then reads the cache itself, as without the read-ahead)."""
        if not calls or self.calls is None:
            return [(None, None)] * len(calls)
        try:
            return list(await self.calls.read_ahead(calls))
        except Exception:  # noqa: BLE001 the calls go on as without the read-ahead
            return [(None, None)] * len(calls)

    def _first_call(self, conversation: Conversation) -> Ahead:
        """A conversation's first request, to be read ahead (`BUILD` when building it
        raised: its task builds it again and ends with the error, as any conversation)."""
        ahead = Ahead(Completion(), time.perf_counter())
        try:
            request = conversation([])
        except Exception:  # noqa: BLE001 the task meets it again and records it
            return ahead
        ahead.request = request
        if request is not None and request.item is not None:
            ahead.suite = request.item.suite
            if self.early_stop.suite_stop(ahead.suite):
                ahead.request = BUILD  # its task ends it as not asked
        return ahead

    def _cached_first(self, ahead: Ahead, reply: ModelReply, conversation: Conversation
                      ) -> None:
        """The cache answered the first call of `ahead`: taken as `_converse` takes a reply;
        then its next request (None: the conversation is over)."""
        request = ahead.request
        assert isinstance(request, ModelRequest) and self.calls is not None
        ahead.budget = request.params.max_tokens
        ahead.comp.sent.append(request.messages)
        self.calls.hit(ahead.comp)
        _took(ahead.comp, reply, cached=True)
        if reply.cut_in_thought:
            ahead.request = None
            return
        try:
            ahead.request = conversation(ahead.comp.responses)
        except Exception:  # noqa: BLE001 the task meets it again and records it
            ahead.request = BUILD

    @staticmethod
    async def _settle(fut: LatchedFuture[Completion], run: Coroutine[Any, Any, Completion]) -> None:
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
                if fut is not None and fut.finished:
                    del self._futures[key]
                    self._taken.add(key)

    def done(self, key: str) -> bool:
        """Whether the conversation of `key` was started and is finished (never blocks)."""
        fut = self._futures.get(key)
        return (fut is not None and fut.finished) or key in self._taken

    def result(self, key: str, conversation: Conversation, sample: int = 0) -> Completion:
        return result_of(self.submit(key, conversation, sample))

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every submitted conversation is finished (True) or `timeout` passes
        (a latch, not an Event: Ctrl-C meanwhile ends the run, see core/interruptible)."""
        with self._lock:
            if self._idle:
                return True
            latch = Latch()
            self._idle_waiters.append(latch)
        if latch.wait(timeout):
            return True
        with self._lock:
            if latch in self._idle_waiters:
                self._idle_waiters.remove(latch)
        return False

    @property
    def cache_problem(self) -> str | None:
        """Why the cache was turned off during this run (one line), or None."""
        return self.calls.problem if self.calls is not None else None

    @property
    def pending(self) -> int:
        return self.stats.submitted - self.stats.done

    @property
    def stop_reason(self) -> str | None:
        """Why this runner stopped asking (an early-stop rule fired), or None."""
        return self.early_stop.reason

    def suite_stop(self, suite: str) -> str | None:
        """Why this runner stopped asking for suite `suite`'s items, or None."""
        return self.early_stop.suite_stop(suite)

    async def _watched_send(self, request: ModelRequest) -> ModelReply:
        """One attempt, told to the early-stop rules (answered, or its error) while some
        rule still reads attempts (`EarlyStop.listening`: until the first answer)."""
        if not self.early_stop.listening:
            return await self.backend.acomplete(request)
        item = request.item
        key = f"{item.suite}::{item.id}" if item is not None else str(id(request))
        try:
            reply = await self.backend.acomplete(request)
        except BackendError as exc:
            if exc.status != THROTTLE_STATUS:  # a 429 is a server that is there, asking for patience
                self.early_stop.attempt(key, str(exc), exc.endpoint)
            raise
        self.early_stop.attempt(key, None)
        return reply

    # -- one conversation ------------------------------------------------------------
    async def _run(self, key: str, conversation: Conversation, sample: int,
                   ahead: Ahead | None = None) -> Completion:
        """One admitted conversation (`_start`); its end lets the next one start."""
        try:
            return await self._converse(key, conversation, sample, ahead)
        finally:
            self._admit_next()

    async def _converse(self, key: str, conversation: Conversation, sample: int,
                        ahead: Ahead | None = None) -> Completion:
        """One conversation to its end, from its start or from where `_read_ahead` left it
        (`ahead`: its completion so far, its next request, that request's cache key when the
        cache was read for it and had nothing)."""
        ahead = ahead or Ahead(Completion(), time.perf_counter())
        comp, start, request, looked = ahead.comp, ahead.start, ahead.request, ahead.looked
        warming = self._warming
        # for the early stop: the suite and the last call's budget
        suite, budget = ahead.suite, ahead.budget
        try:
            if warming is not None and not warming.done():
                await asyncio.shield(warming)
            while True:
                if isinstance(request, _Build):
                    request = conversation(comp.responses)
                if request is None:
                    break
                if request.item is not None:
                    suite = request.item.suite
                    stopped = self.early_stop.suite_stop(suite)
                    if stopped:  # its suite stopped early: this call is never made
                        raise NotAsked(stopped, suite)
                budget = request.params.max_tokens
                comp.sent.append(request.messages)
                # one call: the retry policy's, behind the cache and the sharing of identical
                # calls when the answers allow it; `looked`: its cache key, read, not found
                # (inlined: a coroutine fewer per request)
                calls = self.calls
                if calls is None:
                    reply, cached = await self._ask(request, comp), False
                else:
                    reply, cached = await calls.call(request, sample, comp, looked)
                request, looked = BUILD, None
                _took(comp, reply, cached)
                if reply.cut_in_thought:  # no answer to go on from: the item is cut off
                    break
        except NotAsked as exc:  # the run or its suite stopped early: cut short, not failed
            comp.error = CallError(str(exc), suite_stop=exc.reason if exc.suite else None)
            self._finish(key, comp, start, cut_short=True)
            return comp
        except asyncio.CancelledError:
            comp.error = CallError("cancelled (the run was stopped)")
            self._finish(key, comp, start, cut_short=True)
            raise
        except BaseException as exc:  # the run never crashes because of a model call:
            # a third-party backend's SystemExit or KeyboardInterrupt is an error of this item
            comp.error = CallError.of(exc)
        self._finish(key, comp, start, suite=suite, budget=budget)
        return comp

    def _finish(self, key: str, comp: Completion, start: float, cut_short: bool = False,
                suite: str = "", budget: int | None = None) -> None:
        """Count a conversation that ended: done (answered or failed), or `cut_short` by the
        end of the run (cancelled, not asked after an early stop): then neither done nor an
        error, so that the requests line counts what was answered or failed."""
        comp.seconds = time.perf_counter() - start
        st = self.stats
        if cut_short:
            st.cut_short += 1
        else:
            if self.early_stop.rules:
                self.early_stop.finished(comp, suite, budget)
            if comp.error:
                st.errors += 1
                self.failures.append((key, comp.error))
            elif comp.requests == 0:
                st.done_cached += 1  # no request of its own (cache or shared): not in the pace
            st.done += 1
            st.finished = time.perf_counter()
        if st.done + st.cut_short >= st.submitted:
            waiters: list[Latch] = []
            with self._lock:
                if st.done + st.cut_short >= st.submitted:  # nothing submitted meanwhile
                    self._idle = True
                    waiters, self._idle_waiters = self._idle_waiters, []
            for latch in waiters:
                latch.open()


def _took(comp: Completion, reply: ModelReply, cached: bool) -> None:
    """`comp` takes the reply of its last call (its tokens counted as cached or not)."""
    comp.replies.append(reply)
    into = comp.cached_usage if cached else comp.usage
    for k, v in (reply.usage or {}).items():
        into[k] = into.get(k, 0) + int(v or 0)


class _Build:
    """`BUILD`: the next request is to be built from the responses so far."""


BUILD = _Build()


@dataclass
class Ahead:
    """Where `_read_ahead` left one conversation: its completion so far and its start, its
    next request (None: over; `BUILD`: to be built by its task), that request's cache key
    when the cache was read for it and had nothing, and the suite and last budget for the
    early stop."""

    comp: Completion
    start: float
    request: ModelRequest | _Build | None = BUILD
    looked: str | None = None
    suite: str = ""
    budget: int | None = None


# a conversation submitted, not started yet: (future, key, conversation, sample)
Queued = tuple[LatchedFuture[Completion], str, Conversation, int]
# ... and one waiting for its turn (`Runner._start`): the same and where `_read_ahead` left it
Waiting = tuple[LatchedFuture[Completion], str, Conversation, int, Ahead | None]


class StopGate:
    """The runner's slots, closed once the run stops early: an attempt waiting for its turn
    then fails at once (`NotAsked`, with the reason), counted nowhere, as it was never made."""

    def __init__(self, slots: AdaptiveLimit, stop: EarlyStop):
        self.slots = slots
        self.stop = stop

    async def acquire(self) -> int:
        if self.stop.reason:
            raise NotAsked(self.stop.reason)
        epoch = await self.slots.acquire()
        if self.stop.reason:
            self.slots.release()
            raise NotAsked(self.stop.reason)
        return epoch

    def release(self) -> None:
        self.slots.release()

    def answered(self, epoch: int, throttled: bool) -> None:
        self.slots.answered(epoch, throttled)

    def connect_failed(self, epoch: int) -> None:
        self.slots.connect_failed(epoch)

