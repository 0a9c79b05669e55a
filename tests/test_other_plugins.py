"""pytest-tom beside the plugins users run (issue 33 points 1 and 2, and its "Done when"):
pytest-timeout firing on an item, pytest-rerunfailures rerunning failed items,
pytest-randomly shuffling the order, pytest-cov measuring. Each is the real plugin (the
`dev` extra installs them), run through pytest itself on the bundled suites."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import FAMILY_TESTS, NO_RANDOM_ORDER, TESTS, load_report
from embedding_model import embedder  # noqa: F401  (fixture: FANToM's model, loaded once)

from pytest_tom.commands import gate

pytest.importorskip("pytest_timeout")
pytest.importorskip("pytest_rerunfailures")


@pytest.fixture(autouse=True)
def _rerun_plugin_on(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-rerunfailures is a subject here: on in this module's runs (tests/conftest.py
    turns it off in the others'). Every run here is a subprocess, so the threads its old
    versions leave spinning end with the run."""
    monkeypatch.setenv("PYTEST_ADDOPTS", NO_RANDOM_ORDER)


SLOW_ITEM = "almonds-pantry::reality"  # in the bundled selection of --tom-limit=3

ANSWERS = f"""\
import sys, threading, time
sys.path[:0] = {[str(TESTS), *(str(p) for p in sorted(FAMILY_TESTS.iterdir()) if p.is_dir())]!r}
import demo_answerers, answerers

def slow_once(req):
    '''the demo's strong answers; one generic item takes 120 s (its test is stopped long before)'''
    if req.item.suite == "classic-false-belief" and req.item.id == {SLOW_ITEM!r}:
        time.sleep(120)
    return demo_answerers.strong(req)
slow_once.thread_safe = True  # the other items are not held up behind the slow one

SEEN = set()
LOCK = threading.Lock()

def flip(req):
    '''wrong on the first call of an item, right on every later call'''
    with LOCK:
        first = req.item.id not in SEEN
        SEEN.add(req.item.id)
    return answerers.wrong_text(req.item) if first else answerers.right(req)
"""


# pytest-timeout's own marker on the slow item alone: the timeout fires there and nowhere
# else, however long the other items take on a busy machine (FANToM's first scoring loads
# its embedding model)
SLOW_TIMEOUT = f"""\
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        if item.nodeid.endswith({SLOW_ITEM!r}) and "classic-false-belief" in item.nodeid:
            item.add_marker(pytest.mark.timeout(1))
"""


@pytest.fixture
def answers(pytester: pytest.Pytester) -> Path:
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(tom_slow_timeout=SLOW_TIMEOUT)  # -p tom_slow_timeout: the bundled
    # suites are outside this folder, so a conftest.py here would not be loaded
    return pytester.makepyfile(tom_answers=ANSWERS)


def record_of(report: dict[str, Any], suite: str, item: str) -> dict[str, Any]:
    return next(r for r in report["items"]
                if r["item"]["suite"] == suite and r["item"]["id"] == item)


# FANToM's free answers (two of the bundled selection) load an embedding model in each
# process that scores them, about 30 s of a minute's run on a busy machine: left out where
# the subject is pytest's handling of a test, not a family's scoring
NO_FREE_ANSWERS = ("-m", "not belief_dist")


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_an_item_pytest_timeout_stops_is_an_error_in_records_report_and_gate(
        pytester: pytest.Pytester, answers: Path, xdist: list[str]) -> None:
    result = pytester.runpytest_subprocess(
        f"--tom-model=python:{answers}:slow_once", "--tom-suite=bundled", "--tom-limit=3",
        "--tom-report=r.json", "--tom-cache=off", "-p", "no:cacheprovider",
        "-p", "tom_slow_timeout", *NO_FREE_ANSWERS, *xdist)
    assert result.ret == 1
    assert result.parseoutcomes().get("errors") == 1
    report = load_report(pytester.path / "r.json")
    assert report["status"] == "complete"
    record = record_of(report, "classic-false-belief", SLOW_ITEM)
    assert record["outcome"]["error"] == "test_error"
    assert "Timeout" in record["outcome"]["detail"]
    collected = result.parseoutcomes()
    ran = sum(collected.get(k, 0) for k in ("passed", "failed", "errors", "skipped"))
    assert report["totals"]["items"] == len(report["items"]) == ran  # nothing vanished
    assert report["totals"]["errors"] == 1
    suite = report["suites"]["classic-false-belief"]
    assert suite["metrics"]["errors"] == 1
    result.stdout.fnmatch_lines(["*1 item(s) without an answer*",
                                 f"*{SLOW_ITEM}: pytest stopped the test at setup before the "
                                 f"answer was scored*",
                                 "*Timeout*",
                                 "tom totals: *1 errors*"])
    # the saved report gated alone (a merge-then-gate pipeline) fails as the live run did
    cli = pytester.run(sys.executable, "-m", "pytest_tom.cli", "gate", str(pytester.path / "r.json"),
                       "--tom-fail-under=errors<=0")
    assert cli.ret == gate.FAILED
    cli.stdout.fnmatch_lines(["FAILED totals:errors  required <= 0  current 1*"])


