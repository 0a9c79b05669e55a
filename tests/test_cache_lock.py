"""A cache locked by another process (issue 24, point 1).

- A put, claim or look-up that meets a sibling's lock waits with `asyncio.sleep`:
  the runner's event loop goes on meanwhile (here: an answer from the cache is
  handed out while another item waits for the lock). Before, SQLite's busy
  handler slept inside the loop's thread for up to 60 s and every item stopped.
- A lock that never clears turns the cache off with a line naming who uses the
  cache, from the claim records: pytest-tom's pid, host and start time; or that
  no pytest-tom process has a claim (another program holds it).
"""

from __future__ import annotations

import multiprocessing
import socket
import sqlite3
from pathlib import Path
from typing import Any

from runner_support import Echo, one_call

from pytest_tom.asking.cache import ResponseCache, request_key
from pytest_tom.asking.runner import Runner
from pytest_tom.backends.base import SamplingParams


def _hold(folder: str, ready: Any, release: Any) -> None:
    """Another pytest-tom process: claims one request, then holds the write lock."""
    cache = ResponseCache(Path(folder))
    assert cache.claim("someone-elses-request")
    db = sqlite3.connect(Path(folder) / "responses.sqlite3", isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    ready.set()
    release.wait(120)
    db.execute("COMMIT")
    cache.close()


class Holder:
    def __init__(self, folder: Path):
        ctx = multiprocessing.get_context("fork")
        self.ready, self.release = ctx.Event(), ctx.Event()
        self.proc = ctx.Process(target=_hold, args=(str(folder), self.ready, self.release))

    def __enter__(self) -> Holder:
        self.proc.start()
        assert self.ready.wait(60), "the holder never took the lock"
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.proc.join(30)


def test_a_locked_cache_does_not_stop_the_event_loop(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache.put(request_key(Echo().identity(), one_call("old")([]).messages, SamplingParams().to_dict()),
              "cached:old", None, None)
    runner = Runner(Echo(), cache=cache, retries=0, poll=0.01)
    try:
        with Holder(tmp_path):
            new = runner.submit("new", one_call("new"))  # its claim waits for the lock
            old = runner.submit("old", one_call("old"))  # in the cache: read while it is locked
            assert old.result(timeout=30).final == "cached:old"
            assert not new.done()  # still waiting for the lock, which is still held
        assert new.result(timeout=30).final == "echo:new"
    finally:
        runner.close()
    assert runner.cache_problem is None
    assert ResponseCache(tmp_path).count() == 2  # the waiting answer was stored after all


def test_a_lock_that_never_clears_names_who_holds_it(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path, lock_timeout=0.5)  # opened before the lock is taken
    runner = Runner(Echo(), cache=cache, retries=0, poll=0.01)
    with Holder(tmp_path) as holder:
        try:
            assert runner.submit("p", one_call("p")).result(timeout=30).final == "echo:p"
        finally:
            runner.close()
        problem = runner.cache_problem
    assert problem is not None and "\n" not in problem
    assert f"stayed locked for 0.5s (database is locked); in use by pytest-tom pid " \
           f"{holder.proc.pid} on host {socket.gethostname()}, started 20" in problem
    assert "(claiming since 20" in problem and "asking 1 request:" in problem
    assert "another program" not in problem and "--tom-cache off" in problem


def test_a_lock_without_claims_is_another_programs(tmp_path: Path) -> None:
    ResponseCache(tmp_path).close()
    shell = sqlite3.connect(tmp_path / "responses.sqlite3", isolation_level=None)
    shell.execute("BEGIN IMMEDIATE")  # an sqlite3 shell left in a transaction
    try:
        cache = ResponseCache(tmp_path, lock_timeout=0.3)
        cache.put("k", "text", None, None)
    finally:
        shell.execute("ROLLBACK")
        shell.close()
    assert cache.problem is not None
    assert "no pytest-tom process has a claim in it: another program holds it" in cache.problem


def test_a_new_cache_locked_at_set_up_names_the_holder(tmp_path: Path) -> None:
    with Holder(tmp_path) as holder:
        cache = ResponseCache(tmp_path, lock_timeout=0.3)
    assert cache.problem is not None and cache.fault == "locked"
    assert f"in use by pytest-tom pid {holder.proc.pid} on host" in cache.problem
