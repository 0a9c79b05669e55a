"""Ctrl-C while pytest's main thread waits for an answer ends the run, whenever it lands.

`Future.result` and `Event.wait` wait in `threading.Condition.wait`, which a
KeyboardInterrupt landing between two of its lines turns into `RuntimeError: cannot
release un-acquired lock` (core/interruptible). These tests raise the KeyboardInterrupt
at every line the main thread runs while it waits (a trace function raising, as a signal
handler would), one line per try, and check that what comes out is the interrupt or the
answer, never anything else, and that the awaited thing can still be waited for after.
"""

from __future__ import annotations

import asyncio
import itertools
import linecache
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from types import FrameType
from typing import Any, cast

import pytest

from pytest_tom.asking.runner import Runner
from pytest_tom.backends.base import (
    Backend,
    BackendAbilities,
    ModelReply,
    ModelRequest,
    SamplingParams,
)
from pytest_tom.core.interruptible import Latch, LatchedFuture, in_loop, result_of
from pytest_tom.items.sample_requests import wait_all

LATER = 0.005  # the answer comes this long after the wait began


class Interrupt:
    """A trace function that raises KeyboardInterrupt at the `at`-th moment (0: never).

    The moments are where CPython runs a signal handler: every line, a function's first
    included, except the `with` line seen again when its block is left (the `__exit__` call
    there is made before any check for signals; raising at that line event would skip it,
    which no Ctrl-C can do)."""

    def __init__(self, at: int):
        self.at = at
        self.lines = 0
        self.last: dict[FrameType, int] = {}

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            line, last = frame.f_lineno, self.last.get(frame, 0)
            self.last[frame] = line
            if line < last and linecache.getline(frame.f_code.co_filename,
                                                 line).lstrip().startswith("with "):
                return self
            self.lines += 1
            if self.lines == self.at:
                raise KeyboardInterrupt
        return self


def traced(wait: Callable[[], Any], at: int) -> tuple[Any, int]:
    """What `wait()` gave or raised, with the KeyboardInterrupt at line event `at`."""
    before = sys.gettrace()
    tracer = Interrupt(at)
    sys.settrace(tracer)
    try:
        got: Any = wait()
    except BaseException as exc:  # noqa: BLE001 - what came out is the subject
        got = exc
    finally:
        sys.settrace(before)
    return got, tracer.lines


def answered_later(value: str, kind: type[Future[str]] = LatchedFuture) -> Future[str]:
    fut: Future[str] = kind()
    threading.Timer(LATER, fut.set_result, (value,)).start()
    return fut


def every_line(make: Callable[[], tuple[Callable[[], Any], Callable[[], Any]]],
               answer: Any) -> list[type]:
    """Interrupt `wait` at each of its lines in turn; returns what came out of each try.
    `make` gives a fresh (wait, wait again) pair for each try."""
    wait, _ = make()
    got, lines = traced(wait, 0)
    assert got == answer
    assert lines > 0
    seen = []
    for at in range(1, lines + 1):
        wait, again = make()
        got, _ = traced(wait, at)
        seen.append(type(got))
        if isinstance(got, KeyboardInterrupt):
            assert again() == answer  # nothing was left half done
        else:
            assert got == answer, f"line {at}: {got!r}"
    return seen


def test_result_of_gives_the_interrupt_or_the_answer_at_every_line() -> None:
    def make() -> tuple[Callable[[], Any], Callable[[], Any]]:
        fut = answered_later("answer")
        return (lambda: result_of(fut)), (lambda: result_of(fut, 5))

    seen = every_line(make, "answer")
    assert KeyboardInterrupt in seen
    assert set(seen) <= {KeyboardInterrupt, str}


def test_wait_all_gives_the_interrupt_or_the_answers_at_every_line() -> None:
    waiting: list[int] = []

    def make() -> tuple[Callable[[], Any], Callable[[], Any]]:
        futures = [cast(LatchedFuture[str], answered_later(v)) for v in "ab"]
        return ((lambda: wait_all(futures, lambda: waiting.append(1))),
                (lambda: wait_all(futures)))

    seen = every_line(make, ["a", "b"])
    assert KeyboardInterrupt in seen
    assert set(seen) <= {KeyboardInterrupt, list}


class AnswersAfter(Backend):
    """Answers "ok" `seconds` after each request (never, in effect, for an hour)."""

    name = "answers-after"
    abilities = BackendAbilities()

    def __init__(self, seconds: float) -> None:
        self.model = "fake"
        self.seconds = seconds

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        await asyncio.sleep(self.seconds)
        return ModelReply(text="ok")


