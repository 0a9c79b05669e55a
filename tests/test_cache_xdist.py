"""The response cache under xdist: every worker of a `-n 2` run keeps the cache on.

Issue 24: the two workers opened the same new database at the same moment and
one of them, meeting the other's lock while setting the file up, turned its
cache off for the whole run ("stayed locked by another program"), so about half
the answers were never cached. Twenty runs in a row on a fresh cache folder:
every answer is cached every time and no run prints a cache line.
"""

from __future__ import annotations

import pytest
from chat_server import ChatServer
from runner_support import cached_rows, numbers_suite, respond, tom_args

pytest.importorskip("xdist")

ITEMS = 40
RUNS = 20


@pytest.mark.slow
def test_twenty_runs_under_n2_cache_every_answer(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(ITEMS))
    with ChatServer(respond) as server:
        for run in range(RUNS):
            folder = pytester.path / f"cache{run:02d}"
            result = pytester.runpytest_subprocess(
                *tom_args(server, f"--tom-cache-dir={folder}", "--tom-concurrency=16",
                          "-n", "2"))
            result.assert_outcomes(passed=ITEMS - ITEMS // 5, failed=ITEMS // 5)
            lines = [ln for ln in result.outlines if "tom cache:" in ln]
            assert lines == [], (run, lines)
            assert cached_rows(folder) == ITEMS, (run, cached_rows(folder))
        assert server.requests == RUNS * ITEMS
