"""Thought-length statistics that answer the questions (issue 46 item 3), on records of the
bundled suites scored in process and given a thinking model's thoughts: the ratio of mean
thought lengths of every contrast a family declares, with its bootstrap interval, paired
by scenario where the family pairs items; the accuracy by quartile of thought length
within each condition; cut-off items never answered, their lengths apart as lower bounds.
Every figure is computed again here by its plain definition."""

from __future__ import annotations

import math
import random
import statistics
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from test_reasoning_figures import BIGTOM, REPO, SETTINGS, cut_some, scored, think

from pytest_tom import families
from pytest_tom.metrics.record_table import RecordTable
from pytest_tom.metrics.thought_contrast import Condition, Contrast
from pytest_tom.report.terminal import WIDTH, reasoning_lines
from pytest_tom.results.aggregate import aggregate
from pytest_tom.results.reasoning.thought_stats import contrast_blocks

HITOM = REPO / "suites" / "hitom" / "higher-order-stories.tom.yaml"
TOMBENCH = REPO / "suites" / "tombench" / "false-belief-task.tom.yaml"


def belief(rec: dict[str, Any]) -> str:
    return str(rec["item"]["meta"].get("belief_condition"))


def scenario(rec: dict[str, Any]) -> str:
    return rec["item"].get("group") or rec["item"]["scenario"]


def twice_on_false_belief(rec: dict[str, Any], rng: random.Random) -> int:
    """A scenario's own pace (its id), times 2 on false-belief items, with noise."""
    pace = 80 + 40 * (zlib.crc32(scenario(rec).encode()) % 5)
    return int(pace * (2 if belief(rec) == "false_belief" else 1) + rng.randint(-10, 10))


def bigtom_block(records: list[dict[str, Any]]) -> dict[str, Any]:
    suite = aggregate(records, SETTINGS).suite("bigtom-everyday")
    assert suite is not None
    return dict(suite._block["reasoning"])  # noqa: SLF001 the block as the JSON report holds it


def answered(rec: dict[str, Any]) -> bool:
    return rec["outcome"].get("error") not in ("cut_off", "request_failed")


def length(rec: dict[str, Any]) -> float:
    return float(rec["usage"]["reasoning_tokens"] + rec.get("cached_usage", {}).get(
        "reasoning_tokens", 0))


def test_the_ratio_is_paired_by_scenario_and_cut_off_items_are_in_no_mean() -> None:
    records = cut_some(think(scored(BIGTOM), twice_on_false_belief), every=7)
    # one scenario keeps no false-belief item: the paired ratio leaves it out
    dropped = sorted({scenario(r) for r in records})[0]
    records = [r for r in records if not (scenario(r) == dropped
                                          and belief(r) == "false_belief")]
    block = bigtom_block(records)
    (contrast,) = block["contrasts"]
    assert (contrast["name"], contrast["reference"], contrast["paired"]) == (
        "belief", "true_belief", True)
    (row,) = contrast["levels"]
    by: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        if answered(r) and belief(r) in ("true_belief", "false_belief"):
            by[scenario(r)][belief(r)].append(length(r))
    both = {s: v for s, v in by.items() if v["true_belief"] and v["false_belief"]}
    assert dropped not in both and row["groups"] == len(both) == len(by) - 1
    tb = [x for v in both.values() for x in v["true_belief"]]
    fb = [x for v in both.values() for x in v["false_belief"]]
    assert (row["reference_items"], row["items"]) == (len(tb), len(fb))
    assert row["reference_mean"] == pytest.approx(statistics.fmean(tb))
    assert row["mean"] == pytest.approx(statistics.fmean(fb))
    assert row["ratio"] == pytest.approx(statistics.fmean(fb) / statistics.fmean(tb))
    assert row["low"] < row["ratio"] < row["high"] and row["low"] > 1.8 and row["high"] < 2.2
    assert row["method"] == f"bootstrap over {len(both)} groups with both conditions (paired)"
    # cut-off items: never answered, so in no mean; their lengths apart, lower bounds
    cut = [r for r in records if r["outcome"].get("error") == "cut_off"]
    bounds = sorted(length(r) for r in cut)
    assert block["cut_off"] == {"items": len(cut), "with_length": len(cut), "low": bounds[0],
                                "high": bounds[-1], "median": statistics.median(bounds)}
    assert block["items"] == sum(1 for r in records if answered(r))
    suite = aggregate(records, SETTINGS).suite("bigtom-everyday")
    assert suite is not None
    assert suite.metric("reasoning.mean") == pytest.approx(
        statistics.fmean(length(r) for r in records if answered(r)))
    conditions = {c["name"]: c for c in block["conditions"]}
    assert list(conditions) == ["true_belief", "false_belief"]
    assert conditions["false_belief"]["cut_off"]["items"] == sum(
        1 for r in cut if belief(r) == "false_belief")


