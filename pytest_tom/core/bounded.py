"""`within`: await a coroutine for at most some seconds, in the current task.

`asyncio.wait_for` before Python 3.12 wraps the awaited coroutine in a new task (made,
scheduled and awaited per call, with a timer and a waiter future besides): at latency 0
that is a measurable share of a run's CPU when every request pays it twice (the runner's
deadline and the backend's timeout). `asyncio.timeout` (3.11+) cancels the same way
without a task; Python 3.10 keeps `wait_for`.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float) -> T:
    """The result of `awaitable`; `asyncio.TimeoutError` once `seconds` have passed (the
    awaitable is cancelled then, as `asyncio.wait_for` does)."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await awaitable
    return await asyncio.wait_for(awaitable, timeout=seconds)
