"""pytest_compat: the one module that touches pytest's private names, checked on the pytest
running the tests (`.ci/run` runs them on the newest and on the oldest allowed pytest)."""

from __future__ import annotations

import re

import pytest
from conftest import REPO
from runner_support import numbers_suite

from pytest_tom import pytest_compat
from pytest_tom.pytest_compat import TeardownIndex

PLAIN = """
import pytest

@pytest.fixture
def noisy():
    yield
    print("TEARDOWN-OUTPUT of", __name__)

def test_fails_with_teardown_output(noisy):
    assert False

def test_passes_with_teardown_output(noisy):
    pass
"""

ANSWER = """
def answer(req):
    return "No."
"""


CHECK_INDEX = """
import pytest
from pytest_tom.pytest_compat import TeardownIndex

@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    index = terminalreporter._get_teardown_reports
    assert isinstance(index, TeardownIndex), index
    print(f"INDEX verified={index.verified} gave_up={index.gave_up}")
"""


def test_teardown_sections_of_failures_are_still_shown(pytester: pytest.Pytester) -> None:
    """A failing user test that prints in its teardown keeps that output in the failure
    summary, and the index agreed with pytest's own lookup on every comparison."""
    pytester.makefile(".tom.yaml", numbers=numbers_suite(6))
    pytester.makepyfile(test_plain=PLAIN, answerer=ANSWER, conftest=CHECK_INDEX)
    pytester.syspathinsert()
    result = pytester.runpytest("--tom-model=python:answerer:answer", "-p", "no:cacheprovider",
                                "-p", "no:randomly")
    result.assert_outcomes(passed=4, failed=4)  # 3 even numbers answered "No." + the plain one
    out = result.stdout.str()
    # the failing plain test's teardown output, once, under its failure
    assert out.count("Captured stdout teardown") == 1
    result.stdout.fnmatch_lines(["*_ test_fails_with_teardown_output _*", "*assert False*",
                                 "*Captured stdout teardown*", "TEARDOWN-OUTPUT of test_plain"])
    # 4 failures looked up, the first 3 also with pytest's own method: the same reports
    assert f"INDEX verified={TeardownIndex.VERIFY} gave_up=False" in out


def test_the_index_gives_way_to_a_pytest_that_looks_up_differently() -> None:
    """A pytest whose lookup compares something else: its own answer, and its method back."""
    reporter = Reporter()
    reports = reporter.stats.setdefault("", [])
    reports += [Report("a", "teardown"), Report("b", "teardown")]

    def other_lookup(node_id: str) -> list[Report]:  # a future pytest keyed by upper case
        return [r for r in reporter.stats[""] if r.nodeid.upper() == node_id]

    index = TeardownIndex(reporter, other_lookup)
    reporter._get_teardown_reports = index
    assert index("A") == [reports[0]]
    assert index.gave_up and reporter._get_teardown_reports is other_lookup
    assert index("B") == [reports[1]]


def test_no_private_pytest_name_outside_pytest_compat() -> None:
    private = re.compile(r"_pytest\b|\._(inicache|tw|get_teardown_reports|pdbshown|"
                         r"last_failed_paths)\b|"
                         r"testsfailed|\b(tr|reporter|terminalreporter)\.stats\b")
    found = [f"{path.relative_to(REPO)}:{n}: {line.strip()}"
             for path in sorted((REPO / "pytest_tom").rglob("*.py"))
             if path.name != "pytest_compat.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if private.search(line)]
    assert not found, "\n".join(found)


def test_the_oldest_checked_pytest_is_the_oldest_allowed() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    minimum = re.search(r'"pytest>=([0-9.]+)"', text).group(1)
    oldest = pytest_compat.CHECKED_ON[0]
    assert tuple(map(int, oldest.split("."))) == tuple(map(int, (minimum + ".0").split(".")[:3]))


class Report:
    def __init__(self, nodeid: str, when: str, pdb: bool = False):
        self.nodeid, self.when = nodeid, when
        if pdb:
            self._pdbshown = True


class Reporter:
    def __init__(self) -> None:
        self.stats: dict[str, list[Report]] = {}

    def _get_teardown_reports(self, nodeid: str) -> list[Report]:  # pytest's own definition
        return [r for r in self.stats.get("", ()) if not hasattr(r, "_pdbshown")
                and r.when == "teardown" and r.nodeid == nodeid]


def test_the_index_returns_what_the_scan_returns_as_reports_arrive() -> None:
    reporter = Reporter()
    index = TeardownIndex(reporter, reporter._get_teardown_reports)
    assert index("a") == []
    reports = reporter.stats.setdefault("", [])
    for i in range(50):
        node = f"n{i % 7}"
        reports += [Report(node, "setup"), Report(node, "teardown", pdb=i % 11 == 0)]
        for probe in ("n0", "n3", "n6", "missing"):
            assert index.lookup(probe) == reporter._get_teardown_reports(probe)
    reporter.stats[""] = reports[:10]  # replaced by a shorter list: indexed again
    assert index.lookup("n1") == reporter._get_teardown_reports("n1")
    assert not index.gave_up


def test_lf_takes_paths_outside_the_rootdir(pytester: pytest.Pytester) -> None:
    """The running pytest still keeps --lf's last-failed files where `add_last_failed_paths`
    adds to them (else the bundled suites' failures would be skipped under --lf)."""
    outside = pytester.mkdir("elsewhere") / "x.tom.yaml"
    outside.write_text("")
    pytester.makeconftest(f"""
from pathlib import Path
from pytest_tom import pytest_compat

def pytest_sessionstart(session):
    added = pytest_compat.add_last_failed_paths(session.config, [Path({str(outside)!r})])
    plugin = session.config.pluginmanager.get_plugin("lfplugin")
    print("ADDED", added, Path({str(outside)!r}) in plugin._last_failed_paths)
""")
    pytester.makepyfile(test_a="def test_x():\n    assert False\n")
    pytester.runpytest()
    result = pytester.runpytest("--lf", "-s")
    result.stdout.fnmatch_lines(["ADDED True True"])
