"""The robustness tables show the declared values, and the declared per-variant turn
accuracies against hand-computed values on hand-built records."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pytest_tom import families
from pytest_tom.families.base import Settings
from pytest_tom.metrics.declare import Value
from pytest_tom.metrics.numbers import pct
from pytest_tom.results.aggregate import aggregate, family_result

FAMILY = families.get("robustness")
DECLARED = [m.name for m in FAMILY.declared_metrics(Settings())]
LATE, LABEL = "late_label", "uninformative_label"


def rec(scenery: str, cls: str, scene: str, variant: str, question: str, correct: bool | None,
        error: str | None = None) -> dict[str, Any]:
    """A scene of scenery `scenery` (stage `st`) of class `cls`, as the family's items carry."""
    return {
        "item": {"id": f"st::{scenery}::{scene}", "suite": "s", "family": "robustness",
                 "scenario": "st", "group": f"st::{scenery}", "kind": question,
                 "tags": [cls], "source": {},
                 "meta": {"class": cls, "scenery": scenery, "variant": variant,
                          "question": question}},
        "outcome": {"correct": correct, "error": error, "extra": {}},
    }


def hand_built() -> list[dict[str, Any]]:
    return [
        # late label, scenery a: every scene right; scenery b: the informed world scene
        # unparseable (wrong) and a skipped one
        rec("a", LATE, "s1", "story", "belief", True),
        rec("a", LATE, "s2", "story", "world", True),
        rec("a", LATE, "s3", "informed", "belief", True),
        rec("b", LATE, "s1", "story", "belief", True),
        rec("b", LATE, "s2", "informed", "world", False, error="unparseable"),
        rec("b", LATE, "s3", "informed", "belief", None, error="unavailable"),
        # uninformative label, scenery c: a story belief scene wrong, a hand-written scene
        # of the suite's own variant "distracted" right, a scene asking its own question
        rec("c", LABEL, "s1", "story", "belief", False),
        rec("c", LABEL, "s2", "distracted", "world", True),
        rec("c", LABEL, "s3", "hand", "custom", True),
    ]


def test_variant_turn_accuracy_by_hand() -> None:
    m = family_result("robustness", hand_built(), Settings()).metrics
    assert m["variant.story.belief.turn"] == 2 / 3
    assert m["variant.story.world.turn"] == 1.0
    assert m["variant.story.all.turn"] == 3 / 4
    assert m["variant.informed.belief.turn"] == 1.0  # the skipped scene is not judged
    assert m["variant.informed.world.turn"] == 0.0  # unparseable counts as wrong
    assert m["variant.informed.all.turn"] == 1 / 2
    # a variant with judged scenes but none of a question: None there, as it always was
    assert m["variant.hand.all.turn"] == 1.0
    assert m["variant.hand.belief.turn"] is None and m["variant.hand.world.turn"] is None
    # the suite's own variant, counted by the family (its name cannot be declared)
    assert m["variant.distracted.world.turn"] == 1.0 and m["variant.distracted.all.turn"] == 1.0
    assert m["variant.distracted.belief.turn"] is None
    for absent in ("true_belief", "visible"):  # no scene: no metric
        assert not any(k.startswith(f"variant.{absent}.") for k in m)
    assert m[f"class.{LATE}.turn"] == 4 / 5 and m[f"class.{LATE}.goal"] == 1 / 2
    assert m[f"class.{LABEL}.turn"] == 2 / 3 and m[f"class.{LABEL}.goal"] == 0.0
    assert m[f"class.{LATE}.sceneries"] == 2 and m["sceneries"] == 3
    assert not any(k.startswith("class.no_complication.") for k in m)
    rows = family_result("robustness", hand_built(), Settings()).tables[2].rows
    assert rows == [["story", "66.7% (2/3)", "100.0% (1/1)", "75.0% (3/4)"],
                    ["informed", "100.0% (1/1)", "0.0% (0/1)", "50.0% (1/2)"],
                    ["distracted", "n/a", "100.0% (1/1)", "100.0% (1/1)"],
                    ["hand", "n/a", "n/a", "100.0% (1/1)"]]


