"""The live line of the request phase: done / total, cache hits, retries, errors, rate, time left.

On a terminal it is redrawn in place (`\\r`) a few times a second through
pytest's terminal reporter, and replaced by a final line when the phase ends,
before pytest prints any test outcome, so the two never interleave. Without a
terminal (CI logs) a plain line is written every `log_every` seconds. `-q`
silences it.
"""

from __future__ import annotations

import time
from typing import Any

from pytest_tom.asking.runner import RunnerStats
from pytest_tom.pytest_compat import (
    is_tty,
    output_uncaptured,
    terminal_reporter,
    terminal_width,
    verbosity,
)
from pytest_tom.report.terminal import WIDTH, wrap_parts


def clock(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def eta(stats: RunnerStats) -> float | None:
    """Seconds left at the pace of the conversations that needed requests so far."""
    left = stats.submitted - stats.done
    if left <= 0:
        return 0.0
    fetched = stats.done - stats.done_cached
    elapsed = stats.elapsed()
    if fetched <= 0 or elapsed <= 0:
        return None
    return left / (fetched / elapsed)


def status_line(stats: RunnerStats, limit: int | None = None, maximum: int | None = None,
                final: bool = False, why_lower: str = "429s") -> str:
    elapsed = stats.elapsed()
    parts = [f"{stats.done}/{stats.submitted}"]
    if stats.cache_hits:
        parts.append(f"{stats.cache_hits} cached")
    if getattr(stats, "shared", 0):
        parts.append(f"{stats.shared} shared")
    parts.append(f"{stats.retries} retries")
    if getattr(stats, "connect_retries", 0):  # a crowded server: its connections were slow
        n = stats.connect_retries
        parts.append(f"{n} connect{'s' if n != 1 else ''} retried (--tom-connect-timeout)")
    parts.append(f"{stats.errors} errors")
    fetched = stats.done - stats.done_cached
    if not final and fetched <= 0:
        # before the first answer there is no pace: no rate, no time left (not "?")
        parts.append(f"waiting for the first answer ({clock(elapsed)})")
        return "tom requests: " + " · ".join(parts)
    rate = stats.requests / elapsed if elapsed > 0 else 0.0
    parts.append(f"{rate:.1f} req/s")
    if limit is not None and maximum is not None and limit < maximum:
        parts.append(f"concurrency {limit}/{maximum} ({why_lower})")
    if stats.waiting:
        parts.append(f"{stats.waiting} asked by another process")
    if final:
        took = f"{elapsed:.1f}s" if elapsed < 60 else clock(elapsed)
        if stats.done >= stats.submitted:
            parts.append(f"done in {took}")
        else:  # every request counted, so that the requests section adds up to it
            parts += [f"stopped after {took}", *stopped_parts(stats)]
    else:
        parts.append(f"{clock(eta(stats))} left")
    return "tom requests: " + " · ".join(parts)


def stopped_parts(stats: RunnerStats) -> list[str]:
    """What a run that stopped before its items did made of them: the requests it made (the
    requests section's table and its line of further requests add up to it), the items cut
    short in flight and those never started."""
    never = stats.submitted - stats.done - getattr(stats, "cut_short", 0)
    parts = [f"{stats.requests} request{'s' if stats.requests != 1 else ''} made"]
    if getattr(stats, "cut_short", 0):
        parts.append(f"{stats.cut_short} cut short")
    if never > 0:
        parts.append(f"{never} not started")
    return parts


def final_lines(line: str, width: int = WIDTH) -> list[str]:
    """The final line, broken between its parts into lines of at most `width` columns."""
    head, _, rest = line.partition(": ")
    return wrap_parts(f"{head}: ", rest.split(" · "), width)


class Progress:
    """Draws the request phase of a runner on pytest's terminal (or nowhere)."""

    def __init__(self, runner: Any, config: Any, log_every: float = 10.0):
        self.runner = runner
        self.config = config
        self.tr = terminal_reporter(config)
        self.enabled = self.tr is not None and verbosity(config) >= 0
        self.live = self.enabled and is_tty(self.tr)
        self.log_every = log_every
        self._last_log = time.perf_counter()
        self._drawn = False

    def _line(self, final: bool = False) -> str:
        lim = self.runner.limiter
        why = getattr(lim, "why_lower", "429s")
        # the ramp at the start of a run is no news: a limit cut by the server is
        limit = None if why == "ramping up" else lim.limit
        line = status_line(self.runner.stats, limit, lim.maximum, final=final, why_lower=why)
        width = terminal_width(self.config)
        if not final and self.live and width and len(line) >= width:  # a wrapped line
            # cannot be redrawn (the final one is broken into lines: `final_lines`)
            line = line[: width - 2] + "…"
        return line

    def _output(self) -> Any:
        return output_uncaptured(self.config)

    def draw(self) -> None:
        if not self.enabled:
            return
        if self.live:
            with self._output():
                self.tr.rewrite(self._line(), erase=True)
            self._drawn = True
        elif time.perf_counter() - self._last_log >= self.log_every:
            self._last_log = time.perf_counter()
            with self._output():
                self.tr.write_line(self._line())

    def finish(self) -> None:
        if not self.enabled or self.runner.stats.submitted == 0:
            return
        head, *more = final_lines(self._line(final=True))
        with self._output():
            if self._drawn:
                self.tr.rewrite(head, erase=True)
                self.tr.write_line("")
            else:
                self.tr.write_line(head)
            for line in more:
                self.tr.write_line(line)

    def run(self, tick: float = 0.2) -> None:
        """Block until the runner is idle, drawing the line meanwhile."""
        try:
            while not self.runner.wait_idle(tick if self.live else min(tick * 5, 1.0)):
                self.draw()
        except BaseException:  # Ctrl-C while waiting: ask nothing more, then the final line
            self.runner.stop()
            raise
        finally:
            self.finish()
