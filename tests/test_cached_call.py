"""The cached-call layer on its own: hit, share, claim, ask, store, on a real SQLite cache
in a temporary folder, asking the loopback chat server through the real `openai:`
backend under a retry policy (as the runner wires it).

Two `CachedCalls` on one cache folder stand for two processes (xdist workers): a claim
made by this very process for another cache object is held as a live process's is.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer

from pytest_tom.asking.cache import ResponseCache, request_key
from pytest_tom.asking.cached_call import CachedCalls, sharing_key
from pytest_tom.asking.completion import Completion, RunnerStats
from pytest_tom.asking.retry_policy import RetryPolicy
from pytest_tom.asking.runner import AdaptiveLimit
from pytest_tom.backends import create_backend
from pytest_tom.backends.base import Backend, BackendError, ModelReply, ModelRequest, SamplingParams
from pytest_tom.backends.options import BackendOptions

PARAMS = SamplingParams(temperature=0.0, max_tokens=16, seed=0)
# the cache key of one call as pytest-tom 0.x has always written it (main at ffd460d): a
# changed key would make every existing .tom_cache miss
PINNED = {0: "22fa427724dbfb2f084fee03a1e5ba99f35505c6b58afa9ca2d7608090a88809",
          1: "3211778b79514e2f7a49cc66b34b17186fa172f7c13765e569af25e954adf924"}
# the file as it has always been made, written here by hand: not from the package's schema
OLD_SCHEMA = """
CREATE TABLE responses (key TEXT PRIMARY KEY, text TEXT NOT NULL, usage TEXT, model TEXT,
                        created REAL NOT NULL);
CREATE TABLE claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, host TEXT NOT NULL,
                     pid INTEGER NOT NULL, started REAL NOT NULL,
                     process TEXT NOT NULL DEFAULT '', pstart TEXT NOT NULL DEFAULT '',
                     boot TEXT NOT NULL DEFAULT '');
"""


def request(prompt: str = "Where is the ball?") -> ModelRequest:
    return ModelRequest(messages=[{"role": "user", "content": prompt}], params=PARAMS)


def backend(server: ChatServer | None = None, url: str = "http://127.0.0.1:8/v1") -> Backend:
    return create_backend("openai:test-model",
                          BackendOptions(base_url=server.base_url if server else url))


def layer(model: Backend, cache: ResponseCache | None, *, deadline: float = 30.0,
          retries: int = 0) -> CachedCalls:
    """The layer as the runner builds it: asking through the retry policy over slots."""
    stats = RunnerStats()
    ask = functools.partial(RetryPolicy(retries=retries, backoff=0.01, deadline=deadline).call,
                            model.acomplete, AdaptiveLimit(8), stats)
    return CachedCalls(model.identity(), ask, stats, cache=cache, deadline=deadline, poll=0.01)


def run(model: Backend, work: Any) -> Any:
    """Run `work` (a coroutine) on a new event loop, then close the backend's client there."""
    async def main() -> Any:
        try:
            return await work
        finally:
            await model.aclose()

    return asyncio.run(main())


async def call(calls: CachedCalls, prompt: str = "Where is the ball?", sample: int = 0
               ) -> tuple[ModelReply, bool, Completion]:
    comp = Completion()
    reply, came = await calls.call(request(prompt), sample, comp)
    return reply, came, comp


def test_an_existing_cache_file_still_hits_with_the_same_key(tmp_path: Path) -> None:
    key = request_key(backend().identity(), request().messages, PARAMS.to_dict(), 0)
    assert key == PINNED[0]
    assert request_key(backend().identity(), request().messages, PARAMS.to_dict(), 1) == PINNED[1]
    db = sqlite3.connect(tmp_path / "responses.sqlite3")
    db.executescript(OLD_SCHEMA)
    db.execute("INSERT INTO responses VALUES (?, ?, ?, ?, ?)",
               (key, "a) the box", json.dumps({"prompt_tokens": 5, "total_tokens": 7}), "m-1", 1.0))
    db.commit()
    db.close()
    old = ResponseCache(tmp_path, mode="read")  # the file as it is, read as a batch too
    assert asyncio.run(old.aget_many([key, PINNED[1]])) == {key: old.get(key)}
    old.close()
    calls = layer(backend(), ResponseCache(tmp_path, mode="on"))  # nothing listens at :8
    try:
        reply, came, comp = asyncio.run(call(calls))
    finally:
        calls.close()
    assert isinstance(reply, ModelReply) and came
    assert (reply.text, reply.usage, reply.model) == ("a) the box",
                                                      {"prompt_tokens": 5, "total_tokens": 7}, "m-1")
    assert (comp.cached, comp.requests, calls.stats.cache_hits) == (1, 0, 1)
    assert calls.problem is None


