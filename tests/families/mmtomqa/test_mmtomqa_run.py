"""MMToM-QA through pytest itself (pytester), on the authors' 600 converted questions: the
gold answerer is right on every item; an answerer right on a fixed subset gives every
per-type, belief, goal and overall accuracy in the JSON report, each declared with its
interval and equal to the numbers computed here from the raw lines; the authors' reading
scores the first character of the reply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import FAMILY_TESTS, load_report, shared_data
from mmtomqa_support import JSON_ENV, _h, behaviour, expected, questions, wilson

from pytest_tom.cli import main
from pytest_tom.families.mmtomqa.headline import METRICS

SUPPORT = FAMILY_TESTS / "mmtomqa" / "mmtomqa_support.py"


@pytest.fixture(scope="module")
def release() -> Path:
    return shared_data("mmtomqa", "questions.json")


@pytest.fixture(scope="module")
def converted(release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mmtomqa-run")
    assert main(["convert", "mmtomqa", str(release), "-o", str(out)]) == 0
    return out / "mmtomqa.tom.yaml"


@pytest.fixture
def raw_lines(release: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JSON_ENV, str(release))
    questions.cache_clear()


def run(pytester: pytest.Pytester, suite: Path, answerer: str, *args: str) -> tuple[Any, dict]:
    pytester.makeini("[pytest]\n")
    report = pytester.path / "report.json"
    result = pytester.runpytest(str(suite), f"--tom-model=python:{SUPPORT}:{answerer}",
                                f"--tom-report={report}", "-p", "no:cacheprovider", "-q",
                                "--tb=no", *args)
    return result, load_report(report)


def test_the_gold_answerer_is_right_on_all_600_items(pytester: pytest.Pytester, converted: Path,
                                                     raw_lines: None) -> None:
    result, report = run(pytester, converted, "gold")
    assert result.parseoutcomes() == {"passed": 600}
    metrics = report["suites"]["mmtomqa"]["metrics"]
    assert all(metrics[m.name] == 1.0 for m in METRICS)


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_every_figure_of_a_fixed_subset_is_declared_with_its_interval(
        pytester: pytest.Pytester, converted: Path, raw_lines: None, xdist: list[str]) -> None:
    right = {k: behaviour(k) == "right" for k in questions()}
    want = expected(right)
    assert set(want) == {m.name for m in METRICS}
    result, report = run(pytester, converted, "mixed", "--tom-items=report", *xdist)
    assert result.ret == 0 and result.parseoutcomes()["passed"] == sum(right.values())
    suite = report["suites"]["mmtomqa"]
    assert suite["metrics"]["unparseable"] == sum(behaviour(k) == "unparseable" for k in right)
    for name, (ok, n) in want.items():
        assert suite["metrics"][name] == pytest.approx(ok / n), name
        interval = suite["intervals"][name]
        assert (interval["method"], interval["n"]) == ("wilson", n), name
        assert (interval["low"], interval["high"]) == pytest.approx(wilson(ok, n)), name
    (table,) = suite["tables"]
    row = next(r for r in table["rows"] if r[1] == "2.3 goal given updated belief")
    ok, n = want["goal_updated_belief"]
    assert row[2] == f"{100 * ok / n:.1f}% ({ok}/{n})"


def test_the_authors_reading_is_an_option_and_changes_the_numbers(
        pytester: pytest.Pytester, converted: Path, raw_lines: None) -> None:
    parenthesised = sum(_h(k, "bare") % 2 == 0 for k in questions())
    _, ours = run(pytester, converted, "bare")
    assert ours["suites"]["mmtomqa"]["metrics"]["all"] == 1.0
    _, theirs = run(pytester, converted, "bare", "--tom-mmtomqa-reading=authors",
                    "--tom-items=report")
    metrics = theirs["suites"]["mmtomqa"]["metrics"]
    assert metrics["correct"] == 600 - parenthesised
    assert metrics["unparseable"] == parenthesised  # '(' is neither a nor b
    assert theirs["settings"]["options"] == {"mmtomqa_reading": "authors"}
    note = theirs["suites"]["mmtomqa"]["tables"][0]["note"]
    assert "the reply's first character" in note
