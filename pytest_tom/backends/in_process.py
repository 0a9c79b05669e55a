"""An in-process model seen as a backend: the `Answerer` protocol (`backends/base.py`)
behind `acomplete`, so that `python:`, the `pytest_tom_backend` hook, `fixture:NAME` and
`hf:` all go through the one runner (cache, retries, deadline, progress, usage, xdist).

It is the one adapter of objects pytest-tom did not make: their optional attributes
(`answer_batch`, `batch_size`, `identity`, `thread_safe`, `family_max_tokens`) are read
here, once, when the backend is made, into its `BackendAbilities`; nothing else in
pytest-tom probes a backend. What this adapter adds:

* **Threads.** An `async` answerer is awaited on the runner's event loop. A synchronous
  one runs in ONE worker thread of its own (a queue: it is never entered twice at
  once, and the runner keeps only as many calls in flight as can usefully wait), unless
  it declares `thread_safe = True`: then each call gets a daemon thread, up to
  `--tom-concurrency` at once.
* **Batches.** With `answer_batch` and a batch size above 1 (`--tom-batch-size`, else
  the object's `batch_size`), the calls in flight are handed over together: a batch
  starts as soon as the previous one ends, with whatever calls have arrived meanwhile
  (at most the batch size). A batch that raises is retried call by call, so that one
  bad request is the error of its own item only.
* **Identity.** `identity()` (name + revision or fingerprint) makes the backend
  cacheable: it is part of every cache key. Without it nothing is cached, because the
  answerer sees the item and may answer from more than the messages.

The object is the user's code, so nothing it does may stop the run: any exception,
`SystemExit` and `KeyboardInterrupt` included, is the error outcome of its item
(a `BackendError` it raises keeps its `retryable` flag, so the runner retries it).
A synchronous call that never returns is abandoned at the deadline (`--tom-deadline`);
its thread is a daemon and cannot keep the process alive after the run.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from pytest_tom.backends.base import (
    Backend,
    BackendAbilities,
    BackendError,
    BackendIdentity,
    ModelReply,
    ModelRequest,
)


class AnswererError(TypeError):
    """The object does not follow the protocol (the caller turns it into a usage error)."""


def is_async(fn: Any) -> bool:
    """Whether calling `fn` gives a coroutine (functions, bound methods, async __call__)."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None))  # noqa: B004 - a callable object's own __call__


class SerialWorker:
    """One daemon thread that runs the calls of a non-thread-safe answerer, one at a time.

    A call the runner abandons while it runs (it passed the deadline: it hangs) is left to
    its thread, and a new thread takes the calls after it, so that one hanging call costs
    one deadline, not the rest of the run. That is the one case where the answerer could
    be entered again while a call of it is still running, and only if the hung call ever
    comes back."""

    def __init__(self, name: str):
        self.name = name
        self._jobs: collections.deque[_Job] = collections.deque()
        self._cond = threading.Condition()
        self._generation = 0
        self._alive = False  # a thread of the current generation is running
        self._stopped = False
        self.replaced = 0  # threads left behind with an abandoned call

    def _work(self, generation: int) -> None:
        while True:
            with self._cond:
                while not self._jobs and generation == self._generation and not self._stopped:
                    self._cond.wait()
                if generation != self._generation or self._stopped:
                    return
                job = self._jobs.popleft()
                job.started = True
            job.run()
            with self._cond:
                job.finished = True
                if generation != self._generation:  # replaced while this call ran
                    return

    async def run(self, fn: Callable[[Any], Any], arg: Any,
                  error: Callable[[BaseException], BackendError]) -> Any:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        job = _Job(lambda: _call_and_deliver(fn, arg, error, loop, fut))
        with self._cond:
            self._jobs.append(job)
            if not self._alive:
                self._alive = True
                threading.Thread(target=self._work, args=(self._generation,),
                                 name=f"tom-{self.name}", daemon=True).start()
            self._cond.notify()
        try:
            return await fut
        except asyncio.CancelledError:
            with self._cond:
                if job.started and not job.finished:  # abandoned while it runs: replace
                    self._generation += 1
                    self.replaced += 1
                    self._alive = bool(self._jobs)
                    if self._alive:
                        threading.Thread(target=self._work, args=(self._generation,),
                                         name=f"tom-{self.name}", daemon=True).start()
                self._cond.notify_all()
            raise

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()


