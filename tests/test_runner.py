"""The runner on its own: concurrency, retries, deadlines, adaptive concurrency, sharing.

Fake backends count what they are asked; the loopback chat server stands for a
real endpoint where the HTTP side matters (status codes, Retry-After).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from chat_server import ChatServer
from runner_support import expected_right, number_of, respond

from pytest_tom.asking import runner as runner_module
from pytest_tom.asking.cache import ResponseCache
from pytest_tom.asking.completion import CallError, RunnerStats
from pytest_tom.asking.early_stop import CutOffAnswers, EarlyStop
from pytest_tom.asking.runner import AdaptiveLimit, Runner
from pytest_tom.backends.base import (
    Backend,
    BackendAbilities,
    BackendError,
    ItemView,
    ModelReply,
    ModelRequest,
    SamplingParams,
)
from pytest_tom.backends.options import BackendOptions
from pytest_tom.core.outcome import MISSING_RESPONSE, Outcome


def one_call(prompt: str, params: SamplingParams | None = None) -> Any:
    request = ModelRequest(messages=[{"role": "user", "content": prompt}],
                           params=params or SamplingParams())
    return lambda responses: None if responses else request


def calls_in_turn(*prompts: str) -> Any:
    """A conversation asking `prompts` one after the other, each after the last answer (a
    fresh request each time)."""

    def next_call(responses: list[str]) -> ModelRequest | None:
        if len(responses) == len(prompts):
            return None
        return ModelRequest(messages=[{"role": "user", "content": prompts[len(responses)]}],
                            params=SamplingParams())

    return next_call


class Scripted(Backend):
    """Answers "ok:<prompt>" after `latency`; fails per `script[prompt]` (a list of errors to
    raise, in order, before answering). Records peak concurrency and calls per prompt."""

    name = "scripted"
    abilities = BackendAbilities(cacheable=True)

    def __init__(self, latency: float = 0.0, script: dict[str, list[BackendError]] | None = None):
        self.model = "fake"
        self.latency = latency
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.calls: dict[str, int] = {}
        self.times: dict[str, list[float]] = {}
        self.active = 0
        self.peak = 0

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        prompt = request.prompt
        self.calls[prompt] = self.calls.get(prompt, 0) + 1
        self.times.setdefault(prompt, []).append(time.perf_counter())
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            if self.latency:
                await asyncio.sleep(self.latency)
            errors = self.script.get(prompt)
            if errors:
                raise errors.pop(0)
            return ModelReply(text=f"ok:{prompt}", usage={"prompt_tokens": 3, "completion_tokens": 1,
                                                          "total_tokens": 4})
        finally:
            self.active -= 1


def run_all(runner: Runner, prompts: list[str]) -> dict[str, Any]:
    futures = {p: runner.submit(p, one_call(p)) for p in prompts}
    try:
        return {p: f.result(timeout=60) for p, f in futures.items()}
    finally:
        runner.close()


def err(status: int, retry_after: float | None = None) -> BackendError:
    retryable = status == 429 or status >= 500
    return BackendError(f"HTTP {status}", status=status, retryable=retryable, retry_after=retry_after)


def test_at_most_concurrency_requests_in_flight_and_all_answered() -> None:
    backend = Scripted(latency=0.02)
    prompts = [f"p{i}" for i in range(60)]
    out = run_all(Runner(backend, concurrency=7), prompts)
    assert backend.peak == 7
    assert all(out[p].final == f"ok:{p}" and out[p].requests == 1 for p in prompts)
    assert sum(backend.calls.values()) == 60


def test_retryable_failures_are_retried_and_retry_after_is_honoured() -> None:
    backend = Scripted(script={"a": [err(500), err(503)], "b": [err(429, retry_after=0.3)]})
    runner = Runner(backend, concurrency=4, retries=3, backoff=0.01)
    out = run_all(runner, ["a", "b", "c"])
    assert out["a"].final == "ok:a" and out["a"].requests == 3 and out["a"].retries == 2
    assert out["b"].final == "ok:b" and out["b"].retries == 1
    first, second = backend.times["b"]
    assert second - first >= 0.3  # waited as the server asked
    assert runner.stats.retries == 3 and runner.stats.errors == 0


def test_other_4xx_fail_at_once_and_retries_are_bounded() -> None:
    bad = BackendError("HTTP 400: bad request", status=400, retryable=False)
    backend = Scripted(script={"bad": [bad], "down": [err(500)] * 10})
    runner = Runner(backend, retries=2, backoff=0.0)
    out = run_all(runner, ["bad", "down", "fine"])
    assert backend.calls["bad"] == 1 and out["bad"].error == CallError("HTTP 400: bad request")
    assert backend.calls["down"] == 3  # the first try and two retries
    assert "gave up after 3 attempts" in str(out["down"].error)
    assert out["fine"].error is None
    assert runner.stats.errors == 2
    assert sorted(k for k, _ in runner.failures) == ["bad", "down"]


def test_the_error_of_a_call_is_one_value_from_the_backend_to_the_outcome() -> None:
    gone = BackendError("no response recorded for s::1", kind=MISSING_RESPONSE)
    out = run_all(Runner(Scripted(script={"gone": [gone]})), ["gone"])
    error = out["gone"].error
    assert error == CallError("no response recorded for s::1", MISSING_RESPONSE)
    assert error.outcome() == Outcome(correct=False, error=MISSING_RESPONSE,
                                      detail="no response recorded for s::1")
    # a call of a suite that stopped early is never made: cut short, neither done nor
    # failed, its reason typed (the item skips with it) rather than read from the message
    stop = EarlyStop([CutOffAnswers(raise_with="x")])
    stop.suites["s"] = "most answers cut off"
    backend = Scripted()
    runner = Runner(backend, early_stop=stop)
    view = ItemView(id="1", suite="s", family="generic", kind="choice", question="q",
                    choices=[], gold=None, tags=[], source={})
    request = ModelRequest([{"role": "user", "content": "q"}], SamplingParams(), item=view)
    try:
        comp = runner.submit("s::1", lambda rs: None if rs else request).result(timeout=30)
    finally:
        runner.close()
    assert comp.error == CallError("not asked: suite s stopped early (most answers cut off)",
                                   suite_stop="most answers cut off")
    assert backend.calls == {} and runner.stats.cut_short == 1
    assert runner.stats.errors == 0 and runner.failures == []


def test_the_deadline_bounds_a_request_and_its_retries() -> None:
    backend = Scripted(latency=0.0, script={"slow": [err(429, retry_after=5.0)]})
    runner = Runner(backend, retries=5, deadline=1.0)
    start = time.perf_counter()
    out = run_all(runner, ["slow"])
    assert time.perf_counter() - start < 1.0  # a 5 s Retry-After cannot fit: fail now
    assert "would pass the deadline" in str(out["slow"].error)
    hung = Scripted(latency=30.0)
    runner = Runner(hung, deadline=0.3)
    start = time.perf_counter()
    out = run_all(runner, ["hang"])
    assert time.perf_counter() - start < 5
    assert "deadline" in str(out["hang"].error)


def test_time_queued_for_a_slot_does_not_count_against_the_deadline() -> None:
    # 6 calls of 0.2 s through one slot take 1.2 s in all, far past the 0.5 s deadline,
    # yet each call holds its slot for 0.2 s only: every one is answered
    backend = Scripted(latency=0.2)
    out = run_all(Runner(backend, concurrency=1, deadline=0.5), [f"p{i}" for i in range(6)])
    assert all(c.error is None for c in out.values()), [c.error for c in out.values()]
    assert [c.final for c in out.values()] == [f"ok:p{i}" for i in range(6)]


def test_a_backend_exception_is_an_error_not_a_crash() -> None:
    class Broken(Scripted):
        async def acomplete(self, request: ModelRequest) -> ModelReply:
            raise ZeroDivisionError("boom")

    out = run_all(Runner(Broken()), ["x"])
    assert out["x"].error == CallError("ZeroDivisionError: boom")


class Gated(Backend):
    """Answers only once `open` is called; counts the requests in flight."""

    name = "gated"
    abilities = BackendAbilities(cacheable=False)

    def __init__(self) -> None:
        self.active = 0
        self.gate: asyncio.Event | None = None

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        if self.gate is None:
            self.gate = asyncio.Event()
        self.active += 1
        await self.gate.wait()
        return ModelReply(text=f"ok:{request.prompt}")

    def open(self, runner: Runner) -> None:
        asyncio.run_coroutine_threadsafe(self._open(), runner._ensure_loop()).result(10)

    async def _open(self) -> None:
        if self.gate is None:
            self.gate = asyncio.Event()
        self.gate.set()


def test_conversations_start_a_few_per_slot_and_in_submission_order() -> None:
    """Thousands submitted at once do not all build their requests (and look them up in
    the cache) before the first is sent: ADMITTED per slot are under way, the rest start
    in order as those finish."""
    from pytest_tom.asking.runner import ADMITTED

    backend = Gated()
    runner = Runner(backend, concurrency=2)
    started: list[str] = []

    def conversation(key: str) -> Any:
        request = ModelRequest(messages=[{"role": "user", "content": key}], params=SamplingParams())

        def step(responses: list[str]) -> ModelRequest | None:
            if responses:
                return None
            started.append(key)
            return request
        return step

    keys = [f"k{i:02d}" for i in range(20)]
    futures = [runner.submit(k, conversation(k)) for k in keys]
    for _ in range(1000):  # until both slots hold a request
        if backend.active == 2:
            break
        time.sleep(0.01)
    loop = runner._ensure_loop()
    for _ in range(5):  # every task that could start has had its turn
        asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(10)
    assert backend.active == 2 and started == keys[:ADMITTED * 2]
    backend.open(runner)
    assert [f.result(30).final for f in futures] == [f"ok:{k}" for k in keys]
    assert started == keys
    runner.close()


def test_identical_calls_in_flight_are_shared_and_keys_never_run_twice() -> None:
    backend = Scripted(latency=0.05)
    runner = Runner(backend, concurrency=8)
    # two items whose prompts are identical, and one key submitted twice
    f1 = runner.submit("item-1", one_call("same"))
    f2 = runner.submit("item-2", one_call("same"))
    f3 = runner.submit("item-1", one_call("same"))
    assert f1 is f3
    assert f1.result(10).final == f2.result(10).final == "ok:same"
    runner.close()
    assert backend.calls == {"same": 1}
    # the second was answered by the first's request: shared, not "from the cache"
    assert f1.result().shared + f2.result().shared == 1
    assert f1.result().cached + f2.result().cached == 0


def test_adaptive_limit_halves_on_repeated_429s_and_recovers() -> None:
    lim = AdaptiveLimit(16)

    def epoch_of(throttled: int, answers: int | None = None) -> None:
        """One epoch's answers: `throttled` 429s among `answers` (default: the limit)."""
        epoch = lim.epoch
        n = lim.limit if answers is None else answers
        for i in range(n):
            lim.answered(epoch, throttled=i < throttled)

    epoch_of(1)
    assert lim.limit == 16  # a single 429 is not "repeated"
    epoch_of(3)
    assert lim.limit == 16  # 3 of 16: a few refusals at random, not a rate limit
    old = lim.epoch
    epoch_of(8)
    assert lim.limit == 8 and lim.lowered == 1
    for _ in range(16):  # late answers to requests sent under the old limit do not count
        lim.answered(old, throttled=True)
    assert lim.limit == 8
    epoch_of(2)
    assert lim.limit == 4
    epoch_of(2)
    epoch_of(1)
    assert lim.limit == 2 and lim.lowest == 2
    for _ in range(12):  # the 429s stop: it grows back to the maximum
        epoch_of(0)
    assert lim.limit == 16


