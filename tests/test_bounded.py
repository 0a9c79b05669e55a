"""`core.bounded.within` behaves as `async with asyncio.timeout(...)` does, case by case:
what it returns or raises, what the awaited code sees, and the task's cancel count after."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from pytest_tom.core.bounded import within

Within = Callable[[Awaitable[Any], float], Awaitable[Any]]


async def reference(awaitable: Awaitable[Any], seconds: float) -> Any:
    async with asyncio.timeout(seconds):
        return await awaitable


async def answer(after: float, value: str = "answer") -> str:
    await asyncio.sleep(after)
    return value


async def swallow(after: float, then: str) -> str:
    """Catches the cancel: returns, or raises ValueError, instead."""
    try:
        await asyncio.sleep(after)
    except asyncio.CancelledError:
        if then == "raise":
            raise ValueError("raised instead") from None
        return "returned instead"
    return "answer"


async def cancelled_again(after: float) -> str:
    """Another cancel comes while the timer's is handled: not the bound's to turn into a
    timeout."""
    try:
        await asyncio.sleep(after)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        raise
    return "answer"


def scenarios(bound: Within) -> dict[str, Callable[[], Awaitable[Any]]]:
    async def cancelled_from_outside() -> Any:
        task = asyncio.ensure_future(bound(answer(5), 5))
        await asyncio.sleep(0.01)
        task.cancel()
        return await task

    async def inner_first() -> Any:
        async def step() -> str:
            try:
                return await bound(answer(5), 0.01)
            except TimeoutError:
                return "inner timed out"
        return await bound(step(), 5)

    return {
        "answered": lambda: bound(answer(0.001), 5),
        "timed out": lambda: bound(answer(5), 0.01),
        "at once": lambda: bound(answer(5), 0),
        "cancel caught, returned": lambda: bound(swallow(5, "return"), 0.01),
        "cancel caught, raised": lambda: bound(swallow(5, "raise"), 0.01),
        "cancelled from outside": cancelled_from_outside,
        "cancelled again meanwhile": lambda: bound(cancelled_again(5), 0.01),
        "inner bound first": inner_first,
        "outer bound first": lambda: bound(bound(answer(5), 5), 0.01),
        "same bound": lambda: bound(bound(answer(5), 0.01), 0.01),
    }


def outcome(bound: Within, name: str) -> tuple[str, int, int]:
    """(result or exception type, the task's cancel count after, timers left scheduled)."""

    seen: list[str] = []

    async def case() -> None:
        try:
            seen.append(repr(await scenarios(bound)[name]()))
        except BaseException as exc:  # noqa: BLE001 the outcome compared
            seen.append(type(exc).__name__)

    async def main() -> tuple[str, int, int]:
        task = asyncio.ensure_future(case())  # a task of its own: it may end cancelled
        with contextlib.suppress(asyncio.CancelledError):
            await task
        got = seen[0]
        loop = asyncio.get_running_loop()
        left = sum(not h.cancelled() for h in loop._scheduled)  # type: ignore[attr-defined]
        return got, task.cancelling(), left

    return asyncio.run(main())


@pytest.mark.skipif(sys.version_info < (3, 11), reason="asyncio.timeout is 3.11+")
@pytest.mark.parametrize("name", list(scenarios(within)))
def test_within_does_what_asyncio_timeout_does(name: str) -> None:
    assert outcome(within, name) == outcome(reference, name)


def test_within_outcomes() -> None:
    """What those cases give (the reference could be wrong too)."""
    assert outcome(within, "answered") == ("'answer'", 0, 0)
    assert outcome(within, "timed out")[0] == "TimeoutError"
    assert outcome(within, "at once")[0] == "TimeoutError"
    assert outcome(within, "cancel caught, returned") == ("'returned instead'", 0, 0)
    assert outcome(within, "cancel caught, raised")[0] == "ValueError"
    assert outcome(within, "cancelled from outside")[0] == "CancelledError"
    assert outcome(within, "cancelled again meanwhile") == ("CancelledError", 1, 0)
    assert outcome(within, "inner bound first") == ("'inner timed out'", 0, 0)
    assert outcome(within, "outer bound first") == ("TimeoutError", 0, 0)
