"""Waits in pytest's main thread that Ctrl-C ends cleanly, whenever it comes.

`threading.Condition.wait`, under `Event.wait` and `concurrent.futures.Future.result`,
releases its lock before its `try` begins. A KeyboardInterrupt that lands between the two
leaves the lock released, and the `with` around the wait then releases it again:
`RuntimeError: cannot release un-acquired lock` replaces the KeyboardInterrupt. pytest
records that as the error of the test being set up and goes on with the run, so the
Ctrl-C is lost (CI saw it once, in `test_ctrl_c_ends_the_process_with_its_summary`).

A bare lock's `acquire` is one C call: interrupted, it raises and holds nothing. So the
runner's futures are `LatchedFuture`s: their setter opens a `Latch` (a bare lock) and sets a
plain flag, and pytest's thread waits on the latch and reads the flag, never entering the
future's condition while the future can still be set. (Entering it is not safe either: an
interrupt at the start of `Condition.__exit__` leaves its lock held, and the loop thread's
`set_result` then blocks on it for good.) `in_loop` is `asyncio.run_coroutine_threadsafe`
settling a `LatchedFuture` (the runner's `stop` and `close`), so that every future pytest's
thread waits for is one.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

__all__ = ["Latch", "LatchedFuture", "in_loop", "result_of"]

T = TypeVar("T")


class Latch:
    """Opened once, by any thread, for one waiter: `wait` blocks until then (or a timeout).

    The waiter takes the lock it finds released and keeps it: releasing it again after
    the acquire would open a second moment for an interrupt to land in."""

    __slots__ = ("_lock",)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()

    def open(self) -> None:
        """Let the waiter through, now or when it comes to wait (any thread)."""
        with contextlib.suppress(RuntimeError):  # opened already
            self._lock.release()

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the latch is open (True) or `timeout` seconds passed first (False)."""
        return self._lock.acquire(timeout=-1 if timeout is None else timeout)


class LatchedFuture(Future[T]):
    """A `Future` that tells it is settled without its lock: `finished` and `wait`."""

    def __init__(self) -> None:
        super().__init__()
        self.finished = False  # set, then the latch opened, once the future is settled
        self._latch = Latch()

    def set_result(self, result: T) -> None:
        super().set_result(result)
        self._settled()

    def set_exception(self, exception: BaseException | None) -> None:
        super().set_exception(exception)
        self._settled()

    def cancel(self) -> bool:
        if not super().cancel():
            return False
        self._settled()
        return True

    def _settled(self) -> None:
        self.finished = True
        self._latch.open()

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the future is settled (True) or `timeout` seconds passed first."""
        return self.finished or self._latch.wait(timeout)


def in_loop(loop: asyncio.AbstractEventLoop, make: Callable[[], Coroutine[Any, Any, T]]
            ) -> LatchedFuture[T]:
    """Run the coroutine `make()` in `loop` (another thread's); its outcome settles the future
    returned. The coroutine is made in the loop's thread, so that an interrupt in this one
    never leaves it unawaited. Raises RuntimeError when the loop is closed."""
    fut: LatchedFuture[T] = LatchedFuture()

    async def settle() -> None:
        try:
            result = await make()
        except BaseException as exc:  # noqa: BLE001 - the waiter gets whatever it raised
            fut.set_exception(exc)
        else:
            fut.set_result(result)

    def start() -> None:
        task = loop.create_task(settle())
        _running.add(task)  # a strong reference while it runs (the loop keeps weak ones)
        task.add_done_callback(_running.discard)

    loop.call_soon_threadsafe(start)
    return fut


_running: set[asyncio.Task[None]] = set()


def result_of(fut: LatchedFuture[T], timeout: float | None = None) -> T:
    """`fut.result(timeout)`, its wait ended cleanly by Ctrl-C (see the module docstring)."""
    if not fut.wait(timeout):
        raise FutureTimeout()
    return fut.result()