def test_adaptive_limit_ramps_up_one_slot_per_answer_until_crowded() -> None:
    """A server's run starts with a few slots (RAMP_START) and adds one per answer; the first
    429 or connection not made in time ends the ramp, and failed connects cut the limit in
    an epoch as 429s do, named on the requests line."""
    from pytest_tom.report.progress import status_line

    lim = AdaptiveLimit(64, start=4)
    assert (lim.limit, lim.ramping, lim.why_lower) == (4, True, "ramping up")
    for _ in range(4):  # the first round of answers: 4 more slots, 8 in all
        lim.answered(lim.epoch, throttled=False)
    assert lim.limit == 8
    while lim.ramping:
        lim.answered(lim.epoch, throttled=False)
    assert lim.limit == 64 and lim.lowered == 0

    lim = AdaptiveLimit(64, start=4)
    lim.answered(lim.epoch, throttled=False)
    lim.connect_failed(lim.epoch)  # a crowded server: no more ramping
    assert (lim.limit, lim.ramping) == (5, False)
    lim.connect_failed(lim.epoch)
    for _ in range(2):
        lim.answered(lim.epoch, throttled=False)
    assert (lim.limit, lim.lowered, lim.why_lower) == (2, 1, "failed connects")
    stats = RunnerStats(submitted=10, done=10, requests=12, retries=2, connect_retries=2)
    line = status_line(stats, lim.limit, lim.maximum, final=True, why_lower=lim.why_lower)
    assert "2 retries · 2 connects retried (--tom-connect-timeout)" in line
    assert "concurrency 2/64 (failed connects)" in line

    lim = AdaptiveLimit(64, start=4)
    lim.answered(lim.epoch, throttled=True)  # a 429 ends the ramp too
    assert (lim.limit, lim.ramping) == (4, False)
    assert (AdaptiveLimit(16).limit, AdaptiveLimit(16).ramping) == (16, False)  # no ramp asked


