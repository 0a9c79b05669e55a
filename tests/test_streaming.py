"""The default test loop streams: items are scored while the later answers are still coming.

`--tom-requests-first` asks for every answer before the first item runs (with a
live line). Both give the same outcomes, reports and exit codes; -x asks a window
ahead in both; FANToM's free answers are still prepared in batches.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from conftest import FAMILY_TESTS, SUITES
from embedding_model import embedder  # noqa: F401  (fixture: FANToM's model, loaded once)
from runner_support import expected_right, numbers_suite, respond, tom_args

N = 40


def figures(path: Path) -> dict[str, Any]:
    rep = json.loads(path.read_text(encoding="utf-8"))
    items = [(r["item"]["id"], r["outcome"], r["responses"]) for r in rep["items"]]
    return {"suites": rep["suites"], "totals": rep["totals"], "items": items}


def test_streamed_and_requests_first_runs_give_the_same_results(
        pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(N))
    runs = {}
    with ChatServer(respond, failure_rate=0.2, retry_after=0.01, seed=5) as server:
        for name, extra in (("stream", []), ("first", ["--tom-requests-first"]),
                            ("xdist", ["-n", "2"]),
                            ("xdist-first", ["-n", "2", "--tom-requests-first"])):
            runs[name] = pytester.runpytest(*tom_args(server, "--tom-retries=12", "--tom-cache=off",
                                                      f"--tom-report={name}.json"), *extra)
    for name, result in runs.items():
        result.assert_outcomes(passed=expected_right(N), failed=N - expected_right(N))
        assert result.ret == pytest.ExitCode.TESTS_FAILED, name
    reports = {name: figures(pytester.path / f"{name}.json") for name in runs}
    assert reports["stream"] == reports["first"] == reports["xdist"] == reports["xdist-first"]
    # streamed: the line of the requests once, after the items; first: before them
    for name, before in (("stream", False), ("first", True)):
        lines = runs[name].outlines
        at = [i for i, ln in enumerate(lines) if ln.startswith(f"tom requests: {N}/{N} ·")]
        items = next(i for i, ln in enumerate(lines) if ln.startswith("numbers.tom.yaml "))
        assert len(at) == 1 and (at[0] < items) == before, (name, lines[:12])
        assert "done in" in lines[at[0]]


GATED_ANSWERER = """\
import threading

FIRST_SCORED = threading.Event()  # set by the conftest when the first item has been scored


def answer(request):
    n = int(request.prompt.split("number ")[1].split()[0])
    right = "Yes." if n % 2 == 0 else "No."
    if n == {last}:  # the last answer is given only once the first item was scored
        return right if FIRST_SCORED.wait(60) else "Hmm."
    return right
"""
GATE_CONFTEST = """\
import gated


def pytest_runtest_logreport(report):
    if report.when == "call":
        gated.FIRST_SCORED.set()
"""


def test_the_first_items_are_scored_before_the_last_answer_arrives(
        pytester: pytest.Pytester) -> None:
    n = 8
    pytester.makefile(".tom.yaml", numbers=numbers_suite(n))
    pytester.makepyfile(gated=GATED_ANSWERER.format(last=n - 1))
    pytester.makeconftest(GATE_CONFTEST)
    pytester.syspathinsert()
    result = pytester.runpytest("--tom-model=python:gated:answer", "-p", "no:cacheprovider",
                                "-p", "no:randomly")
    result.assert_outcomes(passed=n)  # the last item's answer came after the first was scored


@pytest.mark.parametrize("mode", [[], ["--tom-requests-first"]], ids=["stream", "first"])
def test_x_asks_only_a_window_ahead_in_either_mode(pytester: pytest.Pytester,
                                                   mode: list[str]) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(N))
    with ChatServer(lambda body: "Hmm.") as server:  # every answer is unparseable
        result = pytester.runpytest(*tom_args(server, "-x", "--tom-concurrency=2",
                                              "--tom-cache=off"), *mode)
    result.assert_outcomes(failed=1)
    assert 1 <= server.requests <= 3  # the first item and a window of two ahead


FANTOM = SUITES / "fantom" / "smalltalk.tom.yaml"
PREPARE_SPY = """\
import json

