"""Gates through pytest itself: thresholds, baseline + McNemar, exit status, --tom-items,
Markdown, JUnit properties; a generated 500-item suite answered by python backends."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from gate_support import SUITE, run, save_baseline_in, setup_project

XDIST = ["", "-n 2"]


def _args(extra: str) -> list[str]:
    return extra.split() if extra else []


@pytest.fixture(scope="module")
def baseline_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The JSON report of the always-right answerer, saved with --tom-save-baseline (once)."""
    path = save_baseline_in(tmp_path_factory.mktemp("baseline"))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["totals"]["turn"] == 1.0 and len(data["items"]) == 500
    return path


@pytest.fixture
def baseline(pytester: pytest.Pytester, baseline_file: Path) -> Path:
    setup_project(pytester)
    return baseline_file


def test_same_answers_as_baseline_pass(pytester: pytest.Pytester, baseline: Path) -> None:
    result = run(pytester, "right", f"--tom-baseline={baseline}")
    assert result.ret == 0
    result.assert_outcomes(passed=500)
    result.stdout.fnmatch_lines([
        "*tom gates*",
        "items since the baseline: 500 paired, 0 newly wrong, 0 newly right, 0 new, 0 removed",
        "passed totals:turn  baseline 1.000  current 1.000  delta +0.000*McNemar test of the 500 "
        "paired items' right/wrong: p 1 (*",
        "tom gates: all 4 passed",
    ])


@pytest.mark.parametrize("xdist", XDIST)
def test_ten_points_worse_on_goal_fails_naming_the_metric(
        pytester: pytest.Pytester, baseline: Path, xdist: str) -> None:
    # goal drops by 0.10 (10 of 100 scenarios), turn by 0.02: only goal exceeds 0.05
    xml = pytester.path / "junit.xml"
    result = run(pytester, "goal10", f"--tom-baseline={baseline}", "--tom-max-drop=0.05",
                 f"--junitxml={xml}", *_args(xdist))
    assert result.ret == 1
    result.assert_outcomes(passed=490, xfailed=10)  # wrong answers are expected outcomes
    out = result.stdout.str()
    result.stdout.fnmatch_lines([
        "items since the baseline: 500 paired, 10 newly wrong, 0 newly right, 0 new, 0 removed",
        "FAILED totals:goal  baseline 1.000  current 0.900  delta -0.100 (allowed drop 0.050)  "
        "McNemar test of the 500 paired items' right/wrong: p 0.001953 (10 newly wrong / "
        "0 newly right, alpha 0.05)*",
        f"FAILED {SUITE}:goal  baseline 1.000  current 0.900*",
        "tom gates: 2 of 4 failed",
        "*490 passed, 10 xfailed, 2 tom gates failed in *",
    ])
    assert "passed totals:turn  baseline 1.000  current 0.980  delta -0.020" in out
    assert "newly wrong: gate-demo::s000::q1" in out
    # the per-item JUnit properties travel from xdist workers too
    assert junit_properties(xml, "s000::q1") == {
        "tom_suite": SUITE, "tom_kind": "yes_no", "tom_correct": "false", "tom_parsed": "no"}


@pytest.mark.parametrize("xdist", XDIST)
def test_one_flipped_item_passes_unless_the_test_is_off(
        pytester: pytest.Pytester, baseline: Path, xdist: str) -> None:
    result = run(pytester, "flip1", f"--tom-baseline={baseline}", *_args(xdist))
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "  newly wrong: gate-demo::s042::q3",
        "passed totals:turn  baseline 1.000  current 0.998  delta -0.002 (allowed drop 0.000)  "
        "McNemar test of the 500 paired items' right/wrong: p 1 (1 newly wrong / 0 newly "
        "right, alpha 0.05)  "
        "smallest detectable drop 0.012 (6 of 500 shared items newly wrong, none newly right, "
        "alpha 0.05)  -- worse by 0.002, but not significant (p 1 > alpha 0.05)",
        "tom gates: all 4 passed",
    ])
    if xdist:
        return  # the verdict is taken on the controller: one -n 2 run shows the same numbers
    result = run(pytester, "flip1", f"--tom-baseline={baseline}", "--tom-alpha=1")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "FAILED totals:turn  baseline 1.000  current 0.998  delta -0.002*test off (alpha 1)*",
        "tom gates: 4 of 4 failed",
    ])


@pytest.fixture
def small(pytester: pytest.Pytester) -> Path:
    """A 100-item version of the suite (20 scenarios) and a baseline of the right answerer."""
    setup_project(pytester, scenarios=20)
    path = pytester.path / "small-baseline.json"
    assert run(pytester, "right", f"--tom-save-baseline={path}").ret == 0
    return path