@pytest.mark.parametrize("items", ["fail", "report"])
def test_a_rerun_scores_the_first_answer_again_and_asks_nothing(
        pytester: pytest.Pytester, answers: Path, items: str) -> None:
    result = pytester.runpytest_subprocess(
        f"--tom-model=python:{answers}:flip", "--tom-suite=generic", "--tom-limit=14",
        "--reruns=1", f"--tom-items={items}", "--tom-report=r.json", "--junitxml=j.xml",
        "--tom-cache=off", "-p", "no:cacheprovider")
    report = load_report(pytester.path / "r.json")
    n = len(report["items"])
    assert n == 10
    totals = report["totals"]
    # every first answer is wrong: so are the scores, and pytest's verdict agrees
    assert (totals["correct"], totals["wrong"]) == (0, n)
    outcomes = result.parseoutcomes()
    if items == "fail":
        assert outcomes.get("failed") == n and outcomes.get("rerun") == n
        assert "passed" not in outcomes
    else:  # report mode: a wrong answer is an xfail, which no rerun plugin reruns
        assert outcomes.get("xfailed") == n and "rerun" not in outcomes
    # the model was asked once per item: the requests table says so
    assert [m["requests"] for m in report.get("usage", {}).get("models", [])] in ([], [n])
    assert sum(r["requests"] for r in report["items"]) == n
    result.stdout.fnmatch_lines(["tom: reruns (pytest-rerunfailures, 1): a tom item is scored "
                                 "on its first answer; a rerun asks the model nothing*",
                                 "python:* 10 * 10 *"])  # the model path wraps onto lines below
    # JUnit: the last verdict of every test case is the record's
    cases: dict[str, ET.Element] = {}
    for case in ET.parse(pytester.path / "j.xml").iter("testcase"):
        cases[case.get("classname", "") + case.get("name", "")] = case
    assert len(cases) == n
    for case in cases.values():
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert props["tom_correct"] == "false"
        kinds = {c.tag for c in case} - {"properties", "system-out", "system-err"}
        assert kinds == ({"failure"} if items == "fail" else {"skipped"})


def test_a_rerun_of_an_errored_item_errors_again(pytester: pytest.Pytester,
                                                  answers: Path) -> None:
    result = pytester.runpytest_subprocess(
        f"--tom-model=python:{answers}:slow_once", "--tom-suite=generic", "--tom-limit=3",
        "--reruns=1", "--tom-report=r.json", "--tom-cache=off",
        "-p", "no:cacheprovider", "-p", "tom_slow_timeout")
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors") == 1  # the timed-out item, at its rerun too
    assert outcomes.get("rerun") == outcomes.get("failed", 0) + 1
    report = load_report(pytester.path / "r.json")
    assert record_of(report, "classic-false-belief", SLOW_ITEM)["outcome"]["error"] == "test_error"
    assert json.dumps(report["totals"]["errors"]) == "1"


def scores(path: Path) -> dict[str, Any]:
    """What a report scores: suites, totals and every item's outcome (no times)."""
    data = load_report(path)
    return {"suites": data["suites"], "totals": data["totals"],
            "items": {(r["item"]["suite"], r["item"]["id"]): r["outcome"] for r in data["items"]}}


@pytest.mark.slow
@pytest.mark.usefixtures("embedder")
def test_random_order_and_coverage_leave_the_scores_identical(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """All the bundled suites, FANToM's free answers too (their scoring is batched: an order
    must not change it), in random orders. These runs are in process (the embedding model
    loaded once; pytest-rerunfailures off: not a subject here, and its old versions leave
    threads spinning in process). The run with coverage is a subprocess, as coverage in
    process would stop this session's own measurement; it and the plain run it is compared
    with leave FANToM's free answers out, for which the subprocess would load the model."""
    pytest.importorskip("pytest_randomly")
    pytest.importorskip("pytest_cov")
    monkeypatch.delenv("PYTEST_ADDOPTS")  # randomly is the subject here (tests/conftest.py)
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(tom_answers=ANSWERS.replace("time.sleep(120)", "pass"))
    common = ["--tom-model=python:tom_answers.py:slow_once", "--tom-suite=bundled",
              "--tom-limit=3", "--tom-cache=off", "-p", "no:cacheprovider"]
    in_process = ["-p", "no:rerunfailures"]
    runs = {"plain": [*in_process, "-p", "no:randomly"],
            "seed 1": [*in_process, "--randomly-seed=1"],
            "seed 2": [*in_process, "--randomly-seed=2"],
            "plain, no free answers": [*in_process, "-p", "no:randomly", *NO_FREE_ANSWERS],
            "coverage": ["-p", "no:randomly", "--cov=tom_answers", *NO_FREE_ANSWERS]}
    orders = {}
    for name, extra in runs.items():
        run = pytester.runpytest_subprocess if name == "coverage" else pytester.runpytest
        result = run(*common, *extra, f"--tom-report={name}.json", "-v")
        assert result.ret == 1, name  # the demo's wrong answers fail their tests
        orders[name] = [line.split(" ")[0] for line in result.outlines if ".tom.yaml::" in line
                        and line.rstrip().endswith("]")]
        if name.startswith("seed"):
            result.stdout.fnmatch_lines([f"Using --randomly-seed={name[-1]}"])
        if name == "coverage":
            result.stdout.fnmatch_lines(["*coverage: *", "tom_answers.py *"])
    assert orders["seed 1"] != orders["plain"] and orders["seed 2"] != orders["seed 1"]
    assert sorted(orders["seed 1"]) == sorted(orders["plain"]) == sorted(orders["seed 2"])
    assert any("belief_dist" in line for line in orders["plain"])  # FANToM's free answers
    assert orders["coverage"] == orders["plain, no free answers"]
    plain = scores(pytester.path / "plain.json")
    for name in ("seed 1", "seed 2"):
        assert scores(pytester.path / f"{name}.json") == plain, name
    assert (scores(pytester.path / "coverage.json")
            == scores(pytester.path / "plain, no free answers.json"))
