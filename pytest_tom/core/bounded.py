"""`within`: await a coroutine for at most some seconds, in the current task.

`asyncio.wait_for` before Python 3.12 wraps the awaited coroutine in a new task (made,
scheduled and awaited per call, with a timer and a waiter future besides): at latency 0
that is a measurable share of a run's CPU when every request pays it twice (the runner's
deadline and the backend's timeout). `asyncio.timeout` (3.11+) cancels the same way
without a task; Python 3.10 keeps `wait_for`.

On 3.11+ `within` does what `async with asyncio.timeout(seconds): return await aw` does,
step for step (the timer, the cancel of the task when it fires, `Task.uncancel` and the
`TimeoutError` only when no other cancel came meanwhile), without the context manager's
object, its state machine and the calls of its entry and exit: at latency 0 each request
passes two of them, and they were about a sixth of the runner thread's CPU per request.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class _Timer:
    """What `within` needs to know of its timer: the task it cancels, and whether it fired."""

    __slots__ = ("fired", "task")

    def __init__(self, task: asyncio.Task[object]) -> None:
        self.task = task
        self.fired = False

    def fire(self) -> None:
        self.task.cancel()
        self.fired = True


async def within(awaitable: Awaitable[T], seconds: float) -> T:
    """The result of `awaitable`; `asyncio.TimeoutError` once `seconds` have passed (the
    awaitable is cancelled then, as `asyncio.wait_for` and `asyncio.timeout` do)."""
    if sys.version_info < (3, 11):
        return await asyncio.wait_for(awaitable, timeout=seconds)
    loop = asyncio.get_running_loop()
    task = asyncio.current_task(loop)
    if task is None:
        raise RuntimeError("Timeout should be used inside a task")
    cancelling = task.cancelling()
    timer = _Timer(task)
    when = loop.time() + seconds
    handle = (loop.call_soon(timer.fire) if when <= loop.time()
              else loop.call_at(when, timer.fire))
    try:
        result = await awaitable
    except BaseException as exc:
        if not timer.fired:
            handle.cancel()
        elif task.uncancel() <= cancelling and type(exc) is asyncio.CancelledError:
            raise asyncio.TimeoutError from exc  # no other cancel came: this one is ours
        raise
    if timer.fired:
        task.uncancel()
    else:
        handle.cancel()
    return result
