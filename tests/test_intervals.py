"""95% intervals: Wilson for item accuracies, seeded cluster bootstrap for grouped metrics,
their paired versions, and their place in the terminal, JSON and Markdown reports."""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path

import pytest
from report_runs import load

from pytest_tom.metrics.accuracy import group_key
from pytest_tom.metrics.intervals import (
    bootstrap,
    derive_seed,
    label_pairs,
    macro_f1_of,
    paired_bootstrap,
    percentile,
    ratio_of,
    weighted_f1_of,
    wilson,
)
from pytest_tom.metrics.macro_f1 import macro_f1
from pytest_tom.metrics.numbers import fmt_interval
from pytest_tom.metrics.weighted_f1 import weighted_f1
from pytest_tom.results.headline import catalog, suite_intervals
from pytest_tom.results.results import interval_of


@pytest.mark.parametrize(("right", "n", "low", "high"), [
    (8, 10, 0.4902, 0.9433),  # textbook values (Newcombe 1998, Table I style)
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (50, 100, 0.4038, 0.5962),
])
def test_wilson_known_values(right: int, n: int, low: float, high: float) -> None:
    iv = wilson(right, n)
    assert iv.value == right / n
    assert iv.low == pytest.approx(low, abs=5e-4)
    assert iv.high == pytest.approx(high, abs=5e-4)


def test_wilson_of_nothing_is_none() -> None:
    assert wilson(0, 0).low is None


def test_percentile_interpolates() -> None:
    assert percentile([0.0, 1.0, 2.0, 3.0, 4.0], 0.5) == 2.0
    assert percentile([0.0, 10.0], 0.25) == 2.5


def test_bootstrap_is_seeded_and_covers_the_estimate() -> None:
    rng = random.Random(7)
    groups = [Counter(ok=int(rng.random() < 0.4), n=1) for _ in range(60)]
    a = bootstrap(groups, ratio_of(), seed=1)
    b = bootstrap(groups, ratio_of(), seed=1)
    assert (a.low, a.high) == (b.low, b.high)
    # the seed drives the draws (a share of 60 groups moves in steps of 1/60, so two seeds
    # may well give the same bounds; five seeds all alike would mean the seed is ignored)
    others = {(iv.low, iv.high) for iv in (bootstrap(groups, ratio_of(), seed=s)
                                           for s in range(2, 7))}
    assert len(others | {(a.low, a.high)}) > 1
    assert a.low < a.value < a.high
    # for a share of independent groups the bootstrap is close to Wilson
    w = wilson(sum(g["ok"] for g in groups), len(groups))
    assert abs(a.low - w.low) < 0.05 and abs(a.high - w.high) < 0.05


def test_bootstrap_counts_a_group_drawn_twice_twice() -> None:
    # one group with 3 of 4 right, one with 0 of 4: only resamples of both or either exist
    groups = [Counter(ok=3, n=4), Counter(ok=0, n=4)]
    iv = bootstrap(groups, ratio_of(), seed=3, resamples=400)
    assert iv.value == pytest.approx(3 / 8)
    assert iv.low == 0.0 and iv.high == 0.75


def test_summed_label_pairs_give_the_reference_f1() -> None:
    gold = ["a", "b", "a", "c", "b", "a"]
    pred = ["a", None, "b", "c", "b", "c"]
    assert macro_f1_of(label_pairs(gold, pred)) == pytest.approx(macro_f1(gold, pred).value)
    yn_gold = ["yes", "no", "no", "yes"]
    yn_pred = ["yes", "irrelevant", "no", "no"]
    assert weighted_f1_of(label_pairs(yn_gold, yn_pred)) == pytest.approx(
        weighted_f1(yn_gold, yn_pred))


def test_paired_bootstrap_same_runs_and_clear_difference() -> None:
    same = [(Counter(ok=i % 2, n=1), Counter(ok=i % 2, n=1)) for i in range(40)]
    d = paired_bootstrap(same, ratio_of(), seed=5)
    assert d.delta == 0 and d.p_value == 1.0
    better = [(Counter(ok=int(i % 4 == 0), n=1), Counter(ok=int(i % 4 != 3), n=1))
              for i in range(80)]
    d = paired_bootstrap(better, ratio_of(), seed=5)
    assert d.delta == pytest.approx(0.75 - 0.25)
    assert d.low > 0 and d.p_value < 0.01


def test_derived_seeds_differ_per_metric() -> None:
    assert derive_seed(0, "s", "goal") != derive_seed(0, "s", "turn")
    assert derive_seed(0, "s", "goal") == derive_seed(0, "s", "goal")