def test_drop_within_allowance_passes_even_when_significant(
        pytester: pytest.Pytester, small: Path) -> None:
    # goal10 on 20 scenarios: turn 0.90 (-0.10), goal 0.50 (-0.50), p = 2 / 2**10
    result = run(pytester, "goal10", f"--tom-baseline={small}", "--tom-max-drop=0.6")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["passed totals:goal  baseline 1.000  current 0.500*p 0.001953*"])
    result = run(pytester, "goal10", f"--tom-baseline={small}",
                 "--tom-max-drop=0.6,gate-demo:goal=0.4,turn=0.05")  # per-metric overrides
    assert result.ret == 1
    result.stdout.fnmatch_lines(["FAILED totals:turn*allowed drop 0.050*",
                                 "FAILED gate-demo:goal*allowed drop 0.400*",
                                 "tom gates: 2 of 4 failed"])


def test_changes_that_cancel_out_are_not_a_drop(pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=4)
    base = pytester.path / "b.json"
    saved = run(pytester, "baseline_two_wrong", f"--tom-save-baseline={base}", "--tom-items=report")
    assert saved.ret == 0
    result = run(pytester, "improved1_flip1", f"--tom-baseline={base}", "--tom-alpha=1")
    # the same turn accuracy: one newly wrong, one newly right
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*1 newly wrong, 1 newly right*",
                                 "  newly wrong: gate-demo::s003::q3",
                                 "  newly right: gate-demo::s002::q2"])


def test_new_and_removed_items_are_listed(pytester: pytest.Pytester, small: Path) -> None:
    result = run(pytester, "right", f"--tom-baseline={small}", "-k", "not s007",
                 f"--tom-markdown={pytester.path / 'summary.md'}")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*95 paired, 0 newly wrong, 0 newly right, 0 new, 5 removed",
                                 "  removed: gate-demo::s007::q1"])
    md = (pytester.path / "summary.md").read_text(encoding="utf-8")
    assert "<summary>removed (5)</summary>" in md and "`gate-demo::s007::q5`" in md


def test_thresholds_on_totals_suites_and_families(pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=20)
    result = run(pytester, "goal10", "--tom-fail-under",
                 "turn=0.9,*:goal=0.6,generic.tag.even.turn>=0.95,errors=0")
    assert result.ret == 1
    result.assert_outcomes(passed=90, xfailed=10)
    out = result.stdout.str()
    result.stdout.fnmatch_lines([
        "FAILED gate-demo:goal  required >= 0.6  current 0.500  delta -0.100  p n/a (threshold)"
        "  [from *:goal=0.6]  -- below the required 0.6",
        "FAILED gate-demo:tag.even.turn  required >= 0.95  current 0.900*",
        "tom gates: 2 of 4 failed",
    ])
    assert "passed totals:turn  required >= 0.9  current 0.900" in out
    assert "passed totals:errors  required <= 0  current 0" in out


@pytest.mark.parametrize("xdist", XDIST)
def test_fail_under_given_twice_keeps_both_thresholds(pytester: pytest.Pytester,
                                                      xdist: str) -> None:
    """`--tom-fail-under` is repeatable: the values accumulate (the old code kept the last
    one silently, so the failing turn threshold was never evaluated)."""
    setup_project(pytester, scenarios=20)
    result = run(pytester, "goal10", "--tom-fail-under=turn=0.95",
                 "--tom-fail-under", "*:goal=0.4,errors=0", *_args(xdist))
    assert result.ret == 1
    result.stdout.fnmatch_lines(["FAILED totals:turn  required >= 0.95  current 0.900*",
                                 "tom gates: 1 of 3 failed"])
    assert "passed gate-demo:goal  required >= 0.4  current 0.500" in result.stdout.str()


def test_unknown_metric_after_the_run_is_a_usage_error(pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=4)
    # a family metric is known before the run: a usage error at start
    result = run(pytester, "right", "--tom-fail-under=generic.al_star=0.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown metric 'generic.al_star'; family generic reports: " in result.stderr.str()
    result = run(pytester, "right", "--tom-fail-under=gate-demo:tag.evn.turn=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines([
        "tom gates: usage error: unknown metric 'gate-demo:tag.evn.turn' (did you mean "
        "'tag.even.turn'?)*",
    ])
    result = run(pytester, "right", "--tom-fail-under=nosuch-suite:turn=0.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*no suite named 'nosuch-suite' ran*suites: gate-demo"])