def test_a_miss_is_asked_once_and_stored_as_a_typed_reply_in_the_same_row(tmp_path: Path) -> None:
    with ChatServer(lambda body: "b) the basket") as server:
        model = backend(server)
        calls = layer(model, ResponseCache(tmp_path, mode="on"))

        async def twice() -> list[Any]:
            first = await call(calls)
            return [first, await call(calls)]

        try:
            (r1, came1, c1), (r2, came2, c2) = run(model, twice())
        finally:
            calls.close()
    assert server.requests == 1
    assert (r1.text, came1, c1.requests, c1.cached) == ("b) the basket", False, 1, 0)
    assert (r2.text, came2, c2.requests, c2.cached) == ("b) the basket", True, 0, 1)
    assert r2.usage == r1.usage and r1.usage and r2.model == r1.model
    key = request_key(model.identity(), request().messages, PARAMS.to_dict())
    row = sqlite3.connect(tmp_path / "responses.sqlite3").execute(
        "SELECT text, usage, model FROM responses WHERE key = ?", (key,)).fetchone()
    assert row[0] == "b) the basket" and json.loads(row[1]) == r1.usage and row[2] == r1.model
    stored = ResponseCache(tmp_path, mode="read").get(key)
    assert r1.finish_reason == "stop"  # the server's, kept with the reply
    assert stored == ModelReply("b) the basket", r1.usage, r1.model,
                                finish_reason="stop")  # no endpoint kept


def test_identical_calls_in_flight_are_shared_without_a_cache() -> None:
    with ChatServer(latency=0.2) as server:
        model = backend(server)
        calls = layer(model, None)

        async def both() -> list[Any]:
            return list(await asyncio.gather(call(calls), call(calls), call(calls, sample=1)))

        (r1, came1, c1), (r2, came2, c2), (r3, _, c3) = run(model, both())
    assert server.requests == 2  # sample 1 is its own call
    assert r1.text == r2.text == r3.text
    assert (came1, came2, c1.shared, c2.shared, c1.cached + c2.cached) == (False, True, 0, 1, 0)
    assert calls.stats.shared == 1 and c3.shared == 0


def test_without_a_cache_calls_share_exactly_when_they_ask_the_same() -> None:
    """`sharing_key` (the in-flight key without a cache) against the cache key: equal for
    the same call built twice, different whenever the cache key differs."""
    def make(prompt: str = "Where is the ball?", parts: bool = False, **params: Any) -> ModelRequest:
        content: Any = [{"type": "text", "text": prompt}] if parts else prompt
        return ModelRequest(messages=[{"role": "system", "content": "Answer briefly."},
                                      {"role": "user", "content": content}],
                            params=SamplingParams(**{"max_tokens": 16, **params}))

    variants = [(make(), 0), (make(), 1), (make("Where is the box?"), 0),
                (make(max_tokens=32), 0), (make(temperature=0.7), 0), (make(seed=3), 0),
                (make(fields=(("reasoning_effort", '"low"'),)), 0), (make(parts=True), 0),
                (make("Where is the box?", parts=True), 0)]
    keys = [sharing_key(r, s) for r, s in variants]
    cache_keys = [request_key({}, r.messages, r.params.to_dict(), s) for r, s in variants]
    assert len(set(keys)) == len(set(cache_keys)) == len(variants)
    for (r, s), key in zip(variants, keys, strict=True):  # the same call, built again: the same key
        again = ModelRequest(messages=[dict(m) for m in r.messages], params=r.params)
        assert sharing_key(again, s) == key


def test_a_call_claimed_by_another_process_is_waited_for_then_read(tmp_path: Path) -> None:
    with ChatServer(latency=0.3) as server:
        model = backend(server)
        first = layer(model, ResponseCache(tmp_path, mode="on"))
        second = layer(model, ResponseCache(tmp_path, mode="on"))
        seen: list[int] = []

        async def both() -> list[Any]:
            asking = asyncio.ensure_future(call(first))
            await asyncio.sleep(0.1)  # the first holds the claim and waits for the server
            waiting = asyncio.ensure_future(call(second))
            await asyncio.sleep(0.1)
            seen.append(second.stats.waiting)
            return [await asking, await waiting]

        try:
            (r1, _, c1), (r2, came2, c2) = run(model, both())
        finally:
            first.close()
            second.close()
    assert server.requests == 1 and seen == [1] and second.stats.waiting == 0
    assert r2 == ModelReply(r1.text, r1.usage, r1.model, finish_reason=r1.finish_reason)
    assert (c1.requests, c2.requests, c2.cached, came2) == (1, 0, 1, True)


