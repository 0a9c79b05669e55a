"""Saving a baseline is a success (issue 21, point 3): a run with `--tom-save-baseline`
that completes saves it and exits 0 though some answers are wrong (they are xfails, the
header says why); a gate that fails still fails the run; a run with a suite that did not
load refuses to save one (an interrupted run: tests/test_reliability.py)."""

from __future__ import annotations

import json
import sys

import pytest
from gate_support import run, setup_project


def test_saving_a_baseline_with_wrong_answers_exits_0(pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=20)
    result = run(pytester, "goal10", "--tom-save-baseline=b.json", "--tom-report=r.json")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=90, xfailed=10)
    # the run's report is built once: the baseline is the JSON report, byte for byte
    assert (pytester.path / "b.json").read_bytes() == (pytester.path / "r.json").read_bytes()
    result.stdout.fnmatch_lines([
        "tom: items report (the default with --tom-save-baseline: a run that completes saves it "
        "and exits 0): "
        "a wrong answer is an xfail with its reason; only the gates set the exit status",
        "tom baseline saved: b.json"])
    saved = json.loads((pytester.path / "b.json").read_text())
    assert saved["status"] == "complete" and len(saved["items"]) == 100
    assert saved["totals"]["turn"] == pytest.approx(0.9)


def test_a_failing_gate_still_fails_a_run_that_saves_a_baseline(
        pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=20)
    result = run(pytester, "goal10", "--tom-save-baseline=b.json", "--tom-fail-under=turn=0.95")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["tom: items report (the default: a gate is configured)*",
                                 "tom gates: 1 of 1 failed", "tom baseline saved: b.json"])


def test_fail_mode_asked_for_keeps_wrong_answers_failing(pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=20)
    result = run(pytester, "goal10", "--tom-save-baseline=b.json", "--tom-items=fail")
    assert result.ret == 1
    result.assert_outcomes(passed=90, failed=10)


def test_a_suite_that_does_not_load_refuses_to_become_a_baseline(
        pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=20)
    (pytester.path / "broken.tom.yaml").write_text("suite: broken\nfamily: generic\n")
    result = run(pytester, "right", "--tom-save-baseline=b.json")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["tom baseline not saved: 1 suite file(s) failed to load "
                                 "(broken.tom.yaml): a baseline must hold every suite"])
    assert not (pytester.path / "b.json").exists()


@pytest.mark.parametrize("where", ["command line", "ini"])
def test_the_header_names_where_items_report_came_from(pytester: pytest.Pytester,
                                                       where: str) -> None:
    setup_project(pytester, scenarios=2)
    if where == "ini":
        pytester.makeini("[pytest]\ntom_items = report\n")
        result = run(pytester, "goal10")
        source = "the ini file tox.ini"
    else:
        result = run(pytester, "goal10", "--tom-items=report")
        source = "the command line"
    result.stdout.fnmatch_lines([f"tom: items report (--tom-items report from {source}): a "
                                 f"wrong answer is an xfail*"])


def test_a_baseline_of_errors_is_refused_when_saved_and_flagged_when_gated(
        pytester: pytest.Pytester) -> None:
    """Issue 33 point 8: a run whose items errored saved a complete-looking baseline that
    every later gate passed against."""
    setup_project(pytester, scenarios=4)
    saved = run(pytester, "boom_one", "--tom-save-baseline=b.json", "--tom-report=r.json")
    assert saved.ret == 1
    assert not (pytester.path / "b.json").exists()
    saved.stdout.fnmatch_lines(["tom baseline not saved: 1 of 20 item(s) errored (no answer was "
                                "scored): a baseline must hold the model's answers*"])
    # a report with errors used as a baseline (saved by hand, or by an older version)
    gated = run(pytester, "right", "--tom-baseline=r.json")
    gated.stdout.fnmatch_lines(["warning: the baseline holds 1 of 20 item(s) that errored (no "
                                "answer was scored)*"])
    cli = pytester.run(sys.executable, "-m", "pytest_tom.cli", "gate", "r.json",
                       "--tom-baseline=r.json")
    cli.stdout.fnmatch_lines(["warning: the baseline holds 1 of 20 item(s) that errored*"])