def test_wait_idle_gives_the_interrupt_or_idle_at_every_line() -> None:
    runner = Runner(AnswersAfter(LATER))
    keys = itertools.count()
    request = ModelRequest(messages=[{"role": "user", "content": "q"}], params=SamplingParams())

    def make() -> tuple[Callable[[], Any], Callable[[], Any]]:
        runner.submit(f"k{next(keys)}", lambda replies: None if replies else request)
        return (lambda: runner.wait_idle(5)), (lambda: runner.wait_idle(5))

    try:
        seen = every_line(make, True)
        assert runner.wait_idle(5) and runner.pending == 0
    finally:
        runner.close()
    assert KeyboardInterrupt in seen
    assert set(seen) <= {KeyboardInterrupt, bool}


def test_runner_stop_gives_the_interrupt_or_stops_at_every_line() -> None:
    """`Runner.stop` after Ctrl-C (a second Ctrl-C may land in it): interrupted at any of its
    lines, a second `stop` still cancels every conversation, promptly."""
    runners: list[Runner] = []
    request = ModelRequest(messages=[{"role": "user", "content": "q"}], params=SamplingParams())

    def make() -> tuple[Callable[[], Any], Callable[[], Any]]:
        runner = Runner(AnswersAfter(3600))  # cancelled by the stop
        runners.append(runner)
        fut = runner.submit("k", lambda replies: None if replies else request)
        for _ in range(200):  # until its one call is under way
            if runner.stats.requests:
                break
            time.sleep(0.005)

        def again() -> Any:
            runner.stop(timeout=2)
            assert fut.wait(2) and runner.stats.cut_short == 1  # cancelled, cut short
            return None

        return (lambda: runner.stop(timeout=2)), again

    try:
        seen = every_line(make, None)
    finally:
        for runner in runners:
            runner.close()
    assert KeyboardInterrupt in seen
    assert set(seen) <= {KeyboardInterrupt, type(None)}


def test_in_loop_runs_a_coroutine_in_another_threads_loop() -> None:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def double(x: int) -> int:
        await asyncio.sleep(0)
        return 2 * x

    async def fail() -> None:
        raise ValueError("no")

    try:
        assert result_of(in_loop(loop, lambda: double(21)), 5) == 42
        with pytest.raises(ValueError, match="no"):
            result_of(in_loop(loop, fail), 5)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
    made: list[int] = []
    with pytest.raises(RuntimeError):  # closed: refused, no coroutine made
        in_loop(loop, lambda: double(made.append(1) or 1))
    assert made == []


def test_the_condition_wait_that_the_latch_replaces_loses_the_interrupt() -> None:
    """The hazard itself, so that the tests above can fail: `Future.result`, interrupted at
    each of its lines, once raises RuntimeError instead (CPython 3.11-3.13)."""
    outcomes = set()
    fut = answered_later("x", Future)
    _, lines = traced(fut.result, 0)
    for at in range(1, lines + 1):
        fut = answered_later("x", Future)
        got, _ = traced(fut.result, at)
        outcomes.add(type(got))
        if isinstance(got, RuntimeError):
            break  # the future's lock may now be in any state
    if RuntimeError not in outcomes:
        pytest.skip(f"this Python's Condition.wait has no such moment ({sys.version.split()[0]})")
    assert RuntimeError in outcomes


def test_a_latch_opens_once_for_its_waiter_from_another_thread() -> None:
    latch = Latch()
    assert not latch.wait(0.01)
    threading.Timer(LATER, latch.open).start()
    assert latch.wait(5)
    latch.open()
    latch.open()  # a second opening is harmless


@pytest.mark.parametrize("settle", ["result", "exception", "cancel"])
def test_a_latched_future_is_finished_however_it_is_settled(settle: str) -> None:
    fut: LatchedFuture[int] = LatchedFuture()
    assert not fut.finished and not fut.wait(0.001)
    if settle == "result":
        fut.set_result(1)
    elif settle == "exception":
        fut.set_exception(ValueError("no"))
    else:
        assert fut.cancel()
    assert fut.finished and fut.wait(0) and fut.wait()  # and again, without blocking
    assert fut.done()


def test_a_latched_future_that_is_done_is_not_cancelled_again() -> None:
    fut: LatchedFuture[int] = LatchedFuture()
    fut.set_result(1)
    assert not fut.cancel()
    assert result_of(fut) == 1


def test_result_of_times_out_and_raises_what_the_future_raised() -> None:
    from concurrent.futures import TimeoutError as FutureTimeout

    fut: LatchedFuture[int] = LatchedFuture()
    with pytest.raises(FutureTimeout):
        result_of(fut, 0.01)
    fut.set_exception(ValueError("no"))
    with pytest.raises(ValueError, match="no"):
        result_of(fut)
