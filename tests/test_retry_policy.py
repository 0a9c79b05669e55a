"""The retry policy on its own: decided from the options once; attempts, pauses, Retry-After,
the deadline, timeouts and the endpoint of each attempt, against the loopback chat server
through the real `openai:` backend (and its endpoint pool), with the runner's real slots.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from chat_server import ChatServer

from pytest_tom.asking.completion import Completion, RunnerStats
from pytest_tom.asking.retry_policy import RetryPolicy, attempts_error
from pytest_tom.asking.runner import AdaptiveLimit, Runner
from pytest_tom.backends import create_backend
from pytest_tom.backends.base import Backend, BackendError, ModelReply, ModelRequest, SamplingParams
from pytest_tom.backends.openai_api.endpoint_pool import EndpointPool
from pytest_tom.backends.options import BackendOptions
from pytest_tom.core.option_table import build_options


def request(prompt: str, max_tokens: int | None = None) -> ModelRequest:
    return ModelRequest(messages=[{"role": "user", "content": prompt}],
                        params=SamplingParams(max_tokens=max_tokens))


def call_through(policy: RetryPolicy, backend: Backend, prompts: list[str],
                 concurrency: int = 4) -> tuple[list[ModelReply | BackendError],
                                                list[Completion], RunnerStats, AdaptiveLimit]:
    """Each prompt once under `policy`, on one event loop, as the runner calls it: the
    backend warmed first (the runner's calls wait for `Backend.warm`, openai:'s request
    process, before their deadline starts)."""
    stats, slots = RunnerStats(), AdaptiveLimit(concurrency)
    comps = [Completion() for _ in prompts]
    call: Callable[[ModelRequest, Completion], Awaitable[ModelReply]] = functools.partial(
        policy.call, backend.acomplete, slots, stats)

    async def main() -> list[ModelReply | BackendError]:
        try:
            await backend.warm()
            return await asyncio.gather(*(call(request(p), c) for p, c in zip(prompts, comps,
                                                                                strict=True)),
                                        return_exceptions=True)
        finally:
            await backend.aclose()

    return asyncio.run(main()), comps, stats, slots


def openai(server: ChatServer | list[ChatServer], **options: Any) -> Backend:
    servers = server if isinstance(server, list) else [server]
    return create_backend("openai:m",
                          BackendOptions(base_url=[s.base_url for s in servers], **options))


def test_the_policy_is_decided_from_the_options_once() -> None:
    options = build_options({"retries": "2", "backoff": "0.25", "deadline": "30"})
    policy = RetryPolicy.from_options(options)
    assert policy == RetryPolicy(retries=2, backoff=0.25, max_backoff=30.0, deadline=30.0)
    with ChatServer() as server:
        runner = Runner.from_options(openai(server), options, ".")
        assert runner.retry == policy  # the runner takes it as decided, checks nothing again
        runner.close()
    defaults = RetryPolicy.from_options(build_options({}))
    assert (defaults.retries, defaults.backoff, defaults.deadline) == (5, 0.5, 600.0)


def test_retry_after_wins_else_the_backoff_doubles_with_full_jitter_up_to_the_cap() -> None:
    random.seed(11)
    policy = RetryPolicy(backoff=0.5, max_backoff=3.0)
    for _ in range(200):
        assert 2.0 <= policy.delay(0, retry_after=2.0) < 2.2  # the server's word, +10% at most
        assert 0.25 <= policy.delay(0, None) < 0.75  # [0.5, 1.5) of 0.5
        assert 1.0 <= policy.delay(2, None) < 3.0  # [0.5, 1.5) of 2.0
        assert 1.5 <= policy.delay(6, None) < 4.5  # 0.5 * 64 capped at 3.0
    assert policy.delay(0, retry_after=0.0) == 0.0


def test_the_pause_ends_a_call_that_is_final_spent_or_out_of_time() -> None:
    policy = RetryPolicy(retries=2, backoff=0.01)
    r = request("q", max_tokens=64)
    bad = BackendError("HTTP 400: bad request", status=400)
    with pytest.raises(BackendError, match=r"^HTTP 400: bad request$"):
        policy.pause([bad], r, left=60)
    down = [BackendError("HTTP 503", status=503, retryable=True)] * 3
    assert 0.005 <= policy.pause(down[:2], r, left=60) < 0.03
    with pytest.raises(BackendError, match=r"gave up after 3 attempts: the same each time"):
        policy.pause(down, r, left=60)
    late = BackendError("HTTP 429", status=429, retryable=True, retry_after=5.0)
    with pytest.raises(BackendError, match=r"a retry in 5\.\ds would pass the deadline of "
                                           r"600s \(--tom-deadline\)"):
        policy.pause([late], r, left=1.0)
    slow = BackendError("timed out after 2s (--tom-timeout)", retryable=True, timed_out=True)
    error = attempts_error([slow, down[0]], "gave up", r)
    assert error.timed_out and error.status == 503
    assert "1: timed out after 2s (--tom-timeout) · 2: HTTP 503" in str(error)
    assert "(max_tokens 64): lower --tom-max-tokens" in str(error)


def test_retryable_failures_are_retried_until_answered_and_counted() -> None:
    with ChatServer(failure_rate=0.4, retry_after=0.01, seed=3) as server:
        got, comps, stats, slots = call_through(RetryPolicy(retries=30, backoff=0.01),
                                                openai(server), [f"q{i}" for i in range(40)])
    assert all(isinstance(r, ModelReply) and r.text == "a)" for r in got), got
    assert server.failures > 0
    assert sum(c.requests for c in comps) == stats.requests == server.requests
    assert sum(c.retries for c in comps) == stats.retries == server.failures
    assert 0 < stats.throttled < server.failures  # the 429s among the 500s
    assert slots.active == 0  # every attempt gave its slot back


def test_a_429_with_retry_after_is_waited_for_then_the_retries_run_out() -> None:
    with ChatServer(failure_rate=1.0, failure_statuses=(429,), retry_after=0.3) as server:
        loop_times: list[float] = []
        backend = openai(server)
        send = backend.acomplete

        async def timed(req: ModelRequest) -> ModelReply:
            loop_times.append(asyncio.get_running_loop().time())
            return await send(req)

        backend.acomplete = timed  # type: ignore[method-assign]
        got, comps, stats, _ = call_through(RetryPolicy(retries=1, backoff=0.0), backend, ["q"])
    error = got[0]
    assert isinstance(error, BackendError) and error.status == 429
    assert "gave up after 2 attempts: the same each time" in str(error)
    assert loop_times[1] - loop_times[0] >= 0.3  # waited as the server asked
    assert (comps[0].requests, comps[0].retries, stats.throttled) == (2, 1, 2)


def test_a_final_failure_is_not_retried() -> None:
    with ChatServer(fail_when={"bad": 400}) as server:
        got, comps, stats, _ = call_through(RetryPolicy(retries=5), openai(server), ["bad", "ok"])
    assert isinstance(got[0], BackendError) and got[0].status == 400 and not got[0].retryable
    assert isinstance(got[1], ModelReply)
    assert (comps[0].requests, comps[0].retries, server.requests) == (1, 0, 2)


def test_the_deadline_cuts_off_an_attempt_and_names_the_options() -> None:
    with ChatServer(stall_after=0) as server:  # never answers
        got, comps, _, _ = call_through(RetryPolicy(retries=5, deadline=0.5),
                                        openai(server, timeout=60), ["q"])
        server.unstall()
    error = got[0]
    assert isinstance(error, BackendError) and error.timed_out
    assert str(error).startswith("stopped by the deadline after 0.5s (no answer within the "
                                 "deadline of 0.5s (--tom-deadline))")
    assert "lower --tom-concurrency, or raise --tom-timeout" in str(error)
    assert comps[0].requests == 1 and comps[0].retries == 0


def test_a_timed_out_attempt_is_retried() -> None:
    with ChatServer(latency=1.0) as server:
        got, comps, stats, _ = call_through(RetryPolicy(retries=1, backoff=0.0),
                                            openai(server, timeout=0.2), ["q"])
    error = got[0]
    assert isinstance(error, BackendError) and error.timed_out
    assert "timed out after 0.2s (--tom-timeout) (gave up after 2 attempts" in str(error)
    assert comps[0].requests == 2 and comps[0].retries == 1
    assert (stats.timed_out, stats.connect_retries) == (1, 0)  # the retried one, counted apart


def test_each_attempt_is_noted_at_its_endpoint_and_the_retry_goes_elsewhere() -> None:
    with ChatServer(fail_when={"q": 503}) as sick, ChatServer() as well:
        pool = openai([sick, well])
        assert isinstance(pool, EndpointPool)
        got, comps, _, _ = call_through(RetryPolicy(retries=3, backoff=0.01), pool,
                                        ["q1", "q2"], concurrency=1)
    assert all(isinstance(r, ModelReply) for r in got)
    for comp in comps:  # one answer each, at the well endpoint; a failure is noted at sick
        assert comp.attempts[-1] == (well.base_url, True)
        assert all(e == sick.base_url and not ok for e, ok in comp.attempts[:-1])
        assert len(comp.attempts) == comp.requests
    assert sum(len(c.attempts) - 1 for c in comps) == sick.requests >= 1


def test_an_attempt_cut_off_at_a_pool_endpoint_counts_there() -> None:
    with ChatServer(stall_after=0) as slow, ChatServer() as fast:  # slow: never answers
        got, comps, _, _ = call_through(RetryPolicy(retries=0, deadline=0.5),
                                        openai([slow, fast]), ["q1", "q2"], concurrency=2)
        slow.unstall()
    cut = [c for c, r in zip(comps, got, strict=True) if isinstance(r, BackendError)]
    assert len(cut) == 1  # the least busy endpoint: one call each
    assert cut[0].attempts == [(slow.base_url, False)]
