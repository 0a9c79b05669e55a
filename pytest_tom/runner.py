"""The runner: one per process, it makes the model calls of the items.

It owns an asyncio event loop in a background thread, keeps at most
`concurrency` requests in flight, retries what is worth retrying, and hands
each item its `Completion` (every response of its conversation, or an error).
A key is requested at most once per process. It knows requests and responses
only: which messages to send next is decided by a callback from the caller.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from pytest_tom.backends.base import Backend, BackendError, ModelRequest
from pytest_tom.outcome import REQUEST_FAILED

# given the responses so far, the next request of a conversation, or None when done
Conversation = Callable[[list[str]], ModelRequest | None]


@dataclass
class Completion:
    """The model side of one item: its responses in call order, or what went wrong."""

    responses: list[str] = field(default_factory=list)
    error: str | None = None
    error_kind: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    retries: int = 0
    seconds: float = 0.0

    @property
    def final(self) -> str:
        return self.responses[-1] if self.responses else ""


@dataclass
class RunnerStats:
    done: int = 0
    requests: int = 0
    retries: int = 0
    errors: int = 0


class Runner:
    def __init__(self, backend: Backend, concurrency: int = 16, retries: int = 5,
                 backoff: float = 0.5, max_backoff: float = 30.0):
        self.backend = backend
        self.concurrency = max(1, concurrency)
        self.retries = max(0, retries)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.stats = RunnerStats()
        self._futures: dict[str, Future[Completion]] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._sem: asyncio.Semaphore | None = None

    # -- loop management ---------------------------------------------------------------
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
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
        loop = self._loop
        if loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self.backend.aclose(), loop).result(timeout=10)
        except Exception:  # closing must never fail the session
            pass
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._loop = None

    # -- public API ----------------------------------------------------------------------
    def submit(self, key: str, conversation: Conversation) -> Future[Completion]:
        """Start the conversation for `key` unless it is already started; never twice."""
        with self._lock:
            fut = self._futures.get(key)
            if fut is not None:
                return fut
        loop = self._ensure_loop()
        with self._lock:
            fut = self._futures.get(key)
            if fut is None:
                fut = asyncio.run_coroutine_threadsafe(self._run(conversation), loop)
                self._futures[key] = fut
        return fut

    def result(self, key: str, conversation: Conversation) -> Completion:
        return self.submit(key, conversation).result()

    # -- internals -----------------------------------------------------------------------
    async def _run(self, conversation: Conversation) -> Completion:
        if self._sem is None:
            self._sem = asyncio.Semaphore(self.concurrency)
        comp = Completion()
        start = time.perf_counter()
        try:
            while True:
                request = conversation(comp.responses)
                if request is None:
                    break
                reply = await self._call(request, comp)
                comp.responses.append(reply.text)
                for k, v in (reply.usage or {}).items():
                    comp.usage[k] = comp.usage.get(k, 0) + int(v or 0)
        except BackendError as exc:
            comp.error, comp.error_kind = str(exc), exc.kind
            self.stats.errors += 1
        except Exception as exc:  # the run never crashes because of a model call
            comp.error, comp.error_kind = f"{type(exc).__name__}: {exc}", REQUEST_FAILED
            self.stats.errors += 1
        comp.seconds = time.perf_counter() - start
        self.stats.done += 1
        return comp

    async def _call(self, request: ModelRequest, comp: Completion) -> Any:
        attempt = 0
        while True:
            async with self._sem:  # type: ignore[union-attr]
                comp.requests += 1
                self.stats.requests += 1
                try:
                    return await self.backend.acomplete(request)
                except BackendError as exc:
                    if not exc.retryable or attempt >= self.retries:
                        raise
                    delay = exc.retry_after if exc.retry_after is not None else min(
                        self.max_backoff, self.backoff * 2**attempt) * (0.5 + random.random())
            attempt += 1
            comp.retries += 1
            self.stats.retries += 1
            await asyncio.sleep(delay)
