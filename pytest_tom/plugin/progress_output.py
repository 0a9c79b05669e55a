"""pytest's progress output written at most every 0.1 s during the test loop, not one
system call per item, where the standard output is unbuffered.

With `PYTHONUNBUFFERED` (or `python -u`, common in CI images and containers) every
character pytest's terminal reporter writes (the `.` or `F` of each item) is its own
`write` system call, which also hands the interpreter lock to the runner's thread: about
a twentieth of a 20,000-item run's main thread at latency 0. `BufferedProgress` turns
write-through off on that stream while the test loop runs and flushes it at the end of
an item when 0.1 s have passed since the last flush (and at the loop's end, also on
Ctrl-C), so the progress still moves live; whatever else writes to the same stream
(another thread's `print`) is kept in order with it. Output written to the file
descriptor itself (a C extension, a subprocess) may then appear up to 0.1 s before
pytest's line around it.

Registered only where it changes something (`applies`): a process with a terminal (not
an xdist worker) whose standard output is the interpreter's own, write-through stream.
"""

from __future__ import annotations

import io
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

INTERVAL = 0.1  # seconds between flushes of the progress during the test loop


def applies(output: object | None = None) -> bool:
    """Whether `output` (default: the process's standard output) writes through on every
    write (unbuffered) and is the interpreter's own stream (not one a test harness put in
    its place)."""
    output = sys.stdout if output is None else output
    return (output is sys.__stdout__ and isinstance(output, io.TextIOWrapper)
            and output.write_through)


class BufferedProgress:
    """Write-through off on the standard output while the test loop runs, flushed every
    `INTERVAL` seconds at the end of an item; restored when the loop ends."""

    def __init__(self, stream: io.TextIOWrapper, interval: float = INTERVAL):
        self.stream = stream
        self.interval = interval
        self._last = 0.0

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Iterator[None]:
        self.stream.reconfigure(write_through=False)
        try:
            return (yield)
        finally:  # flushes what is pending
            self.stream.reconfigure(write_through=True)

    @pytest.hookimpl(trylast=True)  # after the terminal reporter wrote the item's letter
    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self.stream.flush()
