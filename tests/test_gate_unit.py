"""Gate logic without pytest runs: the exact McNemar test, option parsing, evaluation on
aggregated records, the baseline file check, Markdown cells and item properties."""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import pytest

from pytest_tom.core.outcome import Outcome
from pytest_tom.families.base import Settings
from pytest_tom.gates.evaluate import GateConfig, evaluate, load_baseline
from pytest_tom.gates.spec import (
    GateOptions,
    GateSpecError,
    MetricRef,
    parse_max_drop,
    parse_thresholds,
)
from pytest_tom.metrics import mcnemar
from pytest_tom.metrics.mcnemar import mcnemar_exact, pair_records
from pytest_tom.report.item_outcome import junit_properties, short, xfail_reason
from pytest_tom.report.markdown import cell, render
from pytest_tom.results.aggregate import aggregate
from pytest_tom.results.run_report import RunReport
from pytest_tom.suite import ItemSpec

FAMILIES = {"generic", "fantom", "opentom"}


# -- the exact McNemar test ----------------------------------------------------------------
@pytest.mark.parametrize(("b", "c", "p"), [
    (0, 0, 1.0), (1, 0, 1.0), (0, 1, 1.0), (0, 5, 0.0625), (5, 0, 0.0625),
    (3, 10, 0.09228515625), (10, 0, 0.001953125), (6, 6, 1.0),
])
def test_mcnemar_known_values(b: int, c: int, p: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(p, rel=1e-12)


def _two_sided_by_enumeration(b: int, c: int) -> float:
    """Sum of the probabilities of every split of n discordant pairs that is at most as
    likely as the one observed (the other usual definition of a two-sided exact p)."""
    n = b + c
    probs = [Fraction(comb(n, k), 2 ** n) for k in range(n + 1)]
    observed = probs[b]
    return float(min(Fraction(1), sum(q for q in probs if q <= observed)))


@pytest.mark.parametrize("n", range(0, 26))
def test_mcnemar_agrees_with_enumeration(n: int) -> None:
    for b in range(n + 1):
        assert mcnemar_exact(b, n - b) == pytest.approx(_two_sided_by_enumeration(b, n - b))


def test_mcnemar_large_counts_near_the_normal_approximation() -> None:
    # z = (c - b) / sqrt(b + c) = 300 / sqrt(10300) ~ 2.956 -> two-sided p ~ 0.0031
    assert mcnemar_exact(5000, 5300) == pytest.approx(0.0032, abs=0.0004)
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def test_mcnemar_log_space_sum_agrees_with_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [(3, 10), (40, 70), (990, 1010), (0, 30)]
    exact = [mcnemar_exact(b, c) for b, c in cases]
    monkeypatch.setattr(mcnemar, "EXACT_LIMIT", 0)
    for (b, c), p in zip(cases, exact, strict=True):
        assert mcnemar_exact(b, c) == pytest.approx(p, rel=1e-9)


# -- option parsing ------------------------------------------------------------------------
def test_thresholds_addressing_and_direction() -> None:
    ths = parse_thresholds("turn=0.7, goal>=10%, totals:errors=0, fantom.all_star=0.05,"
                           "my-suite:tag.belief.turn<=0.99, *:parse_failure_rate=0.1", FAMILIES)
    got = [(t.ref.suite, t.ref.family, t.ref.metric, t.op, t.value) for t in ths]
    assert got == [
        (None, None, "turn", ">=", 0.7),
        (None, None, "goal", ">=", 0.1),
        (None, None, "errors", "<=", 0.0),  # lower is better: `=` is a ceiling
        (None, "fantom", "all_star", ">=", 0.05),
        ("my-suite", None, "tag.belief.turn", "<=", 0.99),
        ("*", None, "parse_failure_rate", "<=", 0.1),
    ]


@pytest.mark.parametrize(("spec", "message"), [
    ("turn", "is not <metric>=<value>"),
    ("turn=high", "'high' is not a number"),
    ("turn=70", "write 0.7 or 70%"),
    ("trun=0.5", "(did you mean 'turn'?)"),
    ("all_star=0.5", "<family>.<metric>"),  # a family metric needs its family (or a suite)
    (":turn=0.5", "write <suite>:<metric>"),
    ("turn=nan", "not a finite number"),
])
def test_threshold_errors(spec: str, message: str) -> None:
    with pytest.raises(GateSpecError, match=None) as exc:
        parse_thresholds(spec, FAMILIES)
    assert message in str(exc.value)


def test_max_drop_default_and_overrides() -> None:
    drops = parse_max_drop("0.02, goal=0.05, fantom.all_star=0.1, *:turn=0.03, s1:turn=0.0",
                           FAMILIES)
    assert drops.default == 0.02
    assert drops.allowed(None, None, "goal") == 0.05  # totals by bare name
    assert drops.allowed(None, None, "turn") == 0.02
    assert drops.allowed("s1", "generic", "turn") == 0.0  # the suite wins over `*:`
    assert drops.allowed("s2", "generic", "turn") == 0.03
    assert drops.allowed("s2", "fantom", "all_star") == 0.1
    assert drops.allowed("s2", "generic", "goal") == 0.02  # `goal=` is the totals only
    with pytest.raises(GateSpecError, match="two default values"):
        parse_max_drop("0.02,0.03", FAMILIES)
    with pytest.raises(GateSpecError, match="cannot be negative"):
        parse_max_drop("goal=-0.1", FAMILIES)


def test_config_items_mode_and_checks(tmp_path: Path) -> None:
    assert GateConfig.from_options(GateOptions()).items == "fail"
    assert GateConfig.from_options(GateOptions(fail_under="turn=0.5")).items == "report"
    assert GateConfig.from_options(GateOptions(fail_under="turn=0.5", items="fail")).items == "fail"
    with pytest.raises(GateSpecError, match="needs --tom-baseline"):
        GateConfig.from_options(GateOptions(max_drop="0.1"))
    with pytest.raises(GateSpecError, match="significance level"):
        GateConfig.from_options(GateOptions(alpha=1.5))


def test_baseline_file_is_checked(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{oops", encoding="utf-8")
    with pytest.raises(GateSpecError, match=r"not JSON \(line 1, column 2"):
        load_baseline(str(bad))
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"suites": {}}), encoding="utf-8")
    with pytest.raises(GateSpecError, match="not a pytest-tom report"):
        load_baseline(str(other))
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"format": "pytest-tom-report/1", "suites": {}, "totals": {},
                                  "items": [{"item": {"id": "a::q"}, "outcome": {}}]}),
                      encoding="utf-8")
    with pytest.raises(GateSpecError, match=r"items\[0\] is not an item record"):
        load_baseline(str(broken))
    with pytest.raises(GateSpecError, match="no such file"):
        load_baseline(str(tmp_path / "missing.json"))