# -- the reports of real runs -----------------------------------------------------------
def test_every_headline_metric_of_every_bundled_suite_has_its_interval(
        demo_reports: dict[str, Path]) -> None:
    report = load(demo_reports["weak"])
    items = report["items"]
    for name, suite in report["suites"].items():
        recs = [r for r in items if r["item"]["suite"] == name]
        intervals = suite["intervals"]
        for spec in catalog(suite["family"], recs).specs:
            value = suite["metrics"].get(spec.name)
            if value is None:
                continue
            # an interval exists only where the spec reproduces the family's own number
            assert spec.name in intervals, (name, spec.name)
            iv = intervals[spec.name]
            assert iv["value"] == pytest.approx(value, abs=1e-12)
            if iv["n"] < 2 and iv["method"] == "bootstrap":  # one group: null bounds
                assert iv["low"] is None and iv["high"] is None, (name, spec.name, iv)
                continue
            assert iv["low"] <= value <= iv["high"], (name, spec.name, iv)
            assert iv["level"] == 0.95
    t = report["totals_intervals"]
    assert t["turn"]["method"] == "wilson" and t["goal"]["method"] == "bootstrap"
    assert t["turn"]["low"] < report["totals"]["turn"] < t["turn"]["high"]
    fantom = report["suites"]["fantom-smalltalk"]["intervals"]
    assert fantom["all_star"]["method"] in ("bootstrap", "wilson over groups")
    assert report["suites"]["opentom-bundled"]["intervals"]["f1.loc_fine.first"]["method"] == \
        "bootstrap"


def test_a_metric_of_one_group_is_reported_with_null_bounds_not_left_out(
        demo_reports: dict[str, Path]) -> None:
    """A subset with one BigToM template (`--tom-limit=40` gives one) has TB ∧ FB but
    nothing to resample: the interval is in the report with null bounds and the reports
    say `(no interval: 1 group)`, as docs/reports.md promises, instead of the line
    silently missing."""
    report = load(demo_reports["weak"])
    recs = [r for r in report["items"] if r["item"]["suite"] == "bigtom-everyday"]
    first = group_key(recs[0])
    one = [r for r in recs if group_key(r) == first]
    assert 1 < len(one) < len(recs)
    metrics = {spec.name: 0.5 for spec in catalog("bigtom", one).specs}
    ivs = suite_intervals("bigtom", one, metrics, seed=7)
    tb = ivs["tb_and_fb"]
    assert tb.value is not None and (tb.low, tb.high, tb.n) == (None, None, 1)
    assert fmt_interval(tb) == "(no interval: 1 group)"
    assert ivs["turn"].low is not None  # Wilson over the items still has its bounds
    js = tb.to_dict()
    assert js["low"] is None and interval_of(js).n == 1  # the JSON keeps it, and reads back
    two = [r for r in recs if group_key(r) in {first, group_key(recs[-1])}]
    assert group_key(recs[-1]) != first
    assert suite_intervals("bigtom", two, metrics, seed=7)["tb_and_fb"].low is not None


def test_intervals_are_reproducible_across_runs(demo_reports: dict[str, Path]) -> None:
    from pytest_tom.families.base import Settings
    from pytest_tom.results.aggregate import aggregate

    report = load(demo_reports["weak"])
    again = aggregate(report["items"], Settings())
    for name, suite in report["suites"].items():
        assert again["suites"][name]["intervals"] == suite["intervals"]
    other_seed = aggregate(report["items"], Settings(seed=1))
    assert other_seed["suites"]["bigtom-everyday"]["intervals"]["tb_and_fb"] != \
        report["suites"]["bigtom-everyday"]["intervals"]["tb_and_fb"]


def test_terminal_shows_intervals(demo_reports: dict[str, Path]) -> None:
    out = (demo_reports["weak"].parent / "weak.out").read_text()
    report = load(demo_reports["weak"])
    iv = report["suites"]["classic-false-belief"]["intervals"]["turn"]
    assert "turn acc [95% CI]" in out
    assert f"[{100 * iv['low']:.1f}, {100 * iv['high']:.1f}]" in out
    assert "95% intervals: TB accuracy" in out and "ALL* " in out
    t = report["totals_intervals"]["turn"]
    totals = next(line for line in out.splitlines() if line.startswith("tom totals"))
    assert f"[{100 * t['low']:.1f}, {100 * t['high']:.1f}]" in totals


def test_markdown_shows_intervals(demo_reports: dict[str, Path]) -> None:
    from pytest_tom.report.markdown import render
    from pytest_tom.results.results import Results

    report = load(demo_reports["weak"])
    text = render(Results.of(report), None, report["settings"])
    iv = report["suites"]["bigtom-everyday"]["intervals"]["tb_and_fb"]
    assert f"| TB ∧ FB | `tb_and_fb` | {100 * iv['value']:.1f}% | " \
           f"[{100 * iv['low']:.1f}, {100 * iv['high']:.1f}] | bootstrap" in text
    assert "turn acc [95% CI]" in text


def test_wilson_over_groups_when_every_group_agrees() -> None:
    from pytest_tom.results.headline import common_specs

    recs = [{"item": {"suite": "s", "id": f"g{g}::q{q}", "scenario": f"g{g}", "group": f"g{g}",
                      "tags": []},
             "outcome": {"correct": q != 0, "error": None}} for g in range(12) for q in range(3)]
    goal = next(s for s in common_specs(recs) if s.name == "goal")
    iv = goal.interval(recs, 0, "s")
    assert iv.value == 0.0 and iv.method == "wilson over groups" and iv.n == 12
    assert iv.high == pytest.approx(wilson(0, 12).high)
    assert not math.isnan(iv.high)