def test_adaptive_limit_hands_slots_over_in_order() -> None:
    async def scenario() -> list[int]:
        lim = AdaptiveLimit(2)
        order: list[int] = []

        async def task(i: int) -> None:
            await lim.acquire()
            order.append(i)
            await asyncio.sleep(0.01)
            assert lim.active <= lim.limit
            lim.release()

        await asyncio.gather(*(task(i) for i in range(6)))
        assert lim.active == 0
        return order

    assert asyncio.run(scenario()) == list(range(6))


def _openai_runner(server: ChatServer, tmp_path: Any, **kw: Any) -> Runner:
    from pytest_tom.backends import create_backend

    backend = create_backend("openai:test-model",
                             BackendOptions(base_url=server.base_url, timeout=10))
    cache = ResponseCache(tmp_path / "cache", mode="on")
    return Runner(backend, cache=cache, **kw)


def numbers_conversation(i: int) -> Any:
    return one_call(f"Is the number {i} even?")


def test_20_percent_500_and_429_every_call_answered_once(tmp_path: Any) -> None:
    with ChatServer(respond, failure_rate=0.2, retry_after=0.01, seed=7) as server:
        runner = _openai_runner(server, tmp_path, concurrency=16, retries=10, backoff=0.01)
        futures = [runner.submit(f"n{i}", numbers_conversation(i)) for i in range(120)]
        comps = [f.result(60) for f in futures]
        runner.close()
        right = sum(1 for i, c in enumerate(comps)
                    if (c.final == "Yes.") == (i % 2 == 0))
        assert all(c.error is None for c in comps)
        assert right == expected_right(120)
        assert server.failures > 0
        assert server.requests - server.failures == 120  # each answer asked for once