def test_bad_gate_options_are_refused_before_the_run(pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=4)
    for args, message in [
        (["--tom-fail-under=trun=0.5"], "*unknown metric 'trun' for the totals (did you mean 'turn'?)*"),
        (["--tom-fail-under=turn=70"], "*turn is a fraction between 0 and 1; write 0.7 or 70%*"),
        (["--tom-baseline=missing.json"], "*--tom-baseline missing.json: no such file*"),
        (["--tom-max-drop=0.1"], "*--tom-max-drop needs --tom-baseline*"),
        (["--tom-alpha=0"], "*--tom-alpha 0: the significance level must be above 0*"),
    ]:
        result = run(pytester, "right", *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, args
        result.stderr.fnmatch_lines([message])
        assert "passed" not in result.stdout.str()


def test_items_mode(pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=4)
    # no gate: a wrong answer fails its test, as without gating
    result = run(pytester, "goal10")
    assert result.ret == 1
    result.assert_outcomes(passed=16, failed=4)
    # a gate: wrong answers are expected outcomes with the parsed answer as the reason
    result = run(pytester, "goal10", "--tom-fail-under=turn=0.5", "-rx")
    assert result.ret == 0
    result.assert_outcomes(passed=16, xfailed=4)
    # (pytest 7 writes "- reason: ..." before the reason, pytest 8 only "- ...")
    result.stdout.fnmatch_lines(["XFAIL *gate-demo.tom.yaml::s000::q1 - *wrong answer: no; "
                                 "expected yes"])
    # both at once
    result = run(pytester, "goal10", "--tom-fail-under=turn=0.5", "--tom-items=fail")
    assert result.ret == 1
    result.assert_outcomes(passed=16, failed=4)
    # report mode without a gate
    result = run(pytester, "goal10", "--tom-items=report")
    assert result.ret == 0
    result.assert_outcomes(passed=16, xfailed=4)


def test_request_errors_still_show_in_report_mode(pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=4)
    result = run(pytester, "boom_one", "--tom-fail-under=turn=0.5")
    result.assert_outcomes(passed=19, errors=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*the backend broke*"])


def junit_cases(xml: Path) -> dict[str, ET.Element]:
    """`s000::q1` -> its <testcase> element."""
    root = ET.fromstring(xml.read_text(encoding="utf-8"))
    return {c.get("classname", "").split(".")[-1] + "::" + c.get("name", ""): c
            for c in root.iter("testcase")}


def junit_properties(xml: Path, case: str) -> dict[str, str | None]:
    return {p.get("name", ""): p.get("value") for p in junit_cases(xml)[case].iter("property")}


def test_junit_properties_and_no_raw_response(pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=4)
    xml = pytester.path / "junit.xml"
    result = run(pytester, "secret", "--tom-fail-under=turn=0", f"--junitxml={xml}")
    assert result.ret == 0
    assert "sk-test-SECRET123" not in xml.read_text(encoding="utf-8")
    cases = junit_cases(xml)
    assert len(cases) == 20 + 1  # the items, and the gate as a test case of its own
    assert cases["tom-gates::totals:turn"].find("failure") is None
    # s000::q1: gold yes (0 + 1 is odd), answered "No, and by the way ..." -> wrong, parsed "no"
    assert junit_properties(xml, "s000::q1") == {
        "tom_suite": "gate-demo", "tom_kind": "yes_no", "tom_correct": "false", "tom_parsed": "no"}
    skipped = cases["s000::q1"].find("skipped")
    assert skipped is not None and skipped.get("type") == "pytest.xfail"
    assert skipped.get("message") == "wrong answer: no; expected yes"
    props = junit_properties(xml, "s000::q2")
    assert props["tom_correct"] == "true" and props["tom_parsed"] == "no"


def test_markdown_summary(pytester: pytest.Pytester, small: Path) -> None:
    md_path = pytester.path / "out" / "summary.md"
    result = run(pytester, "goal10", f"--tom-baseline={small}", "--tom-max-drop=0.05",
                 "--tom-fail-under=turn=0.9", f"--tom-markdown={md_path}")
    assert result.ret == 1
    result.stdout.fnmatch_lines([f"tom markdown summary: {md_path}"])
    md = md_path.read_text(encoding="utf-8")
    assert md.startswith("## pytest-tom: python:answers.py:goal10\n")
    assert "❌ **4 of 5 gates failed** · exit status 1" in md
    assert ("| ❌ fail | `totals:goal` | baseline | 1.000 | 0.500 | -0.500 | 0.050 | "
            "0.001953 (McNemar test of the 100 paired items' right/wrong: 10 worse / 0 better) |"
            ) in md
    assert "| ✅ pass | `totals:turn` | threshold | >= 0.900 | 0.900 | +0.000 |" in md
    # turn: Wilson 95% interval of 90/100; goal: a seeded bootstrap over the 20 scenarios
    assert re.search(r"\| `gate-demo` \| generic \| 100 \| 90\.0% \[82\.6, 94\.5\] \| "
                     r"50\.0% \(10/20\) \[\d+\.\d, \d+\.\d\] \| 0 \| 0 \| 0\.0% \|", md)
    # flipped items are told with their question and both answers
    assert "<summary>newly wrong (10)</summary>" in md
    assert "| `gate-demo::s009::q1` | Question 1 about scenario 9? | No. | Yes. |" in md


def test_markdown_without_gates(pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=4)
    result = run(pytester, "right", "--tom-markdown=s.md")
    assert result.ret == 0
    md = (pytester.path / "s.md").read_text(encoding="utf-8")
    assert "no gates configured" in md and "### Gates" not in md and "### Suites" in md
