"""The OpenToM family through pytest: the bundled suite, python-backend answerers,
the terminal tables and the JSON report's metrics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import FAMILY_TESTS, SUITES, load_report
from opentom_support import bucket, contradiction_of, expected_mixed_figures, question_rows

BUNDLED = SUITES / "opentom" / "bundled-narratives.tom.yaml"
SUPPORT = FAMILY_TESTS / "opentom" / "opentom_support.py"
KEYS = ("loc_coarse.first", "loc_coarse.second", "loc_fine.first", "loc_fine.second",
        "mhop.first", "mhop.second", "mhop_fullness.first", "mhop_fullness.second",
        "mhop_accessibility.first", "mhop_accessibility.second", "attitude", "loc_fine.narrator")


def run(pytester: pytest.Pytester, answerer: str, *args: str,
        suite: Path = BUNDLED) -> tuple[pytest.RunResult, dict[str, Any]]:
    pytester.makeini("[pytest]\n")
    report = pytester.path / "report.json"
    result = pytester.runpytest(str(suite), f"--tom-model=python:{SUPPORT}:{answerer}",
                                f"--tom-report={report}", "-p", "no:cacheprovider", *args)
    data = load_report(report)
    (suite_result,) = data["suites"].values()
    return result, suite_result


@pytest.mark.parametrize("method", ["vanilla", "cot", "simtom"])
def test_right_answers_in_words_score_one_everywhere(pytester: pytest.Pytester, method: str) -> None:
    result, suite = run(pytester, "right", f"--tom-method={method}")
    items = len(question_rows(BUNDLED))
    result.assert_outcomes(passed=items)
    m = suite["metrics"]
    for key in KEYS:
        assert m[f"f1.{key}"] == 1.0, key
        assert m[f"parse_failure.{key}"] == 0.0, key
    for order in ("first", "second"):
        assert m[f"unfaithful_rate.{order}"] == 0.0
        assert m[f"faithfulness_pairs.{order}"] == 32
    assert m["role_gap.loc_coarse.first"] == 0.0
    result.stdout.fnmatch_lines(["*OpenToM macro-F1 (layout of the paper's Table 2)*",
                                 "Loc_c (F) * 1.000 * 32 * 0.0%",
                                 "*OpenToM mover*observer F1 gap*"])
    records = load_report(pytester.path / "report.json")["items"]
    calls = {r["item"]["id"]: len(r["responses"]) for r in records}
    narrator = {i for i in calls if "narrator" in i}
    assert len(narrator) == 8
    per_item = 2 if method == "simtom" else 1  # SimToM: perspective first, then the question
    assert all(n == (1 if i in narrator else per_item) for i, n in calls.items())


def test_mixed_answers_equal_an_independent_calculation(pytester: pytest.Pytester) -> None:
    result, suite = run(pytester, "mixed")
    expected = expected_mixed_figures(BUNDLED)
    m = suite["metrics"]
    assert set(expected) == {f"{m}.{k}" for k in KEYS for m in ("f1", "accuracy", "parse_failure")}
    for name, value in expected.items():
        assert m[name] == pytest.approx(value), name
    assert 0 < m["parse_failure.loc_coarse.first"] < 1
    assert m["unparseable"] == sum(1 for r in question_rows(BUNDLED) if bucket(r["id"]) == 1)
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == m["wrong"] and outcomes["passed"] == m["correct"]


def test_same_figures_under_xdist(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result, suite = run(pytester, "mixed", "-n", "2")
    result.stdout.fnmatch_lines(["*2 workers*"])
    for name, value in expected_mixed_figures(BUNDLED).items():
        assert suite["metrics"][name] == pytest.approx(value), name
    assert suite["metrics"]["items"] == len(question_rows(BUNDLED))


def test_self_contradicting_answers_give_exactly_that_unfaithful_rate(
        pytester: pytest.Pytester) -> None:
    _, suite = run(pytester, "contradict")
    scenarios = {r["scenario"] for r in question_rows(BUNDLED)}
    kinds = [contradiction_of(s) for s in scenarios]
    first, second, unparsed = (kinds.count(k) for k in ("first", "second", "unparsed"))
    assert first and second and unparsed  # the subset hits every kind
    m = suite["metrics"]
    n = len(scenarios)
    assert m["faithfulness_pairs.first"] == 2 * n
    assert m["unfaithful.first"] == first
    assert m["unfaithful_rate.first"] == pytest.approx(first / (2 * n))
    assert m["faithfulness_pairs.second"] == 2 * n - unparsed  # unparsed pairs are left out
    assert m["unfaithful.second"] == second
    assert m["unfaithful_rate.second"] == pytest.approx(second / (2 * n - unparsed))
    (table,) = [t for t in suite["tables"] if "unfaithful" in t["title"]]
    assert table["rows"][1][:4] == ["second order", 2 * n, 2 * n - unparsed, second]


def test_chain_of_thought_answer_on_the_first_line_is_unparseable(
        pytester: pytest.Pytester) -> None:
    result, suite = run(pytester, "cot_first_line", "--tom-method=cot", "-k", "loc_coarse",
                        "--tb=short")  # 64 failures: each story only when asked
    assert suite["metrics"]["parse_failure.loc_coarse.first"] == 1.0
    assert suite["metrics"]["f1.loc_coarse.first"] == 0.0
    result.stdout.fnmatch_lines(["*unparseable answer*", "*the last line gives no single*"])


def test_markers_select_genres_orders_and_roles(pytester: pytest.Pytester) -> None:
    result, suite = run(pytester, "right", "-m", "loc_fine and second_order and mover")
    result.assert_outcomes(passed=16, deselected=len(question_rows(BUNDLED)) - 16)
    assert suite["metrics"]["f1.loc_fine.second"] == 1.0
    assert suite["metrics"]["f1.attitude"] is None


def test_samples_protocol_needs_enough_narratives(pytester: pytest.Pytester) -> None:
    _, suite = run(pytester, "mixed", "--tom-opentom-protocol=samples")
    m = suite["metrics"]
    assert m["f1_mean.loc_coarse.first"] is None  # 16 narratives < 5 x 50
    assert "needs 5×50 = 250 narratives, the run has 16" in suite["tables"][0]["note"]
    _, small = run(pytester, "mixed", "--tom-opentom-protocol=samples",
                   "--tom-opentom-samples=4", "--tom-opentom-sample-size=4")
    m = small["metrics"]
    assert m["f1_mean.attitude"] is not None and m["f1_std.attitude"] >= 0
    assert small["tables"][0]["headers"][-2:] == ["F1 mean ± std (samples)", "accuracy mean ± std"]
    # the pool figures do not depend on the protocol
    assert m["f1.attitude"] == suite["metrics"]["f1.attitude"]