def test_an_answer_that_never_comes_from_the_claimer_ends_at_the_deadline(tmp_path: Path) -> None:
    holder = ResponseCache(tmp_path, mode="on")
    key = request_key(backend().identity(), request().messages, PARAMS.to_dict())
    assert holder.claim(key)  # a live process asks and never answers
    calls = layer(backend(), ResponseCache(tmp_path, mode="on"), deadline=0.3)
    try:
        with pytest.raises(BackendError, match=r"another process was asking the same and gave "
                                               r"no answer within the deadline \(0.3s\)"):
            asyncio.run(call(calls))
    finally:
        calls.close()
        holder.close()


def test_a_failed_call_stores_nothing_and_gives_its_claim_back(tmp_path: Path) -> None:
    with ChatServer(fail_when={"ball": 400}) as server:
        model = backend(server)
        calls = layer(model, ResponseCache(tmp_path, mode="on"))
        try:
            with pytest.raises(BackendError, match="400"):
                run(model, call(calls))
        finally:
            calls.close()
    other = ResponseCache(tmp_path, mode="on")
    key = request_key(model.identity(), request().messages, PARAMS.to_dict())
    assert other.get(key) is None and other.count() == 0
    assert other.claim(key)  # free again
    other.close()


def test_a_cancelled_call_gives_its_claim_back_at_once(tmp_path: Path) -> None:
    with ChatServer(stall_after=0) as server:  # never answers
        model = backend(server)
        cache = ResponseCache(tmp_path, mode="on")
        calls = layer(model, cache)
        key = request_key(model.identity(), request().messages, PARAMS.to_dict())
        other = ResponseCache(tmp_path, mode="on")

        async def cancel() -> bool:
            task = asyncio.ensure_future(call(calls))
            await asyncio.sleep(0.2)
            claimed_meanwhile = other.claim(key)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return claimed_meanwhile

        try:
            assert run(model, cancel()) is False  # held while the call was under way
            assert other.claim(key)  # released by the cancel
        finally:
            server.unstall()
            calls.close()
            other.close()


@pytest.mark.parametrize(("mode", "reads", "writes"), [
    ("on", True, True), ("read", True, False), ("write", False, True), ("off", False, False)])
def test_the_modes(tmp_path: Path, mode: str, reads: bool, writes: bool) -> None:
    seed = ResponseCache(tmp_path, mode="on")
    with ChatServer(lambda body: "fresh") as server:
        model = backend(server)
        seed.put(request_key(model.identity(), request("old").messages, PARAMS.to_dict()),
                 ModelReply("stored", None, "m"))
        seed.close()
        calls = layer(model, ResponseCache(tmp_path, mode=mode))

        async def ask() -> list[Any]:
            return [await call(calls, "old"), await call(calls, "new"), await call(calls, "new")]

        try:
            (old, _, _), (new, _, _), (again, came, _) = run(model, ask())
        finally:
            calls.close()
    assert old.text == ("stored" if reads else "fresh")
    assert again.text == "fresh" and came == (reads and writes)
    assert server.requests == (0 if reads else 1) + (1 if reads and writes else 2)
    rows = ResponseCache(tmp_path, mode="read").count()
    assert rows == (2 if writes else 1)


def test_a_broken_cache_turns_itself_off_and_the_calls_go_on(tmp_path: Path) -> None:
    (tmp_path / "responses.sqlite3").write_bytes(b"not a database at all " * 100)
    with ChatServer(lambda body: "asked") as server:
        model = backend(server)
        calls = layer(model, ResponseCache(tmp_path, mode="on"))

        async def ask() -> list[Any]:
            return [await call(calls), await call(calls)]

        try:
            (r1, _, _), (r2, came, _) = run(model, ask())
        finally:
            calls.close()
    assert r1.text == r2.text == "asked" and not came and server.requests == 2
    problem = calls.problem
    assert problem is not None and "\n" not in problem
    assert str(tmp_path / "responses.sqlite3") in problem and "--tom-cache off" in problem
