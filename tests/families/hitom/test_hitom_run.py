"""Hi-ToM through pytest itself (pytester), on the authors' 1,200 converted items: an
answerer giving the gold option is right on every item; an answerer right on a fixed subset
gives every figure of the paper's breakdowns in the JSON report, each a declared metric
with its interval, equal to the numbers computed here from the raw rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import FAMILY_TESTS, load_report, shared_data
from hitom_support import JSON_ENV, behaviour, expected, questions, wilson

from pytest_tom.cli import main
from pytest_tom.families.hitom.headline import METRICS

SUPPORT = FAMILY_TESTS / "hitom" / "hitom_support.py"


@pytest.fixture(scope="module")
def release() -> Path:
    return shared_data("hitom", "Hi-ToM_data.json")


@pytest.fixture(scope="module")
def converted(release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hitom-run")
    assert main(["convert", "hitom", str(release), "-o", str(out)]) == 0
    return out / "hitom.tom.yaml"


@pytest.fixture
def raw_rows(release: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JSON_ENV, str(release))
    questions.cache_clear()


def run(pytester: pytest.Pytester, suite: Path, answerer: str, *args: str) -> tuple[Any, dict]:
    pytester.makeini("[pytest]\n")
    report = pytester.path / "report.json"
    result = pytester.runpytest(str(suite), f"--tom-model=python:{SUPPORT}:{answerer}",
                                f"--tom-report={report}", "-p", "no:cacheprovider", "-q",
                                "--tb=no", *args)
    return result, load_report(report)


def test_the_gold_answerer_is_right_on_all_1200_items(pytester: pytest.Pytester, converted: Path,
                                                      raw_rows: None) -> None:
    result, report = run(pytester, converted, "gold")
    assert result.parseoutcomes() == {"passed": 1200}
    metrics = report["suites"]["hitom"]["metrics"]
    assert (metrics["correct"], metrics["unparseable"], metrics["errors"]) == (1200, 0, 0)
    assert all(metrics[m.name] == 1.0 for m in METRICS)


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_every_breakdown_of_a_fixed_subset_is_declared_with_its_interval(
        pytester: pytest.Pytester, converted: Path, raw_rows: None, xdist: list[str]) -> None:
    right = {q["key"]: behaviour(q["key"]) == "right" for q in questions()}
    want = expected(right)
    result, report = run(pytester, converted, "mixed", "--tom-items=report", *xdist)
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] == sum(right.values())
    assert result.ret == 1  # the failed requests are errors (the wrong answers xfail)
    suite = report["suites"]["hitom"]
    metrics, intervals = suite["metrics"], suite["intervals"]
    assert metrics["errors"] == sum(behaviour(k) == "fail" for k in right) > 0
    assert metrics["unparseable"] == sum(behaviour(k) == "unparseable" for k in right) > 0
    declared = {m.name: m for m in METRICS}
    assert set(want) == set(declared)  # every figure of the paper's layout is declared
    for name, (ok, n) in want.items():
        assert metrics[name] == pytest.approx(ok / n), name
        interval = intervals[name]
        assert interval["n"] == n, name
        assert interval["low"] <= ok / n <= interval["high"], name
        if declared[name].kind == "proportion":
            assert interval["method"] == "wilson"
            assert (interval["low"], interval["high"]) == pytest.approx(wilson(ok, n)), name
        else:
            assert interval["method"].startswith(("bootstrap", "wilson over groups")), name
    # the tables show the same values
    tables = {t["title"]: t for t in suite["tables"]}
    by_order = tables["Hi-ToM · accuracy per ToM order (the paper's settings)"]
    tell_cotp = next(r for r in by_order["rows"] if r[:2] == ["Tell", "CoTP"])
    ok, n = want["tell.cotp.order3"]
    assert tell_cotp[2 + 3] == f"{100 * ok / n:.1f}% ({ok}/{n})"
    heat = tables["Hi-ToM · joint accuracy per setting and story length (the paper's heat maps)"]
    assert len(heat["rows"]) == 12
    ok, n = want["no_tell.vp.length2.joint.order4"]
    row = next(r for r in heat["rows"] if r[:3] == ["No_Tell", "VP", "2"])
    assert row[3 + 4] == f"{100 * ok / n:.1f}% ({ok}/{n})"
