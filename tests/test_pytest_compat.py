"""The failure summary shows the same teardown sections with pytest-tom's indexed lookup."""

from __future__ import annotations

import pytest
from runner_support import numbers_suite

from pytest_tom.report.teardown_index import TeardownIndex

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


def test_teardown_sections_of_failures_are_still_shown(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(6))
    pytester.makepyfile(test_plain=PLAIN, answerer=ANSWER)
    pytester.syspathinsert()
    result = pytester.runpytest("--tom-model=python:answerer:answer", "-p", "no:cacheprovider",
                                "-p", "no:randomly")
    result.assert_outcomes(passed=4, failed=4)  # 3 even numbers answered "No." + the plain one
    out = result.stdout.str()
    # the failing plain test's teardown output, once, under its failure
    assert out.count("Captured stdout teardown") == 1
    result.stdout.fnmatch_lines(["*_ test_fails_with_teardown_output _*", "*assert False*",
                                 "*Captured stdout teardown*", "TEARDOWN-OUTPUT of test_plain"])


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
    index = TeardownIndex(reporter)
    assert index("a") == []
    reports = reporter.stats.setdefault("", [])
    for i in range(50):
        node = f"n{i % 7}"
        reports += [Report(node, "setup"), Report(node, "teardown", pdb=i % 11 == 0)]
        for probe in ("n0", "n3", "n6", "missing"):
            assert index(probe) == reporter._get_teardown_reports(probe)
    reporter.stats[""] = reports[:10]  # replaced by a shorter list: indexed again
    assert index("n1") == reporter._get_teardown_reports("n1")