def quartiles_by_definition(values: list[tuple[float, bool]]) -> list[tuple[int, int]]:
    """(judged, right) of each quartile: cut at the smallest length with at least q of the
    lengths at or below it."""
    s = sorted(v for v, _ in values)
    cuts = [s[max(0, math.ceil(q * len(s)) - 1)] for q in (0.25, 0.5, 0.75)]
    edges = [-math.inf, *cuts, math.inf]
    out = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        inside = [ok for v, ok in values if lo < v <= hi]
        out.append((len(inside), sum(inside)))
    return out


def test_accuracy_by_quartile_within_each_condition() -> None:
    records = cut_some(think(scored(BIGTOM), lambda r, rng: rng.randint(10, 900)), every=11)
    block = bigtom_block(records)
    for cond in block["conditions"]:
        chosen = [r for r in records if belief(r) == cond["name"] and answered(r)
                  and r["outcome"].get("correct") is not None]
        expected = quartiles_by_definition([(length(r), r["outcome"]["correct"] is True)
                                            for r in chosen])
        got = [(q["judged"], q["right"]) for q in cond["quartiles"]]
        assert got == expected, cond["name"]
        for q in cond["quartiles"]:
            assert q["accuracy"] == pytest.approx(q["right"] / q["judged"])
            assert q["ci_low"] <= q["accuracy"] <= q["ci_high"]
        assert sum(q["judged"] for q in cond["quartiles"]) == len(chosen)


def test_a_contrast_without_reference_compares_with_the_other_items() -> None:
    records = think(scored(BIGTOM), twice_on_false_belief)
    table = RecordTable(records, ("belief_condition",))
    fb = Condition("false_belief", "FB", lambda r: belief(r) == "false_belief",
                   ("belief_condition",))
    (contrast,), _ = contrast_blocks(table, [Contrast("fb", "FB against the rest", None,
                                                       (fb,))], seed=3, resamples=200)
    (row,) = contrast["levels"]
    rest = [length(r) for r in records if belief(r) != "false_belief"]
    mine = [length(r) for r in records if belief(r) == "false_belief"]
    assert contrast["reference_label"] == "the suite's other items" and not contrast["paired"]
    assert row["ratio"] == pytest.approx(statistics.fmean(mine) / statistics.fmean(rest))
    assert row["low"] < row["ratio"] < row["high"]
    # the same seed gives the same interval; the interval is over the suite's scenarios
    again, _ = contrast_blocks(table, [Contrast("fb", "x", None, (fb,))], seed=3,
                               resamples=200)
    assert (again[0]["levels"][0]["low"], again[0]["levels"][0]["high"]) == (row["low"],
                                                                             row["high"])
    assert row["groups"] == len({scenario(r) for r in records})


# FANToM's contrast (inaccessible against accessible) is checked in a real run, where its
# free answers' embeddings are loaded once: tests/test_reasoning_runs.py
@pytest.mark.parametrize("path, family, contrast", [
    (BIGTOM, "bigtom", "belief"), (HITOM, "hitom", "order"), (TOMBENCH, "tombench", "ability"),
    (REPO / "suites" / "opentom" / "bundled-narratives.tom.yaml", "opentom", "order"),
    (REPO / "suites" / "mmtomqa" / "household-goals-and-beliefs.tom.yaml", "mmtomqa", "belief"),
])
def test_every_declared_contrast_selects_items_of_its_bundled_suite(
        path: Path, family: str, contrast: str) -> None:
    records = cut_some(think(scored(path), lambda r, rng: rng.randint(20, 400)), every=13)
    results = aggregate(records, SETTINGS)
    (suite,) = results.suites.values()
    assert [c.name for c in families.get(family).thought_contrasts] == [contrast]
    (block,) = suite.reasoning.contrasts
    assert block.levels and all(level.ratio is not None for level in block.levels)
    lines = reasoning_lines(suite, verbose=True)
    assert max(map(len, lines)) <= WIDTH
    assert any(line.startswith("cut off, never answered (in no mean): ") for line in lines)


def test_a_run_whose_every_item_is_cut_off_has_no_mean_but_its_lower_bounds() -> None:
    records = cut_some(think(scored(BIGTOM), lambda r, rng: 300), every=1)
    block = bigtom_block(records)
    assert block["items"] == 0 and block["unit"] == "tokens"
    assert block["cut_off"]["items"] == len(records) and block["cut_off"]["low"] == 300.0
    suite = aggregate(records, SETTINGS).suite("bigtom-everyday")
    assert suite is not None and suite.metric("reasoning.mean") is None
    assert "contrasts" not in block  # no answered item in any condition
