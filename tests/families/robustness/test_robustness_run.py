"""The robustness suites and the JSON `final` rule through pytest itself (pytester)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FAMILY_TESTS, SUITES, load_report
from robustness_support import STYLE_UNPARSEABLE, STYLE_WRONG, WRONG_CLASS

from pytest_tom.families.robustness.schema import CLASSES

ROBUSTNESS = SUITES / "robustness"
SUPPORT = FAMILY_TESTS / "robustness" / "robustness_support.py"
NO_COMPLICATION = f"{ROBUSTNESS / 'uc1-button-tin.tom.yaml'}::button-tin::no_complication"


def run(pytester: pytest.Pytester, target: str, answerer: str, *args: str) -> pytest.RunResult:
    pytester.makeini("[pytest]\n")
    return pytester.runpytest(target, f"--tom-model=python:{SUPPORT}:{answerer}",
                              "-p", "no:cacheprovider", *args)


def test_gold_answerer_is_right_on_every_class(pytester: pytest.Pytester) -> None:
    report = pytester.path / "r.json"
    result = run(pytester, str(ROBUSTNESS), "right", f"--tom-report={report}")
    result.assert_outcomes(passed=1088)
    result.stdout.fnmatch_lines([
        "*Turn accuracy by complexity class (as the paper's Table 1)*",
        "no complication * 7 * 112 * 112 * 0 * 100.0% * 50.0%",
        "overall * 68 * 1088 * 1088 * 0 * 100.0% * 50.0%",
        "*Goal accuracy by complexity class (as the paper's Table 2)*",
        "automatic change knowledge * 5 * 5 * 100.0% * <0.1% (1.5e-05)",
        "overall * 68 * 68 * 100.0% *",
        "tom totals: 1088 items · turn 100.0% [[]99.6, 100.0] · goal 100.0% (68/68) [[]94.7, 100.0]*",
    ])
    m = load_report(report)["suites"]["robustness"]["metrics"]
    for cls in CLASSES:
        assert m[f"class.{cls}.turn"] == 1.0 and m[f"class.{cls}.goal"] == 1.0, cls
    assert m["items"] == 1088 and m["groups"] == 68 and m["goal"] == 1.0


def test_one_wrong_scene_per_scenery_under_xdist(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    report = pytester.path / "r.json"
    result = run(pytester, str(ROBUSTNESS), "one_wrong_in_class", "-n", "2",
                 f"--tom-report={report}")
    result.assert_outcomes(passed=1083, failed=5)
    result.stdout.fnmatch_lines([
        "*Table 1*",
        "late label * 7 * 112 * 112 * 0 * 100.0% * 50.0%",
        "automatic change knowledge * 5 * 80 * 75 * 0 * 93.8% * 50.0%",
        "*Table 2*",
        "late label * 7 * 7 * 100.0% *",
        "automatic change knowledge * 5 * 0 * 0.0% *",
        "overall * 68 * 63 * 92.6% *",
    ])
    m = load_report(report)["suites"]["robustness"]["metrics"]
    assert m[f"class.{WRONG_CLASS}.goal"] == 0.0
    assert m[f"class.{WRONG_CLASS}.turn"] == 15 / 16
    for cls in set(CLASSES) - {WRONG_CLASS}:
        assert m[f"class.{cls}.turn"] == 1.0 and m[f"class.{cls}.goal"] == 1.0, cls


def test_answer_styles_extracted_or_unparseable(pytester: pytest.Pytester) -> None:
    report = pytester.path / "r.json"
    result = run(pytester, NO_COMPLICATION, "styled", f"--tom-report={report}")
    bad = len(STYLE_UNPARSEABLE) + len(STYLE_WRONG)
    result.assert_outcomes(passed=16 - bad, failed=bad)
    data = load_report(report)
    by_scene = {r["item"]["id"].split("::")[-1]: r["outcome"] for r in data["items"]}
    for scene, outcome in by_scene.items():
        if scene in STYLE_UNPARSEABLE:
            assert outcome["error"] == "unparseable" and outcome["correct"] is False, scene
        elif scene in STYLE_WRONG:
            assert outcome["error"] is None and outcome["correct"] is False, scene
        else:
            assert outcome["correct"] is True, (scene, outcome)
    m = data["suites"]["robustness"]["metrics"]
    assert m["unparseable"] == len(STYLE_UNPARSEABLE)
    assert m["parse_failure_rate"] == len(STYLE_UNPARSEABLE) / 16
    result.stdout.fnmatch_lines(["unparseable answer ?robustness · belief?",
                                 "*why:      the answer could not be read (between the JSON markers: broken JSON*"])


def test_generic_suite_with_json_final(pytester: pytest.Pytester) -> None:
    suite = pytester.path / "mine.tom.yaml"
    suite.write_text("""\
suite: mine
family: generic
version: 1
scenarios:
  - id: tin
    context: The tin holds buttons. Its label says biscuits. Mira reads the label.
    questions:
      - id: belief
        ask: What does Mira think is inside the tin?
        json_final: {tin: biscuits}
        wrong: {tin: buttons}
      - id: both
        ask: What is in the tin, and what does its label say?
        json_final: {tin: buttons, label: [biscuits, biscuit]}
      - id: plain
        ask: What is in the tin?
        contains: [buttons]
""", encoding="utf-8")
    result = run(pytester, str(suite), "generic_right")
    result.assert_outcomes(passed=3)
    report = pytester.path / "r.json"
    result = run(pytester, str(suite), "generic_wrong", f"--tom-report={report}")
    result.assert_outcomes(passed=1, failed=2)
    outcomes = {r["item"]["id"]: r["outcome"] for r in load_report(report)["items"]}
    assert outcomes["tin::belief"]["correct"] is False and outcomes["tin::belief"]["error"] is None
    assert outcomes["tin::both"]["error"] == "unparseable"  # the 'label' entry is missing
    assert outcomes["tin::plain"]["correct"] is True


def test_generic_json_final_checks(tmp_path: Path) -> None:
    from pytest_tom.catalogue.load import load_suite
    from pytest_tom.suite import SuiteError

    path = tmp_path / "bad.tom.yaml"
    path.write_text("""\
suite: bad
family: generic
version: 1
scenarios:
  - id: tin
    context: The tin holds buttons.
    questions:
      - ask: What is in the tin?
        json_final: [buttons]
      - ask: What is in the tin?
        json_final: {tin: buttons}
        wrong: {box: marbles}
      - ask: What is in the tin?
        contains: [buttons]
        wrong: {tin: biscuits}
        meta: [1]
""", encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    text = info.value.render()
    assert "bad.tom.yaml:9:21: scenarios[0].questions[0].json_final: expected a mapping" in text
    assert "bad.tom.yaml:12:16: scenarios[0].questions[1].wrong: ['box'] not asked" in text
    assert "questions[2].wrong: 'wrong' goes with 'json_final'" in text
    assert "questions[2].meta: expected a mapping" in text