# -- evaluation on real aggregation --------------------------------------------------------
def rec(suite: str, item: str, correct: bool | None, tags: tuple[str, ...] = (),
        value: float | None = None, error: str | None = None) -> dict[str, Any]:
    scenario = item.split("::")[0]
    spec = ItemSpec(id=item, suite=suite, family="generic", scenario=scenario, kind="yes_no",
                    question="?", gold="yes", tags=list(tags))
    return {"item": spec.summary(),
            "outcome": Outcome(correct=correct, parsed="yes", value=value, error=error).to_dict(),
            "responses": ["yes"], "usage": {}, "requests": 1, "retries": 0, "seconds": 0.0}


def report_of(records: list[dict[str, Any]]) -> RunReport:
    results = aggregate(records, Settings())
    return RunReport({"format": "pytest-tom-report/1", "model": "m",
                      "settings": {"method": "vanilla"}, "suites": results["suites"],
                      "totals": results["totals"], "items": records})


def cfg(baseline: RunReport | None = None, **options: Any) -> GateConfig:
    if baseline is not None:
        options["baseline"] = "base.json"
    c = GateConfig.from_options(GateOptions(**options), load=False)
    c.baseline = baseline
    return c


def test_threshold_on_a_missing_value_fails() -> None:
    records = [rec("s", "a::q", None, value=0.5)]  # measured only: turn is n/a
    results = aggregate(records, Settings())
    report = evaluate(cfg(fail_under="turn=0.1"), results, records)
    [res] = report.results
    assert not res.passed and res.current is None and "n/a" in res.reason