def test_server_throttling_lowers_the_concurrency(tmp_path: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    with ChatServer(respond, latency=0.03, max_in_flight=4, retry_after=0.02) as server:
        # the whole concurrency at once, not ramped up from RAMP_START: a ramp that the first
        # 429 stops may never reach a limit the server cuts (the ramp: the unit test above)
        monkeypatch.setattr(runner_module, "RAMP_START", 32)
        runner = _openai_runner(server, tmp_path, concurrency=32, retries=30, backoff=0.01)
        assert not runner.limiter.ramping
        futures = [runner.submit(f"n{i}", numbers_conversation(i)) for i in range(80)]
        comps = [f.result(60) for f in futures]
        lowered, lowest = runner.limiter.lowered, runner.limiter.lowest
        runner.close()
        assert all(c.error is None for c in comps)
        assert server.throttled > 0
        assert lowered >= 1 and lowest <= 16
        assert {number_of(b) for b in server.bodies} == set(range(80))


def test_cache_modes_through_the_runner(tmp_path: Any) -> None:
    def run(mode: str, n: int = 10) -> list[Any]:
        from pytest_tom.backends import create_backend

        backend = create_backend("openai:test-model",
                             BackendOptions(base_url=server.base_url, timeout=10))
        runner = Runner(backend, cache=ResponseCache(tmp_path / "c", mode=mode))
        futures = [runner.submit(f"n{i}", numbers_conversation(i)) for i in range(n)]
        out = [f.result(30) for f in futures]
        runner.close()
        return out

    with ChatServer(respond) as server:
        run("read")  # reads, never writes
        assert server.requests == 10
        run("write")
        run("write")  # never reads: asks again and refreshes
        assert server.requests == 30
        comps = run("read")  # finds what "write" stored
        assert server.requests == 30 and all(c.cached == 1 and c.requests == 0 for c in comps)
        comps = run("on", 12)  # 10 from the cache, 2 asked
        assert server.requests == 32 and sum(c.cached for c in comps) == 10
        assert comps[0].cached_usage["total_tokens"] > 0 and comps[11].usage["total_tokens"] > 0
        run("off")
        assert server.requests == 42


def test_a_rerun_reads_its_first_calls_from_the_cache_together(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Conversations queued together have their first calls read from the cache READ_AHEAD
    at a time, one query each, not one per call. One answered to its end is settled without
    a task and counted as a task counts it; one whose first call is not stored is asked
    without reading the cache again; one stored only in part asks the rest."""
    import threading

    monkeypatch.setattr(runner_module, "READ_AHEAD", 16)
    backend = Scripted()
    prompts = [f"p{i}" for i in range(40)]
    run_all(Runner(backend, cache=ResponseCache(tmp_path, mode="on")), [*prompts[:30], "t"])

    two_calls = calls_in_turn("t", "t again")

    reads = {"one": 0, "many": 0, "tasks": 0}
    aget, aget_many, run = ResponseCache.aget, ResponseCache.aget_many, Runner._run

    async def counted_aget(self: ResponseCache, key: str) -> Any:
        reads["one"] += 1
        return await aget(self, key)

    async def counted_many(self: ResponseCache, keys: list[str]) -> Any:
        reads["many"] += 1
        return await aget_many(self, keys)

    async def counted_run(self: Runner, *args: Any) -> Any:
        reads["tasks"] += 1
        return await run(self, *args)

    monkeypatch.setattr(ResponseCache, "aget", counted_aget)
    monkeypatch.setattr(ResponseCache, "aget_many", counted_many)
    monkeypatch.setattr(Runner, "_run", counted_run)
    rerun = Runner(backend, cache=ResponseCache(tmp_path, mode="on"))
    hold = threading.Event()  # the loop starts nothing until every conversation is queued
    rerun._ensure_loop().call_soon_threadsafe(hold.wait, 10)
    futures = {p: rerun.submit(p, one_call(p)) for p in prompts}
    futures["t"] = rerun.submit("t", two_calls)
    hold.set()
    comps = {p: f.result(timeout=30) for p, f in futures.items()}
    assert rerun.wait_idle(10)
    stats = rerun.stats
    rerun.close()
    # 41 first calls read in 3 queries; then one read per call asked, after its claim (an
    # answer another process stored meanwhile), "t again" also looked up before its claim
    assert reads == {"many": 3, "one": 10 + 2, "tasks": 11}
    assert backend.calls == {**{p: 1 for p in prompts}, "t": 1, "t again": 1}  # each once
    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    for p in prompts[:30]:
        c = comps[p]
        assert (c.responses, c.cached, c.requests, c.usage, c.cached_usage, c.error) == (
            [f"ok:{p}"], 1, 0, {}, usage, None)
        assert c.sent == [[{"role": "user", "content": p}]]
    for p in prompts[30:]:
        c = comps[p]
        assert (c.responses, c.cached, c.requests, c.usage, c.cached_usage) == (
            [f"ok:{p}"], 0, 1, usage, {})
    t = comps["t"]
    assert (t.responses, t.cached, t.requests, t.usage, t.cached_usage) == (
        ["ok:t", "ok:t again"], 1, 1, usage, usage)
    assert [m[0]["content"] for m in t.sent] == ["t", "t again"]
    assert (stats.submitted, stats.done, stats.done_cached, stats.cache_hits, stats.errors) == (
        41, 41, 30, 31, 0)


def test_a_conversation_failing_after_its_cached_answer_ends_with_its_error(
        tmp_path: Any) -> None:
    """Read ahead or not, a conversation that raises once it has its cached answer ends
    with that error, the answer kept, as a task would end it."""
    backend = Scripted()
    run_all(Runner(backend, cache=ResponseCache(tmp_path, mode="on")), ["x"])

    def breaks(responses: list[str]) -> ModelRequest | None:
        if responses:
            raise ValueError("no next step")
        return ModelRequest(messages=[{"role": "user", "content": "x"}], params=SamplingParams())

    rerun = Runner(backend, cache=ResponseCache(tmp_path, mode="on"))
    comp = rerun.submit("x", breaks).result(timeout=10)
    stats = rerun.stats
    rerun.close()
    assert comp.error == CallError("ValueError: no next step")
    assert (comp.responses, comp.cached, comp.requests) == (["ok:x"], 1, 0)
    assert (stats.done, stats.errors, backend.calls) == (1, 1, {"x": 1})


class ThinksTooLong(Scripted):
    """Its reply to "x" ran out of budget inside the thought (no answer begun)."""

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        reply = await super().acomplete(request)
        if request.prompt == "x":
            return ModelReply(text="", usage=reply.usage, thought="hmm",
                              finish_reason="length")
        return reply


def test_a_conversation_cut_in_its_thought_ends_there_asked_or_read_ahead(
        tmp_path: Any) -> None:
    """A reply cut off inside the thought ends a two-call conversation at its first call,
    asked (a task) or read from the cache ahead of any task: the next call is never made."""

    two_calls = calls_in_turn("x", "x again")

    backend = ThinksTooLong()
    for cached in (0, 1):  # the first run asks; the rerun reads the reply ahead
        runner = Runner(backend, cache=ResponseCache(tmp_path, mode="on"))
        comp = runner.submit("x", two_calls).result(timeout=10)
        runner.close()
        assert (len(comp.sent), comp.cached, comp.requests, comp.error) == (
            1, cached, 1 - cached, None)
        assert backend.calls == {"x": 1}  # "x again" never asked, "x" asked once


def test_a_call_claimed_by_another_process_is_awaited_not_repeated(tmp_path: Any) -> None:
    """Two runners on one cache folder stand for two xdist workers: the second finds the
    call claimed by the first and waits for its answer instead of asking too."""
    backend = Scripted(latency=0.3)
    first = Runner(backend, cache=ResponseCache(tmp_path, mode="on"), poll=0.01)
    second = Runner(backend, cache=ResponseCache(tmp_path, mode="on"), poll=0.01)
    f1 = first.submit("w1", one_call("shared question"))
    time.sleep(0.1)  # the first has claimed it and is waiting for the server
    f2 = second.submit("w2", one_call("shared question"))
    c1, c2 = f1.result(10), f2.result(10)
    first.close()
    second.close()
    assert backend.calls == {"shared question": 1}
    assert c1.final == c2.final == "ok:shared question"
    assert (c1.requests, c2.requests, c2.cached) == (1, 0, 1)


def test_close_stops_running_conversations_and_starts_no_queued_one() -> None:
    """Submitted conversations start in batches inside the loop (one wake-up per batch,
    not per conversation); `close` must still cancel the ones running (their items get
    a cancelled future, never a hang) and start none of those still queued."""
    class Held(Gated):
        """Gated, counting the calls and leaving `active` when a call ends or is cancelled."""

        calls = 0

        async def acomplete(self, request: ModelRequest) -> ModelReply:
            Held.calls += 1
            try:
                return await super().acomplete(request)
            finally:
                self.active -= 1

    backend = Held()
    runner = Runner(backend, concurrency=2)
    futures = [runner.submit(f"k{i}", one_call(f"p{i}")) for i in range(50)]
    for _ in range(1000):  # until both slots hold a request
        if backend.active == 2:
            break
        time.sleep(0.01)
    assert backend.active == 2
    runner.close()
    assert all(f.done() for f in futures)
    assert all(f.cancelled() for f in futures)
    assert backend.active == 0  # the two requests in flight were cancelled, not left behind
    assert Held.calls == 2  # nothing started after the close


def test_stop_ends_the_conversations_under_way_and_those_waiting_for_their_turn() -> None:
    """`stop` cancels the conversations under way (counted cut short, their futures raise
    asyncio.CancelledError) and ends those still waiting for their turn (ADMITTED per slot
    are under way; the rest wait, no task yet) cancelled, never started and counted
    nowhere, so that no item's future hangs."""
    from pytest_tom.asking.runner import ADMITTED

    backend = Gated()
    runner = Runner(backend, concurrency=1)
    futures = [runner.submit(f"k{i}", one_call(f"p{i}")) for i in range(ADMITTED + 4)]
    for _ in range(1000):  # until the slot holds a request
        if backend.active == 1:
            break
        time.sleep(0.01)
    # the loop may have started the submissions in two batches: one turn of the loop (its
    # callbacks run in order) and the second batch is started too (CI once stopped first)
    asyncio.run_coroutine_threadsafe(asyncio.sleep(0), runner._ensure_loop()).result(10)
    try:
        runner.stop()
        assert all(f.done() for f in futures)
        for f in futures[:ADMITTED]:
            assert not f.cancelled()
            with pytest.raises(asyncio.CancelledError):
                f.result(0)
        assert all(f.cancelled() for f in futures[ADMITTED:])
        assert backend.active == 1  # one request was made, none after it
        assert runner.stats.cut_short == ADMITTED  # under way: cut short; waiting: nowhere
        assert runner.stats.done == runner.stats.errors == 0
        late = runner.submit("late", one_call("late"))  # nothing starts after a stop
        for _ in range(100):
            if late.done():
                break
            time.sleep(0.01)
        assert late.cancelled() and backend.active == 1
    finally:
        runner.close()


def test_many_submissions_from_several_threads_each_run_once() -> None:
    """Submissions arrive from the test thread and (under xdist) from look-ahead scans:
    the batched start runs each key exactly once, whichever thread submitted it first."""
    import threading

    backend = Scripted()
    runner = Runner(backend, concurrency=16)
    keys = [f"k{i}" for i in range(400)]
    got: list[list[Any]] = [[], []]

    def submit_all(into: list[Any]) -> None:
        into.extend(runner.submit(k, one_call(k)) for k in keys)

    threads = [threading.Thread(target=submit_all, args=(g,)) for g in got]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert all(a is b for a, b in zip(got[0], got[1], strict=True))
        assert [f.result(30).final for f in got[0]] == [f"ok:{k}" for k in keys]
    finally:
        runner.close()
    assert backend.calls == {k: 1 for k in keys}