def test_variant_turn_accuracy_gets_intervals() -> None:
    suite = aggregate(hand_built(), Settings())["suites"]["s"]
    iv = suite["intervals"]
    story = iv["variant.story.all.turn"]
    assert story["method"] == "wilson" and story["n"] == 4 and story["low"] < 0.75 < story["high"]
    assert "variant.hand.belief.turn" not in iv  # None: no interval
    # the overall rows add up the classes: the suite's turn and goal
    t1, t2 = suite["tables"][:2]
    assert t1["rows"][-1][:6] == ["overall", 3, 8, 6, 1, pct(suite["metrics"]["turn"])]
    assert t2["rows"][-1][:4] == ["overall", 3, 1, pct(suite["metrics"]["goal"])]


def test_a_class_with_no_judged_scene_reports_none() -> None:
    records = hand_built() + [rec("d", "late_label", "s1", "story", "belief", None,
                                  error="unavailable")]
    records = [r for r in records if r["item"]["meta"]["class"] != LATE or
               r["item"]["group"] == "st::d"]
    m = family_result("robustness", records, Settings()).metrics
    assert m[f"class.{LATE}.turn"] is None and m[f"class.{LATE}.goal"] is None
    assert m[f"class.{LATE}.sceneries"] == 1


def sentinels() -> dict[str, Value]:
    """A value for every declared metric that no count of the records could give: the
    i-th holds 0.001·i of (i + 100)/(3·i + 500)."""
    return {name: Value(0.001 * i, Counter({"ok": i + 100, "n": 3 * i + 500}), 1)
            for i, name in enumerate(DECLARED)}


def test_the_tables_show_the_declared_values() -> None:
    """Every accuracy cell is the declared value handed in, with its counts; the overall
    rows add up the classes' counts. A table that counted the records itself would show
    the hand-built records' 75.0% (3/4) and the like."""
    declared = sentinels()
    result = FAMILY.aggregate(hand_built(), Settings(), declared)
    t1, t2, t3 = result.tables
    turns, goals = [], []
    for row1, row2, cls in zip(t1.rows, t2.rows, (LABEL, LATE), strict=False):
        turn, goal = declared[f"class.{cls}.turn"], declared[f"class.{cls}.goal"]
        # class, sceneries, scenes judged, right, unparseable, turn, coin toss
        assert row1[2:4] == [turn.count()[1], turn.count()[0]]
        assert row1[5] == pct(turn.value)
        assert row2[2:4] == [goal.count()[0], pct(goal.value)]
        turns.append(turn.count())
        goals.append(goal.count())
    assert [r[0] for r in t1.rows] == ["uninformative label", "late label", "overall"]
    right, judged = map(sum, zip(*turns, strict=True))
    all_right, sceneries = map(sum, zip(*goals, strict=True))
    assert t1.rows[-1][2:4] == [judged, right] and t1.rows[-1][5] == pct(right / judged)
    assert t2.rows[-1][2:4] == [all_right, pct(all_right / sceneries)]
    # every declared variant has judged scenes here (the sentinels' counts), and the
    # suite's own variant "distracted" is counted from the records
    assert [r[0] for r in t3.rows] == ["story", "true_belief", "informed", "visible",
                                       "distracted", "hand"]
    for row in t3.rows:
        if row[0] == "distracted":
            assert row[1:] == ["n/a", "100.0% (1/1)", "100.0% (1/1)"]
            continue
        for cell, q in zip(row[1:], ("belief", "world", "all"), strict=True):
            value = declared[f"variant.{row[0]}.{q}.turn"]
            ok, n = value.count()
            assert cell == f"{pct(value.value)} ({ok}/{n})", (row[0], q)
    # the declared metrics are the engine's to report: the family adds its own figures
    assert not set(result.metrics) & set(DECLARED)
    assert set(result.metrics) == {
        f"class.{LATE}.sceneries", f"class.{LABEL}.sceneries", "sceneries", "baseline.turn",
        "baseline.goal", "variant.distracted.belief.turn", "variant.distracted.world.turn",
        "variant.distracted.all.turn"}