def test_drop_from_new_items_while_shared_items_improved_passes() -> None:
    # baseline: 20 items, 10 right; now the same 20 with 15 right, plus 40 new wrong items
    base = [rec("s", f"a{i}::q", i < 10) for i in range(20)]
    now = [rec("s", f"a{i}::q", i < 15) for i in range(20)]
    now += [rec("s", f"n{i}::q", False) for i in range(40)]
    results = aggregate(now, Settings())
    report = evaluate(cfg(report_of(base)), results, now)
    turn = next(r for r in report.results if r.label == "totals:turn")
    assert turn.current == pytest.approx(15 / 60) and turn.baseline == 0.5
    assert (turn.newly_wrong, turn.newly_right, turn.paired) == (0, 5, 20)
    assert turn.passed and "did not get worse" in turn.reason
    assert report.diff is not None and len(report.diff.new) == 40
    # with the test off, the drop alone decides
    report = evaluate(cfg(report_of(base), alpha=1), results, now)
    assert not next(r for r in report.results if r.label == "totals:turn").passed


def test_tag_metric_compares_only_the_items_of_that_tag() -> None:
    base = [rec("s", f"a{i}::q", True, tags=("belief" if i < 10 else "memory",))
            for i in range(40)]
    now = [rec("s", f"a{i}::q", i not in range(10, 30), tags=("belief" if i < 10 else "memory",))
           for i in range(40)]
    results = aggregate(now, Settings())
    report = evaluate(cfg(report_of(base), max_drop="s:tag.belief.turn=0,s:tag.memory.turn=0"),
                      results, now)
    by_label = {r.label: r for r in report.results}
    assert by_label["s:tag.belief.turn"].passed and by_label["s:tag.belief.turn"].newly_wrong == 0
    memory = by_label["s:tag.memory.turn"]
    assert not memory.passed and memory.newly_wrong == 20 and memory.paired == 30


def test_lower_is_better_and_family_metrics() -> None:
    base = [rec("s", f"a{i}::q", True, value=0.9) for i in range(30)]
    now = [rec("s", f"a{i}::q", i >= 12, value=0.2 if i < 12 else 0.9,
               error="request_failed" if i < 12 else None) for i in range(30)]
    results = aggregate(now, Settings())
    base_report = report_of(base)
    # pretend the suite belongs to a family with a measured metric
    for r in (results, base_report.data):
        r["suites"]["s"]["family"] = "fantom"
    results["suites"]["s"]["metrics"]["fact_f1"] = 0.62
    base_report.data["suites"]["s"]["metrics"]["fact_f1"] = 0.9
    report = evaluate(cfg(base_report, max_drop="s:errors=2,fantom.fact_f1=0.1",
                          fail_under="s:errors=0"), results, now)
    by = {(r.kind, r.label): r for r in report.results}
    assert not by[("threshold", "s:errors")].passed
    errors = by[("baseline", "s:errors")]  # 0 -> 12 errors: worse by 12 > 2 allowed
    assert errors.delta == 12 and not errors.passed
    f1 = by[("baseline", "s:fact_f1")]
    assert not f1.passed and f1.newly_wrong == 12  # paired on the items' values
    assert report.error is None


def test_unknown_names_after_aggregation() -> None:
    records = [rec("s", "a::q", True)]
    results = aggregate(records, Settings())
    report = evaluate(cfg(fail_under="generic.turnn=0.5,fantom.all_star=0.1,x:turn=1"),
                      results, records)
    assert report.results == [] and report.error is not None
    lines = report.error.splitlines()
    assert "unknown metric 'generic.turnn' (did you mean 'turn'?)" in lines[0]
    assert "no suite of family fantom ran in this session (families that ran: generic)" in lines[1]
    assert "no suite named 'x' ran" in lines[2]


