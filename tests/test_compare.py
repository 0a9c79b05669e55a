"""`pytest-tom compare`: runs as columns, headline rows with intervals, paired tests on the
shared items (exact McNemar for accuracies, paired bootstrap for grouped metrics),
flipped items with both answers; Markdown and JSON outputs; bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_runs import load

from pytest_tom.cli import main
from pytest_tom.compare.comparison import Comparison
from pytest_tom.compare.paired import compare_runs
from pytest_tom.compare.runs import Run, load_runs
from pytest_tom.metrics.mcnemar import mcnemar_exact

RESAMPLES = 200  # the paired bootstrap's spread, not its precision, is checked here


@pytest.fixture(scope="module")
def strong_weak(demo_reports: dict[str, Path]) -> tuple[list[Run], Comparison]:
    """The two saved reports read once (16 MB of JSON) and compared once, for the tests
    that only read the comparison; each test that compares on its own says why."""
    runs = load_runs([demo_reports["strong"], demo_reports["weak"]])
    return runs, compare_runs(runs, resamples=RESAMPLES)


def test_compare_two_saved_reports_prints_intervals_and_p_values(
        demo_reports: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    strong, weak = demo_reports["strong"], demo_reports["weak"]
    assert main(["compare", str(strong), str(weak), "--labels", "strong,weak"]) == 0
    out = capsys.readouterr().out
    s, w = load(strong), load(weak)
    # every bundled suite is a block with both runs as columns
    for name in s["suites"]:
        assert f"{name}  (family {s['suites'][name]['family']}" in out
    line = next(x for x in out.splitlines() if x.startswith("TB ∧ FB"))
    siv = s["suites"]["bigtom-everyday"]["intervals"]["tb_and_fb"]
    wiv = w["suites"]["bigtom-everyday"]["intervals"]["tb_and_fb"]
    assert f"{100 * siv['value']:.1f}% [{100 * siv['low']:.1f}, {100 * siv['high']:.1f}]" in line
    assert f"{100 * wiv['value']:.1f}% [{100 * wiv['low']:.1f}, {100 * wiv['high']:.1f}]" in line
    assert line.rstrip().endswith("B *")  # paired bootstrap, significant
    turn = next(x for x in out.splitlines() if x.startswith("turn accuracy"))
    assert " M *" in turn and "p<0.001" in turn
    assert "newly wrong" in out and "strong → weak" in out
    star = next(x for x in out.splitlines() if x.startswith("ALL*"))  # strong has no ALL*
    assert star.split()[1:2] == ["n/a"] and star.rstrip().endswith("n/a"), star


def test_mcnemar_p_value_is_the_exact_test_on_the_shared_items(
        strong_weak: tuple[list[Run], Comparison]) -> None:
    runs, cmp = strong_weak
    suite = next(x for x in cmp.suites if x.name == "classic-false-belief")
    row = next(r for r in suite.rows if r.metric == "turn")
    d = row.diffs[1]
    assert d is not None
    a = {r["item"]["id"]: r["outcome"]["correct"] for r in runs[0].records("classic-false-belief")}
    b = {r["item"]["id"]: r["outcome"]["correct"] for r in runs[1].records("classic-false-belief")}
    worse = sum(1 for k in a if a[k] and not b[k])
    better = sum(1 for k in a if b[k] and not a[k])
    assert (d.worse, d.better, d.n) == (worse, better, len(a))
    assert d.p_value == mcnemar_exact(worse, better)
    assert d.delta == pytest.approx(row.values[1] - row.values[0])
    # the flipped items are exactly the discordant pairs, with both answers
    flips = [f for f in cmp.flips[0].items if f.suite == "classic-false-belief"]
    assert len(flips) == worse + better
    f = flips[0]
    assert f.before.verdict != f.after.verdict
    assert f.before.answer and f.after.answer and f.question


def test_a_run_against_itself_differs_nowhere(demo_reports: dict[str, Path]) -> None:
    runs = load_runs([demo_reports["weak"], demo_reports["weak"]])
    assert runs[0].label != runs[1].label  # made unique
    cmp = compare_runs(runs, resamples=RESAMPLES)
    for suite in cmp.suites:
        for row in suite.rows:
            d = row.diffs[1]
            if d is None or d.delta is None:
                continue
            assert d.delta == 0 and d.p_value == 1.0, (suite.name, row.metric)
    assert cmp.flips[0].items == []


def test_grouped_metrics_use_the_paired_bootstrap_reproducibly(
        strong_weak: tuple[list[Run], Comparison]) -> None:
    runs, one = strong_weak
    assert compare_runs(runs, resamples=RESAMPLES) == one  # the same seed: the same figures
    fantom = next(x for x in one.suites if x.name == "fantom-smalltalk")
    grouped = next(r for r in fantom.rows if r.metric == "all")  # ALL: one value per set
    d = grouped.diffs[1]
    assert d is not None and d.test == "paired bootstrap"
    assert d.low is not None and d.high is not None and d.delta is not None
    assert d.low <= d.delta <= d.high and d.low < d.high and d.delta < 0  # weak does worse
    # ALL* needs the free responses, which only the weak run answered: no value, no test
    star = next(r for r in fantom.rows if r.metric == "all_star")
    assert star.values[0] is None and star.values[1] is not None and star.diffs[1] is None


def test_markdown_html_and_json_outputs(demo_reports: dict[str, Path], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    md, js = tmp_path / "cmp.md", tmp_path / "cmp.json"
    assert main(["compare", str(demo_reports["strong"]), str(demo_reports["weak"]),
                 "--labels", "strong,weak", "--markdown", str(md), "--json", str(js),
                 "--resamples", str(RESAMPLES)]) == 0
    text = md.read_text()
    assert "| metric | strong | weak | Δ run 2 − run 1 |" in text
    assert "### Flipped items: strong → weak" in text
    data = json.loads(js.read_text())
    assert data["format"] == "pytest-tom-compare/1" and [r["label"] for r in data["runs"]] == \
        ["strong", "weak"]


def test_bad_input_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  demo_reports: dict[str, Path]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "pytest-tom-report/1",\n "suites": ')
    assert main(["compare", str(demo_reports["weak"]), str(broken)]) == 2
    err = capsys.readouterr().err
    assert f"{broken}:2:" in err and "not JSON" in err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": 1}))
    assert main(["compare", str(demo_reports["weak"]), str(other)]) == 2
    assert "not a pytest-tom report" in capsys.readouterr().err
    assert main(["compare", str(demo_reports["weak"])]) == 2
    assert "at least two" in capsys.readouterr().err
    assert main(["compare", str(demo_reports["weak"]), str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err