class _Job:
    __slots__ = ("finished", "run", "started")

    def __init__(self, run: Callable[[], None]):
        self.run = run
        self.started = False
        self.finished = False


def _call_and_deliver(fn: Callable[[Any], Any], arg: Any,
                      error: Callable[[BaseException], BackendError],
                      loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any]) -> None:
    if fut.done():  # abandoned while queued (deadline, end of the run): not worth running
        return
    try:
        ok, value = True, fn(arg)
    except BaseException as exc:  # the user's code: whatever it raised is reported
        ok, value = False, error(exc)

    def deliver() -> None:
        if fut.done():  # cancelled meanwhile (deadline, end of the run)
            return
        if ok:
            fut.set_result(value)
        else:
            fut.set_exception(value)

    with contextlib.suppress(RuntimeError):  # a closed loop: the run ended without it
        loop.call_soon_threadsafe(deliver)


async def in_daemon_thread(fn: Callable[[Any], Any], arg: Any,
                           error: Callable[[BaseException], BackendError]) -> Any:
    """`fn(arg)` in a new daemon thread; its result, or `error(exc)` raised for whatever it
    raised (BaseException included). If the caller stops waiting, the thread is left to end
    on its own: being a daemon, it never holds up the interpreter's exit."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[Any] = loop.create_future()
    threading.Thread(target=_call_and_deliver, args=(fn, arg, error, loop, fut),
                     name="tom-answerer", daemon=True).start()
    return await fut


class Batcher:
    """Collects the calls in flight into batches of at most `size`, one batch at a time."""

    def __init__(self, size: int, call: Callable[[list[ModelRequest]], Awaitable[list[ModelReply]]]):
        self.size = size
        self.call = call
        self.batches: list[int] = []  # the size of each batch handed over (tests, benchmarks)
        self._queue: collections.deque[tuple[ModelRequest, asyncio.Future[ModelReply]]] = (
            collections.deque())
        self._task: asyncio.Task[None] | None = None

    async def submit(self, request: ModelRequest) -> ModelReply:
        fut: asyncio.Future[ModelReply] = asyncio.get_running_loop().create_future()
        self._queue.append((request, fut))
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._drain())
        return await fut

    async def _drain(self) -> None:
        while self._queue:
            await asyncio.sleep(0)  # the calls submitted in this turn of the loop join
            batch = []
            while self._queue and len(batch) < self.size:
                request, fut = self._queue.popleft()
                if not fut.done():  # a call abandoned while it waited is left out
                    batch.append((request, fut))
            if batch:
                await self._run(batch)

    async def _run(self, batch: list[tuple[ModelRequest, asyncio.Future[ModelReply]]]) -> None:
        self.batches.append(len(batch))
        try:
            replies = await self.call([request for request, _ in batch])
        except asyncio.CancelledError:
            for _, fut in batch:
                fut.cancel()
            raise
        except BackendError as exc:
            if len(batch) > 1:  # one bad request must not fail its neighbours: one by one
                for one in batch:
                    await self._run([one])
                return
            replies = [exc]  # type: ignore[list-item]
        for (_, fut), reply in zip(batch, replies, strict=True):
            if fut.done():
                continue
            if isinstance(reply, BaseException):
                fut.set_exception(reply)
            else:
                fut.set_result(reply)


class InProcessBackend(Backend):
    """An `Answerer` object (or a plain answer function) as a backend."""

    def __init__(self, target: Any, *, name: str, label: str, spec: str | None = None,
                 batch_size: int | None = None):
        self.name = name
        self.model = label  # in error messages: "mod:answer raised ValueError: ..."
        self.spec = spec or f"{name}:{label}"  # the --tom-model value, for the header
        self.target = target
        answer = getattr(target, "answer", None)
        if answer is None and callable(target) and not inspect.isclass(target):
            answer = target
        batch = getattr(target, "answer_batch", None)
        if answer is not None and not callable(answer):
            raise AnswererError(f"{label}: `answer` is not callable")
        if batch is not None and not callable(batch):
            raise AnswererError(f"{label}: `answer_batch` is not callable")
        if answer is None and batch is None:
            raise AnswererError(
                f"{label}: {type(target).__name__} is not an answerer: give a function of the "
                f"request, or an object with answer(request) -> str (optionally "
                f"answer_batch(requests) -> list[str], identity() -> str, thread_safe)")
        self._answer = answer
        self._answer_batch = batch
        self.thread_safe = bool(getattr(target, "thread_safe", False))
        self.fingerprint: str | None = None
        ident = getattr(target, "identity", None)
        if callable(ident):
            try:
                self.fingerprint = str(ident())
            except Exception as exc:
                raise AnswererError(f"{label}: identity() raised {type(exc).__name__}: {exc}") from exc
        preferred = getattr(target, "batch_size", None)
        size = batch_size or (int(preferred) if isinstance(preferred, int) and preferred > 0 else 1)
        self.batch_size = size if batch is not None else 1
        self._serial = None if self.thread_safe else SerialWorker(name)
        self.batcher = Batcher(self.batch_size, self._call_batch) if (
            batch is not None and (self.batch_size > 1 or answer is None)) else None
        self.abilities = BackendAbilities(
            answerer=True,
            cacheable=self.fingerprint is not None,
            # the object may ask for the families' answer lengths (as openai: and hf: do)
            family_max_tokens=bool(getattr(target, "family_max_tokens", False)),
            # one batch running, the next one filling
            batch_size=self.batch_size if self.batcher is not None else None,
            # calls queue for the one thread: the deadline runs from each call's start
            one_at_a_time=not (self.thread_safe or is_async(answer)))

    # -- what the header, the report and the cache see ------------------------------------
    def identity(self) -> BackendIdentity:
        out: BackendIdentity = {"backend": self.name, "model": self.model}
        if self.fingerprint is not None:
            out["identity"] = self.fingerprint
        return out

    def mode(self) -> str:
        """How calls run, in words (for the header)."""
        call = self._answer_batch if self.batcher is not None else self._answer
        if is_async(call):
            how = "async"
        elif self.thread_safe:
            how = "thread-safe"
        else:
            how = "one worker thread (not thread-safe)"
        if self.batcher is not None:
            how += f", batches of {self.batch_size}"
        return how

    def describe(self) -> str:
        return self.spec

    def details(self) -> str:
        ident = f"; {self.fingerprint}" if self.fingerprint is not None else ""
        return f"{self.mode()}{ident}"

    # -- calls -------------------------------------------------------------------------
    async def acomplete(self, request: ModelRequest) -> ModelReply:
        if self.batcher is not None:
            return await self.batcher.submit(request)
        assert self._answer is not None
        return self._reply(await self._invoke(self._answer, request))

    async def _call_batch(self, requests: list[ModelRequest]) -> list[ModelReply]:
        assert self._answer_batch is not None
        out = await self._invoke(self._answer_batch, requests)
        if not isinstance(out, (list, tuple)) or len(out) != len(requests):
            got = f"{len(out)} answers" if isinstance(out, (list, tuple)) else type(out).__name__
            raise BackendError(f"{self.model}: answer_batch got {len(requests)} requests and "
                               f"returned {got}; return one answer per request, in order")
        return [self._reply(one) for one in out]

    async def _invoke(self, fn: Callable[[Any], Any], arg: Any) -> Any:
        if is_async(fn):
            try:
                return await fn(arg)
            except asyncio.CancelledError:
                raise  # the runner gave up on this call (its deadline): not the user's error
            except BaseException as exc:  # SystemExit too: an error outcome, never a crash
                raise self._error(exc) from None
        if self._serial is not None:
            return await self._serial.run(fn, arg, self._error)
        return await in_daemon_thread(fn, arg, self._error)

    def _reply(self, out: Any) -> ModelReply:
        if isinstance(out, ModelReply):
            return out
        if not isinstance(out, str):
            raise BackendError(f"{self.model} returned {type(out).__name__}, expected a str")
        return ModelReply(text=out)

    def _error(self, exc: BaseException) -> BackendError:
        if isinstance(exc, BackendError):
            return exc
        text = str(exc)
        return BackendError(f"{self.model} raised {type(exc).__name__}" + (f": {text}" if text else ""))

    async def aclose(self) -> None:
        """Let the worker thread end (the object itself belongs to whoever made it)."""
        if self._serial is not None:
            self._serial.stop()
