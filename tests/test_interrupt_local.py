"""Ctrl-C on a run of the embedded model (issue 33 point 8): the process ends with its summary.

The calls of a run wait in threads for the model's one slot. Before the fix, cancelling
them at Ctrl-C left those threads to generate every queued answer after the summary had
been printed (the interpreter joins them at exit): the CPU stayed busy for seconds to
minutes and the answers were thrown away. Now a queued call that nobody waits for any more
is not generated; only the generation under way when Ctrl-C came runs to its end.

The test runs pytest in a subprocess, sends SIGINT after the first answers, and counts,
through a plugin in that process (GENERATIONS), the generations llama.cpp started after
pytest's last output: none may start (the old code started every queued one, the
concurrency, 4 here, minus the one under way: the run keeps 4 calls in flight).
The concurrency is small because the calls take the slot in no set order while pytest
prints its result lines in item order: the first lines can wait for about as many
generations as there are calls in flight (at 32, most of the test's 28 s of CPU went to
generations made before the interrupt). It also measures the CPU time the process
spent after its summary line, the cost a user sees: CPU, not wall-clock time, so a busy
machine does not change the figure (a wall-clock bound failed at load 16). That bound is
relative to the model's own cost, a few times the most CPU one answer took before the
interrupt (the CPU between two answer lines), never less than 5 s, and so loose: the
calls take the model's slot in no set order, and one answer line can wait for many
generations (104 s measured), more than the old code's whole tail. The count is the
test's sharp edge.
"""

from __future__ import annotations

import os
import queue
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import SUITES
from test_local_backend import needs_model

RESULT = re.compile(r"\b(PASSED|FAILED|XFAIL|XPASS|ERROR) +\[ *\d+%\]")
# llama.cpp's own log lines (xllamacpp 0.2.0 printed them at verbosity 0, between the item's
# name and its result, until the backend set the threshold below them)
LLAMA_LOG = re.compile(r"^(slot |srv |prompt eval time|~Server:|init: )", re.MULTILINE)
SUMMARY = re.compile(r"^=+ .* in [\d.]+s")
ANSWERS_BEFORE_INTERRUPT = 3
CONCURRENCY = 4  # calls in flight: 3 queued behind the one generating when Ctrl-C comes

# A plugin of the child process (`-p tom_generations`): counts the generations llama.cpp
# starts before and after pytest's last hook, and writes the counts once the interpreter
# has joined its threads (atexit runs after that), where the old code's tail ran.
GENERATIONS = """
import atexit, os
import pytest
from pytest_tom.backends import local

COUNTS = {"ended": False, "before": 0, "after": 0}


class Counting:
    def __init__(self, server):
        self._server = server

    def __getattr__(self, name):
        return getattr(self._server, name)

    def handle_chat_completions(self, body):
        COUNTS["after" if COUNTS["ended"] else "before"] += 1
        return self._server.handle_chat_completions(body)


_server = local.LoadedModel.server
local.LoadedModel.server = lambda self: Counting(_server(self))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure():
    COUNTS["ended"] = True


@atexit.register
def _write():
    with open(os.environ["TOM_GENERATIONS"], "w") as out:
        out.write(f"{COUNTS['before']} {COUNTS['after']}")
"""


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time of a live process, all its threads (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def read_lines(stream: object, into: queue.Queue[tuple[float, str | None]]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put((time.monotonic(), line.rstrip("\n")))
    into.put((time.monotonic(), None))


@needs_model
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads CPU times from /proc")
def test_ctrl_c_ends_the_process_with_its_summary(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "tom_generations.py").write_text(GENERATIONS)
    counts = tmp_path / "generations.txt"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TOM_GENERATIONS": str(counts),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path),
                                                       os.environ.get("PYTHONPATH")]))}
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_XDIST_WORKER_COUNT", None)
    cmd = [sys.executable, "-m", "pytest", str(SUITES / "generic"), "--tom-model=local",
           "--tom-limit=60", f"--tom-concurrency={CONCURRENCY}", "--tom-threads=1",
           "--tom-cache=off",
           "--tom-max-tokens=16",  # short answers: the queue, not their length, is the subject
           "-v", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
           "-p", "tom_generations",
           f"--rootdir={tmp_path}"]
    cpu_before = children_cpu()  # the CPU of children already waited for
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
                answers.append(cpu_seconds(child.pid))
                if len(answers) == ANSWERS_BEFORE_INTERRUPT:
                    child.send_signal(signal.SIGINT)
            if SUMMARY.search(line) and summary_at is None:
                summary_at = cpu_seconds(child.pid)  # the process is alive until its output ends
        child.wait(timeout=600)
        total = children_cpu() - cpu_before  # this child's CPU, now that it was waited for
    finally:
        if child.poll() is None:
            child.kill()
    out = "\n".join(seen)
    logged = LLAMA_LOG.findall(out)
    assert not logged, f"llama.cpp logged {len(logged)} lines into the terminal\n{out[-3000:]}"
    assert len(answers) == ANSWERS_BEFORE_INTERRUPT, out[-3000:]
    assert summary_at is not None, out[-3000:]
    assert child.returncode == pytest.ExitCode.INTERRUPTED, out[-3000:]
    assert "KeyboardInterrupt" in out
    before, after = map(int, counts.read_text().split())
    assert before >= ANSWERS_BEFORE_INTERRUPT, out[-3000:]
    assert after == 0, f"{after} generations started after pytest's last output\n{out[-3000:]}"
    one_answer = max(b - a for a, b in zip(answers, answers[1:], strict=False))
    bound = max(5.0, 4 * one_answer)
    tail = total - summary_at
    assert tail < bound, (f"the process used {tail:.1f}s of CPU after its summary (bound "
                          f"{bound:.1f}s, one answer took up to {one_answer:.1f}s of CPU)"
                          f"\n{out[-3000:]}")
