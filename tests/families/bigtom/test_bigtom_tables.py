"""BigToM's tables show the declared values, and the declared joint scores of each inference
and variant, against hand-computed values on hand-built records."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from pytest_tom import families
from pytest_tom.families.base import Settings
from pytest_tom.families.bigtom.conditions import BY_ID, INFERENCES, PERCEPT_TO_BELIEF, VARIANT_ID
from pytest_tom.metrics.declare import Value
from pytest_tom.metrics.numbers import pct
from pytest_tom.results.aggregate import aggregate, family_result

FAMILY = families.get("bigtom")
DECLARED = [m.name for m in FAMILY.declared_metrics(Settings())]


def rec(scenario: str, cid: str, correct: bool | None, error: str | None = None,
        initial_state: bool | None = None) -> dict[str, Any]:
    """A record of template `scenario` under condition `cid`, as the family's items carry."""
    cond = BY_ID[cid]
    extra = {} if initial_state is None else {"initial_state": initial_state}
    return {
        "item": {"id": f"{scenario}::{cid}", "suite": "s", "family": "bigtom",
                 "scenario": scenario, "group": scenario, "kind": cond.inference, "tags": [],
                 "source": {},
                 "meta": {"condition": cid, "inference": cond.inference,
                          "belief_condition": cond.belief,
                          "initial_belief": cond.initial_belief}},
        "outcome": {"correct": correct, "error": error, "extra": extra},
    }


FB, TB = "forward_belief.false_belief.with_init", "forward_belief.true_belief.with_init"
BB_TB, BB_FB = "backward_belief.true_belief.no_init", "backward_belief.false_belief.no_init"
FA_TC, FA_FC = "forward_action.true_control.with_init", "forward_action.false_control.with_init"


def hand_built() -> list[dict[str, Any]]:
    return [
        # forward belief, with the initial belief: a both-right pair (A), a pair with the
        # true-belief item wrong (B), a false-belief item without its partner (C) and one
        # whose partner was skipped (D): 1 of 2 pairs, 2 unpaired
        rec("A", TB, True, initial_state=False), rec("A", FB, True, initial_state=True),
        rec("B", TB, False, initial_state=True), rec("B", FB, True, initial_state=True),
        rec("C", FB, True),
        rec("D", TB, None, error="unavailable"), rec("D", FB, False),
        # backward belief without the initial belief: TB right, FB wrong: 0 of 1
        rec("A", BB_TB, True), rec("A", BB_FB, False),
        # forward action controls: both right (A), FC a failed request (B): 1 of 2
        rec("A", FA_TC, True), rec("A", FA_FC, True),
        rec("B", FA_TC, True), rec("B", FA_FC, False, error="request_failed"),
        rec("A", PERCEPT_TO_BELIEF, True),
    ]


def test_joint_scores_per_inference_and_variant_by_hand() -> None:
    result = family_result("bigtom", hand_built(), Settings())
    m = result.metrics
    assert m["forward_belief.tb_and_fb.with_init"] == 1 / 2
    assert m["backward_belief.tb_and_fb.no_init"] == 0.0
    assert m["forward_action.tc_and_fc.with_init"] == 1 / 2
    assert m["tb_and_fb"] == 1 / 3  # the pairs of both inferences pooled
    assert m["tc_and_fc"] == 1 / 2
    # none of their items ran: None, as every BigToM metric always was
    assert m["forward_belief.tb_and_fb.no_init"] is None
    assert m["backward_belief.tc_and_fc.with_init"] is None
    assert m[FB] == 3 / 4 and m[TB] == 1 / 2 and m["false_belief"] == 3 / 5
    assert m["initial_state_rate"] == 3 / 4  # judged answers naming one option
    main, controls = result.tables
    forward = main.rows[:3]
    assert forward[2] == ["", "TB ∧ FB", "50.0% (1/2)", None]
    assert main.rows[8] == ["", "TB ∧ FB", None, "0.0% (0/1)"]  # backward belief
    assert controls.rows[5] == ["", "TC ∧ FC", "50.0% (1/2)", None]  # forward action
    assert "2 item(s) had no partner item" in main.note


