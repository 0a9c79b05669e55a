"""What the request side hands back and counts: one item's `Completion` (its replies, or
its `CallError`), a runner's `RunnerStats`.

The runner (`asking/runner.py`), the cached-call layer (`asking/cached_call.py`) and the
retry policy (`asking/retry_policy.py`) each count their own events here: the runner
conversations and errors, the cached-call layer cache hits, shared calls and calls
waiting for another process, the retry policy requests, retries, 429s and the endpoint
of each attempt. Plain counters written by the runner's loop thread only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pytest_tom.backends.base import LENGTH, BackendError, Message, ModelReply
from pytest_tom.core.outcome import REQUEST_FAILED, Outcome


@dataclass(frozen=True)
class CallError:
    """Why an item's conversation has no answer: made once, where the runner catches the
    call's final error (`of`), and carried as it is through the `Completion` to the item's
    outcome (`outcome`). `message` and `kind` become the record's `outcome.detail` and
    `outcome.error`; `suite_stop`: the reason the item's suite stopped early when the call
    was never made for that (asking/early_stop.py: the item is skipped, with no record)."""

    message: str
    kind: str = REQUEST_FAILED
    suite_stop: str | None = None

    @classmethod
    def of(cls, exc: BaseException) -> CallError:
        """The error of a call that raised `exc`: a `BackendError` keeps its message and
        kind; anything else (a third-party backend's own exception, SystemExit ...) is a
        failed request named by its type."""
        if isinstance(exc, BackendError):
            return cls(str(exc), exc.kind)
        return cls(f"{type(exc).__name__}: {exc}")

    def outcome(self) -> Outcome:
        """The item's outcome: an error outcome of this kind, the message its detail."""
        return Outcome.failed(self.kind, self.message)

    def __str__(self) -> str:
        return self.message


@dataclass
class Completion:
    """The model side of one item (or one sample of it): its replies in call order, or the
    error that ended it. The replies are the backend's `ModelReply` objects as they came
    (from the backend, the worker's pipe, the cache or a shared call), never copied into
    another shape; `responses`, `thoughts` and `finish` are views over them."""

    replies: list[ModelReply] = field(default_factory=list)
    error: CallError | None = None
    usage: dict[str, int] = field(default_factory=dict)  # tokens of calls made in this run
    cached_usage: dict[str, int] = field(default_factory=dict)  # tokens of calls from the cache
    requests: int = 0  # HTTP attempts, retries included
    retries: int = 0
    cached: int = 0  # calls answered by the response cache
    shared: int = 0  # calls answered by an identical call of this run (nothing was cached)
    seconds: float = 0.0
    # (endpoint, answered) of each attempt, when the backend has several endpoints
    attempts: list[tuple[str, bool]] = field(default_factory=list)
    # the messages of each call as the runner sent them (the failed call's too): the item's
    # record and failure text take them instead of building every call again
    sent: list[list[Message]] = field(default_factory=list)

    @property
    def responses(self) -> list[str]:
        """The answers (what is scored), in call order."""
        return [r.text for r in self.replies]

    @property
    def thoughts(self) -> list[str | None]:
        """Each reply's thought (None: it showed none)."""
        return [r.thought for r in self.replies]

    @property
    def finish(self) -> list[str | None]:
        """Each reply's finish reason."""
        return [r.finish_reason for r in self.replies]

    @property
    def model(self) -> str | None:
        """The model the server says answered (the last reply that names one)."""
        for reply in reversed(self.replies):
            if reply.model:
                return reply.model
        return None

    @property
    def final(self) -> str:
        return self.replies[-1].text if self.replies else ""


def cut_off_call(replies: list[ModelReply]) -> int | None:
    """The call whose budget ran out so that the item has no finished answer, or None: the
    last (scored) call stopped at the budget ("length"), or a call was cut inside its
    thought (no answer to go on from). An earlier call cut inside its answer (a chain of
    thought's reasoning step at its length) is not: the next call goes on from it."""
    last = len(replies) - 1
    for i, reply in enumerate(replies):
        if reply.finish_reason == LENGTH and (i == last or not reply.text.strip()):
            return i
    return None


@dataclass
class RunnerStats:
    """Counters for the progress line and the summary (written by the loop thread only)."""

    submitted: int = 0  # conversations started
    done: int = 0  # conversations finished (answered or failed)
    done_cached: int = 0  # finished without any request
    errors: int = 0  # conversations that failed
    # conversations ended unfinished because the run ended first (Runner.stop, close: Ctrl-C,
    # -x, an early stop) or not asked after an early stop: neither done nor errors
    cut_short: int = 0
    requests: int = 0  # HTTP attempts
    cache_hits: int = 0  # calls answered from the response cache
    shared: int = 0  # calls answered by an identical call in flight in this process
    retries: int = 0
    throttled: int = 0  # 429 answers
    # attempts whose connection was not made in time (backends/openai_api/connect.py), tried again
    connect_retries: int = 0
    # attempts stopped by the request timeout (--tom-timeout) and tried again
    timed_out: int = 0
    waiting: int = 0  # calls waiting for another process's answer right now
    started: float | None = None  # perf_counter of the first submission
    finished: float | None = None  # perf_counter of the latest conversation finished

    def elapsed(self) -> float:
        """Seconds since the first submission; once every conversation is finished, up to
        the last answer (the items may still be scored after it)."""
        if self.started is None:
            return 0.0
        if self.finished is not None and self.done >= self.submitted:
            return self.finished - self.started
        return time.perf_counter() - self.started
