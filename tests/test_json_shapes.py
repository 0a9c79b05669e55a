"""The JSON shapes the writers return are the ones their TypedDicts declare: every key a
writer puts is declared, and every required key is put. A TypedDict is a plain dict at run
time and the project runs no type checker, so these checks keep the declarations
(`metrics/`, `core/sweep`, `core/probe`, `results/asked`, `compare/comparison`) true to
the code that writes them; each declaration also resolves under `typing.get_type_hints`."""

from __future__ import annotations

import typing
from collections.abc import Mapping

from pytest_tom.compare.comparison import (
    Answer,
    AnswerJSON,
    AskedDifferently,
    AskedDifferentlyJSON,
    BoundsJSON,
    Comparison,
    ComparisonJSON,
    Flip,
    FlipJSON,
    Flips,
    FlipsJSON,
    Row,
    RowJSON,
    RunInfo,
    RunInfoJSON,
    SettingDifference,
    SettingDifferenceJSON,
    SuiteComparison,
    SuiteComparisonJSON,
    TotalRow,
    TotalRowJSON,
)
from pytest_tom.core.option_table import build_options
from pytest_tom.core.outcome import Outcome
from pytest_tom.core.probe import Probes, ProbesSetting
from pytest_tom.core.sweep import Sweep, SweepSetting
from pytest_tom.metrics.accuracy import CountsJSON, accuracy_block, core_metrics
from pytest_tom.metrics.intervals import (
    IntervalJSON,
    MetricInterval,
    PairedDiff,
    PairedDiffJSON,
    wilson,
)
from pytest_tom.results.asked import AskedJSON, asked_block, derived_block


def fits(data: Mapping[str, object], shape: type) -> None:
    """`data`'s keys are `shape`'s, its required ones all there; `shape` resolves."""
    typing.get_type_hints(shape)
    declared = set(shape.__annotations__)
    assert set(data) <= declared, (shape.__name__, set(data) - declared)
    assert shape.__required_keys__ <= set(data), (shape.__name__, shape.__required_keys__ - set(data))


def test_metrics_writers_fit_their_declarations() -> None:
    fits(wilson(3, 4).to_dict(), IntervalJSON)
    boot = MetricInterval(0.5, 0.4, 0.6, "bootstrap", 10, 1000, 7, "Turn", True, "amount")
    assert {"resamples", "seed", "label", "headline", "display"} <= set(boot.to_dict())
    fits(boot.to_dict(), IntervalJSON)
    diff = PairedDiff(0.5, 0.7, 0.2, 0.1, 0.3, 0.04, "mcnemar", 10, 1, 3)
    fits(diff.to_dict(), PairedDiffJSON)
    records = [{"item": {"suite": "s", "id": f"q{i}", "scenario": "a", "tags": ["t"]},
                "outcome": Outcome(correct=i % 2 == 0).to_dict()} for i in range(4)]
    block = accuracy_block(records)  # type: ignore[arg-type]
    fits(block, CountsJSON)
    assert set(CountsJSON.__annotations__) - set(block) == {"parse_failure_rate"}
    flat = core_metrics(records)  # type: ignore[arg-type]
    fits({k: v for k, v in flat.items() if not k.startswith("tag.")}, CountsJSON)
    assert {"tag.t.items", "tag.t.turn", "tag.t.goal"} <= set(flat)


def test_settings_blocks_fit_their_declarations() -> None:
    fits(Sweep("thinking-tokens", (16, 4096)).as_dict(), SweepSetting)
    fits(Probes(("no-story", "shuffle")).as_dict(3), ProbesSetting)
    assert "orders" not in Probes(("no-story",)).as_dict(3)
    options = build_options({"sweep": "thinking-tokens=16,4096", "thinking": "on"})
    block = asked_block(options, [], "vanilla", family_lengths=False)
    fits(block, AskedJSON)
    assert set(block["sweep"]) == set(SweepSetting.__annotations__)
    fits(derived_block(request_fields={"reasoning_effort": "low"},
                       answer_length="max_tokens 64 per answer + 300 for the thought"), AskedJSON)


def test_the_comparison_json_fits_its_declarations() -> None:
    iv = wilson(3, 4)
    diff = PairedDiff(0.5, 0.7, 0.2, 0.1, 0.3, 0.04, "mcnemar", 10, 1, 3)
    cmp = Comparison(
        seed=0, resamples=100,
        runs=[RunInfo("a", "m", "a.json", {"method": "vanilla"}, None, 4)],
        suites=[SuiteComparison("s", "generic", [4, 4],
                                [Row("turn", "Turn", "share", True, [0.5, 0.7], [iv, None],
                                     [None, diff], display="amount", counts=[(1, 4), None])])],
        totals=[TotalRow("turn", "Turn", [0.5, 0.7],
                         [MetricInterval.of(iv, "Turn", True), iv], counts=None)],
        flips=[Flips("b", 1, 0, [Flip("s", "q1", "mc", "Where?", "a", "worse",
                                      Answer("right", "a"), Answer("wrong", "b"))])],
        asked=[AskedDifferently("b", [SettingDifference("settings.seed", 0, 1)])])
    out = cmp.to_dict()
    fits(out, ComparisonJSON)
    fits(out["runs"][0], RunInfoJSON)
    suite = out["suites"][0]
    fits(suite, SuiteComparisonJSON)
    row = suite["rows"][0]
    fits(row, RowJSON)
    bounds = row["intervals"][0]
    assert bounds is not None
    fits(bounds, BoundsJSON)
    fits(out["totals"][0], TotalRowJSON)
    flips = out["flips"][0]
    fits(flips, FlipsJSON)
    fits(flips["items"][0], FlipJSON)
    fits(flips["items"][0]["before"], AnswerJSON)
    asked = out["asked_differently"][0]
    fits(asked, AskedDifferentlyJSON)
    fits(asked["fields"][0], SettingDifferenceJSON)
