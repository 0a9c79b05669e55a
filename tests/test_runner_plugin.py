"""Model calls through pytest itself: failures and retries, cache reruns, kill -9 and resume,
xdist workers, selection, samples, progress and the usage summary.

The test server answers the generated numbers suite (see runner_support) with a
known set of right answers, so each run's figures are known in advance.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from runner_support import cached_rows, expected_right, number_of, numbers_suite, respond, tom_args

N = 40


def report(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def figures(rep: dict[str, Any]) -> dict[str, Any]:
    """The numbers of a report that must not depend on how answers were obtained."""
    suite = rep["suites"]["numbers"]
    items = sorted((r["item"]["id"], r["outcome"]["correct"], r["outcome"]["error"])
                   for r in rep["items"])
    return {"metrics": suite["metrics"], "totals": rep["totals"], "items": items}


@pytest.fixture
def suite(pytester: pytest.Pytester) -> Path:
    return pytester.makefile(".tom.yaml", numbers=numbers_suite(N))


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_20_percent_failures_still_score_every_item_right(
        pytester: pytest.Pytester, suite: Path, workers: list[str]) -> None:
    with ChatServer(respond, failure_rate=0.2, retry_after=0.01, seed=3) as server:
        result = pytester.runpytest(*tom_args(server, "--tom-retries=12", "--tom-report=r.json"),
                                    *workers)
    rep = report(pytester.path / "r.json")
    m = rep["suites"]["numbers"]["metrics"]
    assert (m["items"], m["correct"], m["errors"]) == (N, expected_right(N), 0)
    result.assert_outcomes(passed=expected_right(N), failed=N - expected_right(N))
    assert server.failures > 0
    # every item's answer was asked for exactly once (failures are retried, answers never)
    assert server.requests - server.failures == N
    assert sorted({number_of(b) for b in server.bodies}) == list(range(N))


def test_cached_rerun_makes_no_request_and_gives_the_same_numbers(
        pytester: pytest.Pytester, suite: Path) -> None:
    with ChatServer(respond) as server:
        first = pytester.runpytest(*tom_args(server, "--tom-report=first.json",
                                             "--tom-prices=test-model=1000/2000"))
        assert server.requests == N
        second = pytester.runpytest(*tom_args(server, "--tom-report=second.json"))
        third = pytester.runpytest(*tom_args(server, "--tom-report=third.json"), "-n", "2")
        assert server.requests == N  # the reruns asked nothing
    for run in (first, third):
        run.assert_outcomes(passed=expected_right(N), failed=N - expected_right(N))
    second.assert_outcomes(passed=expected_right(N), failed=N - expected_right(N))
    a, b, c = (report(pytester.path / f"{n}.json") for n in ("first", "second", "third"))
    assert figures(a) == figures(b) == figures(c)
    assert sum(r["cached"] for r in b["items"]) == N and sum(r["requests"] for r in b["items"]) == 0
    assert (pytester.path / ".tom_cache" / ".gitignore").exists()
    second.stdout.fnmatch_lines([f"tom requests: {N}/{N} · {N} cached · 0 retries · 0 errors*"])
    # the first run: a live line (a plain line without a terminal), then the usage summary
    first.stdout.fnmatch_lines([
        f"tom requests: {N}/{N} · * retries · 0 errors · * req/s · done in *",
        "*tom requests*",
        "model *items*requests*retries*from cache*shared*errors*prompt tok*completion tok*"
        "cached tok*cost",
        f"openai:test-model @ http://127.0.0.1:* *{N} *",
    ])
    # the server counts words: each prompt and answer; cost = tokens x price per million
    prompt_tokens = sum(len(str(m["content"]).split()) for b in server.bodies for m in b["messages"])
    cost = (prompt_tokens * 1000 + N * 2000) / 1e6
    first.stdout.fnmatch_lines([f"openai:test-model @ * ${cost:.4f}"])


def test_cache_off_clear_and_dir(pytester: pytest.Pytester, suite: Path) -> None:
    with ChatServer(respond) as server:
        quiet = pytester.runpytest(*tom_args(server, "--tom-cache=off"), "-q")
        assert server.requests == N and not (pytester.path / ".tom_cache").exists()
        assert "tom requests" not in quiet.stdout.str()  # -q: no progress, no usage table
        assert "req/s" not in quiet.stdout.str()
        pytester.runpytest(*tom_args(server, "--tom-cache-dir=elsewhere/c"))
        assert server.requests == 2 * N and cached_rows(pytester.path / "elsewhere" / "c") == N
        pytester.runpytest(*tom_args(server, "--tom-cache-dir=elsewhere/c", "--tom-cache-clear"),
                           "-n", "2")
        assert server.requests == 3 * N  # cleared once (by the controller), then refilled
        assert cached_rows(pytester.path / "elsewhere" / "c") == N


def test_a_run_killed_halfway_resumes_without_asking_twice(
        pytester: pytest.Pytester, suite: Path) -> None:
    half = N // 2
    with ChatServer(respond, stall_after=half) as server:
        cmd = [sys.executable, "-m", "pytest", *tom_args(server, "--tom-concurrency=8"), "-q"]
        proc = subprocess.Popen(cmd, cwd=pytester.path, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            # wait until the run holds `half` answers in its cache and is stuck on the rest
            while cached_rows(pytester.path / ".tom_cache") < half or server.stalled == 0:
                assert proc.poll() is None, "the run ended before it could be killed"
                assert time.monotonic() < deadline, "the run never got halfway"
                time.sleep(0.05)
            os.kill(proc.pid, signal.SIGKILL)
            assert proc.wait(30) == -signal.SIGKILL
        finally:
            if proc.poll() is None:
                proc.kill()
        server.unstall()  # the requests in flight at the kill were never answered
        assert server.requests == half
        # half of the dead run's claims as a container would leave them: made by a process
        # with the pid the rerun has (PID 1), which the rerun must not mistake for itself
        db = sqlite3.connect(pytester.path / ".tom_cache" / "responses.sqlite3")
        with db:
            db.execute("UPDATE claims SET pid = ? WHERE rowid % 2 = 0", (os.getpid(),))
            assert db.execute("SELECT count(*) FROM claims WHERE pid = ?",
                              (os.getpid(),)).fetchone()[0] > 0
        db.close()
        # (a deadline, so that a wait for the dead run's answers ends: the test fails, not hangs)
        result = pytester.runpytest(*tom_args(server, "--tom-report=r.json", "--tom-deadline=30"))
    result.assert_outcomes(passed=expected_right(N), failed=N - expected_right(N))
    assert server.requests == N
    assert set(server.per_prompt.values()) == {1}  # no prompt was asked twice
    rep = report(pytester.path / "r.json")
    assert sum(r["cached"] for r in rep["items"]) == half
    assert rep["suites"]["numbers"]["metrics"]["correct"] == expected_right(N)


def test_only_selected_items_are_requested(pytester: pytest.Pytester, suite: Path) -> None:
    with ChatServer(respond) as server:
        result = pytester.runpytest(*tom_args(server), "-k", "sc0001 or sc0003")
        result.assert_outcomes(passed=6, failed=2, deselected=N - 8)
        assert sorted(number_of(b) for b in server.bodies) == [4, 5, 6, 7, 12, 13, 14, 15]
        result = pytester.runpytest(*tom_args(server), "-n", "2", "-k", "sc0002")
        result.assert_outcomes(passed=3, failed=1)  # (xdist does not count deselected)
        assert sorted(number_of(b) for b in server.bodies[8:]) == [8, 9, 10, 11]
        assert server.requests == 12


def test_xdist_workers_request_their_items_ahead_and_once(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(60))
    with ChatServer(respond, latency=0.05) as server:
        # no cache: nothing coordinates the workers but the items each was sent
        result = pytester.runpytest(*tom_args(server, "--tom-concurrency=8", "--tom-cache=off"),
                                    "-n", "2")
    result.assert_outcomes(passed=expected_right(60), failed=60 - expected_right(60))
    assert server.requests == 60 and set(server.per_prompt.values()) == {1}
    # items were requested before their turn: more in flight than the two workers
    assert server.peak_in_flight > 2


def test_a_4xx_fails_the_item_at_once_and_stays_in_the_denominator(
        pytester: pytest.Pytester, suite: Path) -> None:
    with ChatServer(respond, fail_when={"number 7 even": 400, "number 9 even": 503}) as server:
        result = pytester.runpytest(*tom_args(server, "--tom-retries=2", "--tom-report=r.json"))
    assert server.per_prompt.most_common()[0][1] == 3  # the 503: first try + 2 retries
    bad = [b for b in server.bodies if number_of(b) == 7]
    assert len(bad) == 1  # the 400: never retried
    rep = report(pytester.path / "r.json")
    m = rep["suites"]["numbers"]["metrics"]
    assert (m["items"], m["errors"], m["correct"]) == (N, 2, expected_right(N) - 2)
    result.stdout.fnmatch_lines(["*tom requests*", "2 item(s) without an answer*",
                                 "  numbers::sc0001::q00007: HTTP 400*",
                                 "  numbers::sc0002::q00009: HTTP 503*gave up after 3 attempts*"])


def test_samples_report_mean_and_spread(pytester: pytest.Pytester, suite: Path) -> None:
    with ChatServer(respond) as server:
        args = tom_args(server, "--tom-temperature=0.7", "--tom-samples=3", "--tom-report=r.json")
        result = pytester.runpytest(*args)
        assert server.requests == 3 * N
        assert {b["seed"] for b in server.bodies} == {0, 1, 2}
        rep = report(pytester.path / "r.json")
        again = pytester.runpytest(*args[:-1], "--tom-samples=4", "--tom-report=r4.json",
                                   "--tb=short")  # 40 failures: each story only when asked
        assert server.requests == 4 * N  # samples 0-2 came from the cache
    per_sample = [expected_right(N, s) / N for s in range(3)]
    mean = sum(per_sample) / 3
    sd = (sum((p - mean) ** 2 for p in per_sample) / 2) ** 0.5
    suite_rep = rep["suites"]["numbers"]
    assert suite_rep["samples"] == 3
    assert suite_rep["metrics"]["turn"] == pytest.approx(mean)
    assert suite_rep["spread"]["turn"] == pytest.approx(sd)
    assert all(len(r["samples"]) == 3 for r in rep["items"])
    # an item passes only when every sample is right
    all_right = sum(1 for i in range(N) if all(expected_right(i + 1, s) - expected_right(i, s)
                                               for s in range(3)))
    result.assert_outcomes(passed=all_right, failed=N - all_right)
    result.stdout.fnmatch_lines([f"mean over 3 samples*turn {100 * mean:.1f}% ± {100 * sd:.1f}%*"])
    assert report(pytester.path / "r4.json")["suites"]["numbers"]["samples"] == 4
    again.stdout.fnmatch_lines(["*samples:  */4 right*"])


def test_bad_runner_options_are_usage_errors(pytester: pytest.Pytester, suite: Path) -> None:
    with ChatServer(respond) as server:
        for bad, words in [("--tom-samples=0", "--tom-samples must be at least 1"),
                           ("--tom-concurrency=0", "--tom-concurrency must be at least 1"),
                           ("--tom-prices=cheap", "--tom-prices: expected IN/OUT")]:
            result = pytester.runpytest(*tom_args(server, bad))
            assert result.ret == pytest.ExitCode.USAGE_ERROR
            result.stderr.fnmatch_lines([f"*{words}*"])
        assert server.requests == 0


def test_python_backends_are_not_cached(pytester: pytest.Pytester, suite: Path) -> None:
    pytester.makepyfile(answer="def answer(req):\n    return 'Yes.'\n")
    result = pytester.runpytest("--tom-model=python:answer:answer", "-p", "no:cacheprovider",
                                "--tom-samples=2")
    result.assert_outcomes(passed=N // 2, failed=N // 2)
    assert not (pytester.path / ".tom_cache").exists()
    result.stdout.fnmatch_lines(["*no cache (python backend: no identity())*",
                                 "*--tom-samples 2 at temperature 0: the samples will most likely*"])
