"""pytest's progress on an unbuffered standard output: written every 0.1 s during the test
loop, not one system call per item (plugin/progress_output.py; issue 35)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest
from runner_support import numbers_suite

from pytest_tom.plugin.progress_output import BufferedProgress, applies


class CountingRaw(io.RawIOBase):
    """A raw file that keeps what was written and counts the writes (system calls)."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.writes = 0

    def writable(self) -> bool:
        return True

    def write(self, b: bytes) -> int:  # type: ignore[override]
        self.writes += 1
        self.data += bytes(b)
        return len(b)


def test_the_loop_writes_in_batches_and_leaves_the_stream_as_it_was(
        monkeypatch: pytest.MonkeyPatch) -> None:
    raw = CountingRaw()
    stream = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)  # type: ignore[arg-type]
    clock = [100.0]
    monkeypatch.setattr("pytest_tom.plugin.progress_output.time.monotonic", lambda: clock[0])
    progress = BufferedProgress(stream)
    loop = progress.pytest_runtestloop(session=None)  # type: ignore[arg-type]
    next(loop)  # the test loop starts
    assert not stream.write_through
    for i in range(1000):
        stream.write("." if i % 7 else "F")
        clock[0] += 0.001  # 1 ms per item: a flush every 100 items
        progress.pytest_runtest_logfinish(nodeid=f"t{i}", location=None)
    during = raw.writes
    stream.write("end of loop")
    with pytest.raises(StopIteration):
        loop.send(None)  # the loop ends: write-through again, everything written
    assert stream.write_through
    assert 5 <= during <= 12, during  # about one write per 0.1 s, not one per item
    assert raw.data.decode() == "".join("." if i % 7 else "F" for i in range(1000)) + "end of loop"
    stream.write("x")
    assert raw.data.decode().endswith("x")  # written at once again


def test_an_interrupted_loop_still_flushes_and_restores(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = CountingRaw()
    stream = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)  # type: ignore[arg-type]
    loop = BufferedProgress(stream).pytest_runtestloop(session=None)  # type: ignore[arg-type]
    next(loop)
    stream.write("...F")
    with pytest.raises(KeyboardInterrupt):
        loop.throw(KeyboardInterrupt())
    assert stream.write_through and raw.data.decode() == "...F"


@pytest.mark.parametrize("unbuffered", [True, False])
def test_it_applies_only_to_the_interpreter_s_own_unbuffered_stream(unbuffered: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    code = ("import io, sys; from pytest_tom.plugin.progress_output import applies; "
            "print(applies(), applies(io.TextIOWrapper(io.BytesIO(), write_through=True)))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [str(unbuffered), "False"]
    assert not applies(io.StringIO())


REGISTERED = """\
def pytest_sessionfinish(session):
    print("REGISTERED", session.config.pluginmanager.has_plugin("tom-progress-output"))
"""


@pytest.mark.parametrize("unbuffered", [True, False])
def test_a_run_on_an_unbuffered_output_shows_everything_in_order(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, unbuffered: bool) -> None:
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)
    if unbuffered:
        monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    pytester.makeconftest(REGISTERED)
    pytester.makepyfile(answers="def answer(request):\n    return 'Yes.'\n")
    pytester.makefile(".tom.yaml", numbers=numbers_suite(300))
    result = pytester.runpytest_subprocess("--tom-model=python:answers.py:answer",
                                           "-p", "no:cacheprovider", "--tom-cache=off",
                                           "-q", "--tb=no")
    result.assert_outcomes(passed=150, failed=150)
    text = result.stdout.str()
    progress = ""
    for line in text.split("REGISTERED")[0].splitlines():
        letters = re.sub(r"\s*\[\s*\d+%\]\s*$", "", line)
        if letters and set(letters) <= {".", "F"}:
            progress += letters
    assert progress == ".F" * 150  # every item's letter, in the items' order
    assert f"REGISTERED {unbuffered}" in text
    assert text.index("REGISTERED") < text.index("tom totals")