def test_pairing_lists_every_kind_of_change() -> None:
    base = [rec("s", "a::1", True), rec("s", "a::2", False), rec("s", "a::3", True),
            rec("s", "gone::1", True), rec("s", "a::4", True)]
    now = [rec("s", "a::1", False), rec("s", "a::2", True), rec("s", "a::3", True),
           rec("s", "fresh::1", True), rec("s", "a::4", None, error="unavailable")]
    pairing = pair_records(base, now)
    assert pairing.new == [("s", "fresh::1")] and pairing.removed == [("s", "gone::1")]
    ch = pairing.changes()
    assert ch.worse == [("s", "a::1")] and ch.better == [("s", "a::2")]
    assert ch.incomparable == [("s", "a::4")] and ch.paired == 3


# -- what items and summaries show ---------------------------------------------------------
def test_markdown_escapes_cells_and_lists_gates() -> None:
    assert cell("a|b\nc") == "a\\|b c"
    base = [rec("s|x", f"a{i}::q", True) for i in range(12)]
    now = [rec("s|x", f"a{i}::q", i >= 12) for i in range(12)]
    results = aggregate(now, Settings())
    report = evaluate(cfg(report_of(base)), results, now)
    md = render(results, report, {"model": "m", "method": "vanilla", "seed": 0,
                                  "temperature": 0.0}, exitstatus=1)
    assert "❌ **4 of 4 gates failed** · exit status 1" in md
    assert "`s\\|x:goal`" in md and "| `s\\|x` | generic | 12 |" in md
    assert md.count("<summary>newly wrong (12)</summary>") == 1


def test_item_properties_and_reasons() -> None:
    r = rec("s", "a::q", None, value=0.123456)
    assert junit_properties(r) == [("tom_suite", "s"), ("tom_kind", "yes_no"),
                                   ("tom_correct", "none"), ("tom_parsed", "yes"),
                                   ("tom_value", "0.1235")]
    assert len(short("x" * 1000)) == 200 and short(["A", "B"]) == '["A", "B"]'
    spec = ItemSpec(id="a::q", suite="s", family="generic", scenario="a", kind="choice",
                    question="?", gold="the box", choices=["the bag", "the box"],
                    meta={"gold_letter": "b"})
    assert xfail_reason(spec, Outcome(correct=False, parsed="a) the bag")) == \
        "wrong answer: a) the bag; expected b) the box"
    assert xfail_reason(spec, Outcome(correct=False, error="unparseable",
                                      detail="no option named")) == \
        "unparseable answer (no option named); expected b) the box"


def test_metric_ref_totals_prefix() -> None:
    [th] = parse_thresholds("totals:goal=0.5", FAMILIES)
    assert th.ref == MetricRef("goal", text="totals:goal") and th.ref.is_totals


# -- direction: declared by the families, not guessed from the name --------------------------
@pytest.mark.parametrize(("spec", "op"), [
    ("bigtom.initial_state_rate=0.2", "<="),
    ("opentom.unfaithful_rate.first=0.1", "<="),
    ("opentom.parse_failure.attitude=0.1", "<="),
    ("opentom.f1.attitude=0.5", ">="),
    ("fantom.inaccessible.answerability_list.included_unaware=3", "<="),
    ("fantom.accessible.infoaccess_yn.excluded_aware=3", "<="),
    ("fantom.all_star=0.05", ">="),
    ("bigtom.tb_and_fb=0.5", ">="),
])
def test_family_declared_lower_is_better(spec: str, op: str) -> None:
    [th] = parse_thresholds(spec, {"bigtom", "opentom", "fantom"})
    assert th.op == op


