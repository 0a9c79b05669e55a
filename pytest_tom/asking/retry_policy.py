"""How one model call is attempted and tried again: the retry policy.

`RetryPolicy` is decided once from the options (`--tom-retries`, `--tom-backoff`,
`--tom-deadline`) and says, after each failed attempt, whether there is another and
after how long:

- retryable failures (429, 5xx, timeouts, connection resets: `BackendError.retryable`)
  are tried again, at most `retries` times; any other failure is final; a connection not
  made within the connect timeout (`BackendError.connect`, backends/openai_api/connect.py) is one of
  them, tried again on a fresh connection and counted apart (`connect_retries`);
- the pause is the server's Retry-After when it gives one (plus up to 10% jitter), else
  exponential backoff with full jitter, capped at `max_backoff`;
- the per-call `deadline` runs from the moment the call first holds a slot (time queued
  behind other items does not count) and bounds the attempts and the pauses between
  them: an attempt under way is cut off at the deadline, and a pause that would pass it
  is not taken.

`RetryPolicy.call` is that loop around one call: each attempt holds one of the runner's
slots (`Slots`, the runner's `AdaptiveLimit`) while it runs, is counted (requests,
retries, 429s) and, when the backend has several endpoints, noted at the endpoint that
answered or failed (`Completion.attempts`; the pool in `backends/openai_api/endpoint_pool.py`
chooses the endpoint, the policy only notes it). A call that finally fails raises one
`BackendError` saying what each attempt did (`attempts_error`).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from pytest_tom.asking.completion import Completion, RunnerStats
from pytest_tom.backends.base import BackendError, ModelReply, ModelRequest
from pytest_tom.core.bounded import within
from pytest_tom.core.option_table import TomOptions

THROTTLE_STATUS = 429
DEFAULT_DEADLINE = 600.0

# one attempt: the backend's `acomplete` (or anything that sends a request the same way)
Send = Callable[[ModelRequest], Awaitable[ModelReply]]


class Slots(Protocol):
    """Where an attempt waits for its turn: the runner's `AdaptiveLimit`."""

    async def acquire(self) -> int: ...

    def release(self) -> None: ...

    def answered(self, epoch: int, throttled: bool) -> None: ...

    def connect_failed(self, epoch: int) -> None: ...


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts, pauses and the deadline of one model call (see the module docstring)."""

    retries: int = 5  # attempts after the first
    backoff: float = 0.5  # the first pause without Retry-After, doubled each retry
    max_backoff: float = 30.0
    deadline: float = DEFAULT_DEADLINE  # seconds one call may take, retries included

    def __post_init__(self) -> None:
        # the option table refuses impossible values; scripts may still pass anything
        object.__setattr__(self, "retries", max(0, self.retries))
        object.__setattr__(self, "backoff", max(0.0, self.backoff))
        if not (self.deadline and self.deadline > 0):
            object.__setattr__(self, "deadline", DEFAULT_DEADLINE)

    @classmethod
    def from_options(cls, options: TomOptions) -> RetryPolicy:
        return cls(retries=options.retries, backoff=options.backoff, deadline=options.deadline)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """The pause after failed attempt number `attempt` (0 for the first): Retry-After
        when the server gives one (plus up to 10% jitter), else exponential backoff with
        full jitter in [0.5, 1.5) of base * 2**attempt, capped at max_backoff."""
        if retry_after is not None and retry_after >= 0:
            return retry_after * (1.0 + 0.1 * random.random())
        return min(self.max_backoff, self.backoff * 2**attempt) * (0.5 + random.random())

    def pause(self, history: list[BackendError], request: ModelRequest, left: float) -> float:
        """The pause before the next attempt, after the failures in `history` with `left`
        seconds to the deadline; raises the call's final error when there is none (the
        failure is not retryable, the retries are spent, or the pause would pass the
        deadline)."""
        error = history[-1]
        if not error.retryable:
            raise attempts_error(history, None, request)
        if len(history) > self.retries:
            raise attempts_error(history, "gave up", request)
        delay = self.delay(len(history) - 1, error.retry_after)
        if delay > left:
            raise attempts_error(history, f"a retry in {delay:.1f}s would pass the deadline "
                                 f"of {self.deadline:g}s (--tom-deadline)", request)
        return delay

    def past_deadline(self) -> str:
        return f"no answer within the deadline of {self.deadline:g}s (--tom-deadline)"

    async def call(self, send: Send, slots: Slots, stats: RunnerStats, request: ModelRequest,
                   comp: Completion) -> ModelReply:
        """`send(request)` under this policy: a slot per attempt, retries with pauses until
        the deadline; counts into `comp` and `stats`. Raises the final `BackendError`.

        (The runner binds `send`, `slots` and `stats` once: `functools.partial`.)
        """
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        history: list[BackendError] = []
        while True:
            if deadline is not None and deadline - loop.time() <= 0:
                raise attempts_error(history, self.past_deadline(), request)
            epoch = await slots.acquire()
            if deadline is None:
                deadline = loop.time() + self.deadline
            comp.requests += 1
            stats.requests += 1
            started = loop.time()
            try:
                reply = await within(send(request), max(0.001, deadline - loop.time()))
            except asyncio.TimeoutError:
                if request.asked_at:  # a pool's endpoint was asked: the attempt counts there
                    comp.attempts.append((request.asked_at, False))
                took = loop.time() - started
                history.append(BackendError(f"stopped by the deadline after "
                                            f"{took:.{1 if took < 10 else 0}f}s", timed_out=True))
                raise attempts_error(history, self.past_deadline(), request) from None
            except BackendError as exc:
                error = exc
                if exc.endpoint:
                    comp.attempts.append((exc.endpoint, False))
            else:
                if reply.endpoint:
                    comp.attempts.append((reply.endpoint, True))
                slots.answered(epoch, throttled=False)
                return reply
            finally:
                slots.release()
            history.append(error)
            if error.connect:  # the server is crowded with connections: fewer new ones
                slots.connect_failed(epoch)
            else:
                throttled = error.status == THROTTLE_STATUS
                slots.answered(epoch, throttled=throttled)
                if throttled:
                    stats.throttled += 1
            delay = self.pause(history, request, deadline - loop.time())
            comp.retries += 1
            stats.retries += 1
            if error.connect:
                stats.connect_retries += 1
            elif error.timed_out:
                stats.timed_out += 1
            await asyncio.sleep(delay)


def attempts_error(history: list[BackendError], why: str | None,
                   request: ModelRequest) -> BackendError:
    """The final error of a call, saying what happened at each attempt.

    One attempt: its own message (plus `why`). Several: `gave up after 3 attempts:
    1 HTTP 503 · 2 timed out after 120s ...`. When an attempt timed out, the likely
    cause and the options that help are named: a model that writes a very long answer
    (lower --tom-max-tokens) or a slow server (raise --tom-timeout).
    """
    if not history:
        return BackendError(why or "no attempt was made")
    last = history[-1]
    if len(history) == 1:
        text = str(last) if why is None else f"{last} ({why})"
    else:
        runs: list[tuple[int, int, str]] = []  # (first, last attempt, message), runs merged
        for i, e in enumerate(history, 1):
            if runs and runs[-1][2] == str(e):
                runs[-1] = (runs[-1][0], i, str(e))
            else:
                runs.append((i, i, str(e)))
        if len(runs) == 1:
            steps = "the same each time"
        else:
            steps = " · ".join(f"{a}{'' if a == b else f'-{b}'}: {m}" for a, b, m in runs)
        text = f"{last} ({why or 'failed'} after {len(history)} attempts: {steps})"
    if any(e.timed_out for e in history):
        limit = request.params.max_tokens
        length = f"max_tokens {limit}" if limit is not None else "no max_tokens"
        text += (f"; a timeout often means a very long answer ({length}): lower "
                 f"--tom-max-tokens; or a server that answers one request at a time: lower "
                 f"--tom-concurrency, or raise --tom-timeout")
    return BackendError(text, kind=last.kind, status=last.status,
                        timed_out=any(e.timed_out for e in history))