from pytest_tom import families

CALLS = []


def pytest_configure(config):
    family = type(families.get("fantom"))
    original = family.prepare_scoring

    def spy(self, pairs, ctx):
        pairs = list(pairs)
        CALLS.append(len(pairs))
        return original(self, pairs, ctx)

    family.prepare_scoring = spy
    config.add_cleanup(lambda: setattr(family, "prepare_scoring", original))


def pytest_unconfigure(config):
    (config.rootpath / "prepare-calls.json").write_text(json.dumps(CALLS))
"""


@pytest.mark.parametrize("window", [None, 16], ids=["one-window", "windows-of-16"])
@pytest.mark.usefixtures("embedder")
def test_streamed_fantom_answers_are_prepared_in_batches(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
        window: int | None) -> None:
    """Streaming keeps FANToM's batch preparation: a window of answers at a time (never one
    per item), each answer once, and the scores of a run with every answer first."""
    if window is not None:
        # the module the run will use is sys.modules' one: after an earlier in-process run
        # the package's attribute can name a copy that run imported and pytester dropped
        streaming = importlib.import_module("pytest_tom.plugin.streaming")
        monkeypatch.setattr(streaming, "WINDOW", window)
    pytester.makeini("[pytest]\n")
    (pytester.path / FANTOM.name).write_text(FANTOM.read_text(encoding="utf-8"), encoding="utf-8")
    pytester.makeconftest(PREPARE_SPY)
    model = f"--tom-model=python:{FAMILY_TESTS / 'fantom' / 'fantom_support.py'}:mixed"
    args = (FANTOM.name, model, "-p", "no:cacheprovider", "-p", "no:randomly", "-m", "belief_dist")
    pytester.runpytest(*args, "--tom-report=first.json", "--tom-requests-first")
    first_calls = json.loads((pytester.path / "prepare-calls.json").read_text())
    pytester.runpytest(*args, "--tom-report=stream.json")
    stream_calls = json.loads((pytester.path / "prepare-calls.json").read_text())
    assert figures(pytester.path / "stream.json") == figures(pytester.path / "first.json")
    answered = len(json.loads((pytester.path / "stream.json").read_text())["items"])
    assert answered >= 100
    assert first_calls == [answered]  # every answer first: one batch
    assert sum(stream_calls) == answered  # each answer prepared once
    size = window or 256
    assert stream_calls == [min(size, answered - i) for i in range(0, answered, size)]


INTERRUPT_AT_FIRST = """\
def pytest_runtest_call(item):
    if item.name == "q00001":
        raise KeyboardInterrupt
"""


def test_ctrl_c_while_answers_are_coming_stops_the_requests_and_marks_the_report(
        pytester: pytest.Pytester) -> None:
    """Ctrl-C in a streamed run: the items scored so far are in the report (marked
    interrupted), the requests still to come are not made, the exit status says so."""
    pytester.makefile(".tom.yaml", numbers=numbers_suite(N))
    pytester.makeconftest(INTERRUPT_AT_FIRST)
    with ChatServer(respond, latency=0.2) as server:
        result = pytester.runpytest(*tom_args(server, "--tom-concurrency=2", "--tom-cache=off",
                                              "--tom-report=r.json"), "-p", "no:randomly",
                                    no_reraise_ctrlc=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    rep = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert rep["status"] == "interrupted"
    assert [r["item"]["id"] for r in rep["items"]] == ["sc0000::q00000"]
    assert server.requests < N  # 2 in flight and 2 more admitted per slot, not the 40
    result.stdout.fnmatch_lines(["tom requests: */40 · * · stopped after *"])