def test_joint_scores_per_inference_get_intervals() -> None:
    suite = aggregate(hand_built(), Settings())["suites"]["s"]
    iv = suite["intervals"]
    half = iv["forward_belief.tb_and_fb.with_init"]
    assert half["method"] == "bootstrap" and half["low"] <= 0.5 <= half["high"]
    assert not half["headline"]
    # 0 of 1 pair: no spread to resample, the Wilson interval over the pairs' groups
    none = iv["backward_belief.tb_and_fb.no_init"]
    assert none["method"] == "wilson over groups" and none["value"] == 0.0 and none["n"] == 1
    assert "forward_belief.tb_and_fb.no_init" not in iv  # no pair, no interval


def test_a_pairing_key_twice_is_an_error() -> None:
    records = hand_built() + [{**rec("A", FB, True), "item": {**rec("A", FB, True)["item"],
                                                                "id": "A::again"}}]
    with pytest.raises(ValueError, match="share the pairing key"):
        family_result("bigtom", records, Settings())


def sentinels() -> dict[str, Value]:
    """A value for every declared metric that no count of the records could give: the
    i-th holds 0.001·i of (i + 1000)/(5000 - 2·i)."""
    return {name: Value(0.001 * i, Counter({"ok": i + 1000, "n": 5000 - 2 * i}), 1)
            for i, name in enumerate(DECLARED)}


def shown(value: Value) -> str:
    ok, n = value.count()
    return f"{pct(value.value)} ({ok}/{n})"


def test_the_tables_show_the_declared_values() -> None:
    """Every cell of both tables is the declared value handed in, with its counts: a
    table that counted the records itself would show 50.0% (1/2) and the like."""
    declared = sentinels()
    result = FAMILY.aggregate(hand_built(), Settings(), declared)
    main, controls = result.tables
    cells = 0
    for table, (anchor, dependent, joint) in ((main, ("true_belief", "false_belief", "tb_and_fb")),
                                              (controls, ("true_control", "false_control",
                                                          "tc_and_fc"))):
        for i, inference in enumerate(INFERENCES):
            rows = table.rows[3 * i: 3 * i + 3]
            for row, name in zip(rows, (anchor, dependent, joint), strict=True):
                for col, initial in ((2, True), (3, False)):
                    key = (f"{inference}.{joint}.{VARIANT_ID[initial]}" if name == joint
                           else f"{inference}.{name}.{VARIANT_ID[initial]}")
                    assert row[col] == shown(declared[key]), (table.title, key)
                    cells += 1
    assert controls.rows[-1][3] == shown(declared[PERCEPT_TO_BELIEF])
    assert cells == 36
    # the unpaired note follows from the declared counts: judged dependents minus pairs
    dependents = [f"{i}.{d}.{v}" for i in INFERENCES for v in VARIANT_ID.values()
                  for d in ("false_belief", "false_control")]
    joints = [f"{i}.{j}.{v}" for i in INFERENCES for v in VARIANT_ID.values()
              for j in ("tb_and_fb", "tc_and_fc")]
    unpaired = (sum(declared[d].count()[1] for d in dependents)
                - sum(declared[j].count()[1] for j in joints))
    assert f"{unpaired} item(s) had no partner item" in main.note
    # the declared metrics are the engine's to report: the family adds only its own figure
    assert set(result.metrics) == {"initial_state_rate"}


def test_a_declared_metric_without_value_is_reported_as_none() -> None:
    declared = {**sentinels(), TB: Value(None)}
    result = FAMILY.aggregate(hand_built(), Settings(), declared)
    assert result.metrics == {TB: None, "initial_state_rate": 3 / 4}
    assert result.tables[0].rows[0][2] is None  # forward belief TB, with initial belief
