"""Ctrl-C on a run of the embedded model (issue 33 point 8): the process ends with its summary.

The calls of a run wait in threads for the model's one slot. Before the fix, cancelling
them at Ctrl-C left those threads to generate every queued answer after the summary had
been printed (the interpreter joins them at exit): the CPU stayed busy for seconds to
minutes and the answers were thrown away. Now a queued call that nobody waits for any more
is not generated; only the generation under way when Ctrl-C came runs to its end.

The test runs pytest in a subprocess, sends SIGINT after the first answers, and measures
the time from the summary line to the end of the process. The bound is generous and
relative to the machine's own pace: a few times the longest gap between two answers seen
before the interrupt (one generation each), never less than 10 s; the old code's tail was
every queued generation (the concurrency, 32 here, minus the ones done).
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import SUITES
from test_local_backend import needs_model

RESULT = re.compile(r" (PASSED|FAILED|XFAIL|XPASS|ERROR)\b")
SUMMARY = re.compile(r"^=+ .* in [\d.]+s")
ANSWERS_BEFORE_INTERRUPT = 3


def read_lines(stream: object, into: queue.Queue[tuple[float, str | None]]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put((time.monotonic(), line.rstrip("\n")))
    into.put((time.monotonic(), None))


@needs_model
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_ends_the_process_with_its_summary(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_XDIST_WORKER_COUNT", None)
    cmd = [sys.executable, "-m", "pytest", str(SUITES / "generic"), "--tom-model=local",
           "--tom-limit=60", "--tom-concurrency=32", "--tom-threads=1", "--tom-cache=off",
           "-v", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
           f"--rootdir={tmp_path}"]
    child = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
    threading.Thread(target=read_lines, args=(child.stdout, lines), daemon=True).start()
    seen: list[str] = []
    answers: list[float] = []
    summary_at: float | None = None
    try:
        while True:
            at, line = lines.get(timeout=600)
            if line is None:
                break
            seen.append(line)
            if RESULT.search(line) and len(answers) < ANSWERS_BEFORE_INTERRUPT:
                answers.append(at)
                if len(answers) == ANSWERS_BEFORE_INTERRUPT:
                    child.send_signal(signal.SIGINT)
            if SUMMARY.search(line):
                summary_at = at
        child.wait(timeout=600)
        ended = time.monotonic()
    finally:
        if child.poll() is None:
            child.kill()
    out = "\n".join(seen)
    assert len(answers) == ANSWERS_BEFORE_INTERRUPT, out[-3000:]
    assert summary_at is not None, out[-3000:]
    assert child.returncode == pytest.ExitCode.INTERRUPTED, out[-3000:]
    assert "KeyboardInterrupt" in out
    one_answer = max(b - a for a, b in zip(answers, answers[1:], strict=False))
    bound = max(10.0, 4 * one_answer)
    tail = ended - summary_at
    assert tail < bound, (f"the process ran {tail:.1f}s after its summary (bound {bound:.1f}s, "
                          f"one answer took up to {one_answer:.1f}s)\n{out[-3000:]}")
