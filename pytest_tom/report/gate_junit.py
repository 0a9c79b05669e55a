"""Gate results as test cases of the JUnit XML report (`--junitxml`).

CI systems read the JUnit XML, not the terminal: each gate is a test case
`tom-gates::<suite or totals>:<metric>` (class `tom-gates`), passed or failed
with the gate's line as the failure message, and a usage error in a gate option
is a failed case `tom-gates::usage-error`. The cases are handed to pytest's own
JUnit writer before it writes the file, so counts and the file agree.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_tom.pytest_compat import junit_xml, write_junit
from pytest_tom.report.gate_summary import gate_line


def _report(nodeid: str, name: str, when: str, failed: bool, message: str,
            properties: list[tuple[str, str]]) -> Any:
    return pytest.TestReport(nodeid=nodeid, location=("tom-gates", None, name), keywords={},
                      outcome="failed" if failed and when == "call" else "passed",
                      longrepr=message if failed and when == "call" else None, when=when,
                      sections=[], duration=0.0, start=0.0, stop=0.0,
                      user_properties=properties)


def add_gate_cases(config: Any, report: Any) -> int:
    """One JUnit test case per gate result (or the usage error); returns how many."""
    xml = junit_xml(config)
    if xml is None or report is None:
        return 0
    return add_cases_to(xml, report)


def add_cases_to(xml: Any, report: Any) -> int:
    """The gate cases handed to a JUnit writer (pytest's `LogXML`); returns how many."""
    cases: list[tuple[str, bool, str, list[tuple[str, str]]]] = []
    if report.error:
        cases.append(("usage-error", True, report.error, [("tom_gate_kind", "usage error")]))
    for r in report.results:
        props = [("tom_gate_kind", r.kind), ("tom_gate_current", "n/a" if r.current is None
                                             else f"{r.current:.6g}")]
        if r.reference is not None:
            props.append(("tom_gate_reference", f"{r.reference:.6g}"))
        if r.p_value is not None:
            props.append(("tom_gate_p_value", f"{r.p_value:.4g}"))
        cases.append((r.label, not r.passed, gate_line(r, report.alpha), props))
    for name, failed, message, props in cases:
        nodeid = f"tom-gates::{name}"
        for when in ("call", "teardown"):
            xml.pytest_runtest_logreport(_report(nodeid, name, when, failed, message, props))
    return len(cases)


def write_gate_junit(path: str, report: Any, suite_name: str = "pytest") -> int:
    """A JUnit XML file of the gate cases alone (`pytest-tom gate --junitxml`), written by
    pytest's own JUnit writer so that the cases are those of a live run's file."""
    return write_junit(path, lambda xml: add_cases_to(xml, report), suite_name)
