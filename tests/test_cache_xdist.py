"""The response cache under xdist: every worker of a `-n 2` run keeps the cache on.

Issue 24: the two workers opened the same new database at the same moment and
one of them, meeting the other's lock while setting the file up, turned its
cache off for the whole run ("stayed locked by another program"), so about half
the answers were never cached. The race itself: eight processes open one new
cache at the same moment, twenty times, and every one keeps its cache on. The
whole path: two `-n 2` runs in a row on a fresh cache folder cache every
answer every time and print no cache line.

A `-n 2` run killed with `kill -9` (controller and workers at once) keeps every
answer its workers had received: the rerun asks again only what was in flight
at the kill (before: 1,512 of 2,000 items asked again after 1,010 answers).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from runner_support import cached_rows, numbers_suite, respond, tom_args

from pytest_tom.asking.cache import ResponseCache

pytest.importorskip("xdist")

ITEMS = 10  # both workers write: the race is at the cache's first opening, not in its size
RUNS = 2  # the path, not the race (the test above): a fresh cache folder each run
OPENERS = 8  # processes opening one new cache at once, in each of ROUNDS fresh folders
ROUNDS = 20


def _open_at_once(folder: str, start: Any, problems: Any) -> None:
    """One process of a run: open the shared new cache when every sibling is ready."""
    start.wait(30)
    cache = ResponseCache(Path(folder))
    problems.put(cache.problem or "")
    cache.close()


def test_processes_opening_one_new_cache_at_once_all_keep_it_on(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    for round_ in range(ROUNDS):
        folder = tmp_path / f"cache{round_:02d}"
        start, problems = context.Barrier(OPENERS), context.Queue()
        procs = [context.Process(target=_open_at_once, args=(str(folder), start, problems))
                 for _ in range(OPENERS)]
        for proc in procs:
            proc.start()
        said = [problems.get(timeout=60) for _ in procs]
        for proc in procs:
            proc.join(30)
        assert said == [""] * OPENERS, (round_, said)  # nobody turned the cache off


@pytest.mark.slow
def test_runs_under_n2_cache_every_answer(pytester: pytest.Pytester) -> None:
    # about 6 s: two `-n 2` runs, each starting two worker processes (about 2.5 s of CPU
    # each); the race at the cache's opening is the test above's subject, in more
    # processes and more rounds than runs would give
    pytester.makefile(".tom.yaml", numbers=numbers_suite(ITEMS))
    with ChatServer(respond) as server:
        for run in range(RUNS):
            folder = pytester.path / f"cache{run:02d}"
            # in process: the workers are processes of their own all the same
            result = pytester.runpytest(
                *tom_args(server, f"--tom-cache-dir={folder}", "--tom-concurrency=16",
                          "-n", "2"))
            result.assert_outcomes(passed=ITEMS - ITEMS // 5, failed=ITEMS // 5)
            lines = [ln for ln in result.outlines if "tom cache:" in ln]
            assert lines == [], (run, lines)
            assert cached_rows(folder) == ITEMS, (run, cached_rows(folder))
        assert server.requests == RUNS * ITEMS


KILL_ITEMS = 200
ANSWERED = 100  # answers the server gives before the kill
CONCURRENCY = 8  # per worker: at most 2 x 8 requests in flight at the kill


@pytest.mark.slow
def test_a_run_under_n2_killed_hard_reasks_only_what_was_in_flight(
        pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(KILL_ITEMS))
    folder = pytester.path / "cache"
    with ChatServer(respond, stall_after=ANSWERED) as server:
        cmd = [sys.executable, "-m", "pytest", "-q", "-n", "2",
               *tom_args(server, f"--tom-cache-dir={folder}", f"--tom-concurrency={CONCURRENCY}")]
        proc = subprocess.Popen(cmd, cwd=pytester.path, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while server.requests < ANSWERED:  # kill at once, at the last answer
                assert proc.poll() is None, "the run ended before it could be killed"
                assert time.monotonic() < deadline, "the run never got halfway"
                time.sleep(0.01)
            os.killpg(proc.pid, signal.SIGKILL)  # the controller and both workers
            assert proc.wait(30) == -signal.SIGKILL
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(30)
        server.unstall()  # the requests held at the kill were never answered
        assert server.requests == ANSWERED
        kept = cached_rows(folder)
        assert kept >= ANSWERED - 2 * CONCURRENCY, kept  # lost: at most what was in flight
        result = pytester.runpytest_subprocess(
            *tom_args(server, f"--tom-cache-dir={folder}", f"--tom-concurrency={CONCURRENCY}",
                      "--tom-deadline=60", "-n", "2"))
    result.assert_outcomes(passed=KILL_ITEMS - KILL_ITEMS // 5, failed=KILL_ITEMS // 5)
    asked_again = server.requests - ANSWERED
    assert asked_again == KILL_ITEMS - kept  # nothing the cache held was asked again
    assert asked_again <= KILL_ITEMS - ANSWERED + 2 * CONCURRENCY
    assert cached_rows(folder) == KILL_ITEMS
    assert [ln for ln in result.outlines if "tom cache:" in ln] == []


def test_the_test_server_drops_what_a_killed_run_left_in_its_buffers() -> None:
    """The kill test above counts the rerun's requests at the server: a request the killed run
    sent before its end but that the server reads only after `unstall()` (a loaded machine)
    must not count. Requests on a connection accepted before `unstall()` are dropped unanswered
    and uncounted; a new connection's are answered."""
    import http.client
    import json

    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "q"}]})
    headers = {"Content-Type": "application/json"}
    with ChatServer(stall_after=1) as server:
        old = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        old.request("POST", "/v1/chat/completions", body, headers)
        assert old.getresponse().read()  # the one answer before the stall
        server.unstall()
        old.request("POST", "/v1/chat/completions", body, headers)  # read after unstall()
        with pytest.raises((http.client.HTTPException, ConnectionError)):
            old.getresponse().read()
        old.close()
        assert server.requests == 1
        new = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        new.request("POST", "/v1/chat/completions", body, headers)
        assert new.getresponse().status == 200
        new.close()
        assert server.requests == 2