def _family_suite(records: list[dict[str, Any]], family: str, metric: str,
                  value: float) -> dict[str, Any]:
    results = aggregate(records, Settings())
    results["suites"]["s"]["family"] = family
    results["suites"]["s"]["metrics"][metric] = value
    return results


def test_suite_scoped_threshold_follows_the_suites_family() -> None:
    records = [rec("s", f"a{i}::q", True) for i in range(10)]
    config = cfg(fail_under="s:initial_state_rate=0.2,*:initial_state_rate=0.2")
    assert [t.op for t in config.thresholds] == ["=", "="]  # decided per suite, after the run
    high = _family_suite(records, "bigtom", "initial_state_rate", 0.5)
    results = evaluate(config, high, records).results
    assert [(r.op, r.passed) for r in results] == [("<=", False), ("<=", False)]
    assert "above the allowed 0.2" in results[0].reason
    low = _family_suite(records, "bigtom", "initial_state_rate", 0.1)
    assert [(r.op, r.passed) for r in evaluate(config, low, records).results] == [("<=", True)] * 2
    # a family that does not declare the metric: `=` is a floor, as before
    other = _family_suite(records, "generic", "initial_state_rate", 0.1)
    assert [(r.op, r.passed) for r in evaluate(config, other, records).results] == [(">=", False)] * 2


@pytest.mark.parametrize(("before", "after", "passes"), [(0.1, 0.5, False), (0.5, 0.1, True)])
def test_baseline_rise_of_a_lower_is_better_metric_is_a_drop(before: float, after: float,
                                                            passes: bool) -> None:
    records = [rec("s", f"a{i}::q", True) for i in range(10)]
    base = report_of(records)
    base.data["suites"]["s"]["family"] = "bigtom"
    base.data["suites"]["s"]["metrics"]["initial_state_rate"] = before
    now = _family_suite(records, "bigtom", "initial_state_rate", after)
    report = evaluate(cfg(base, max_drop="s:initial_state_rate=0.05", alpha=1), now, records)
    [res] = [r for r in report.results if r.metric == "initial_state_rate"]
    assert res.passed is passes


def _bigtom(i: int, belief: str, scenario: str, right: bool) -> dict[str, Any]:
    spec = ItemSpec(id=f"{scenario}::{belief}", suite="b", family="bigtom", scenario=scenario,
                    kind="belief", question="?", gold="x",
                    meta={"condition": f"forward_belief.{belief}.with_init",
                          "belief_condition": belief, "inference": "forward_belief",
                          "initial_belief": True})
    return {"item": spec.summary(), "outcome": Outcome(correct=right).to_dict(),
            "responses": ["x"], "usage": {}, "requests": 1, "retries": 0, "seconds": 0.0}


def test_a_declared_metric_is_tested_on_the_items_it_selects() -> None:
    # 12 FB answers became wrong while 12 TB answers became right: over the whole suite the
    # changes cancel out (p = 1), on the FB items the metric selects the drop is significant
    base = [_bigtom(i, b, f"s{i}", right=(b == "false_belief"))
            for i in range(12) for b in ("true_belief", "false_belief")]
    now = [_bigtom(i, b, f"s{i}", right=(b == "true_belief"))
           for i in range(12) for b in ("true_belief", "false_belief")]
    results = aggregate(now, Settings())
    report = evaluate(cfg(report_of(base), max_drop="b:false_belief=0.1,b:tb_and_fb=0.1"),
                      results, now)
    fb = next(r for r in report.results if r.label == "b:false_belief")
    assert (fb.newly_wrong, fb.newly_right, fb.paired) == (12, 0, 12)  # FB items only
    assert fb.p_value < 0.001 and not fb.passed
    joint = next(r for r in report.results if r.label == "b:tb_and_fb")
    # TB ∧ FB is 0 before and after: the paired bootstrap over scenarios finds no change
    assert joint.baseline == joint.current == 0.0 and joint.p_value == 1.0 and joint.passed
    assert (joint.test, fb.test) == ("paired bootstrap", "McNemar")
