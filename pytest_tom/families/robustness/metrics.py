"""Robustness aggregates: turn and goal accuracy per complexity class beside the coin-toss
baselines (the paper's Tables 1 and 2) and turn accuracy per scene variant, counted in one
pass over the records. The per-class metrics are declared in `headline.py`."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pytest_tom.core.outcome import SKIPPED, UNPARSEABLE, status
from pytest_tom.families.base import FamilyResult, MetricTable, Settings
from pytest_tom.families.robustness.scenes import VARIANTS
from pytest_tom.families.robustness.schema import CLASSES
from pytest_tom.metrics.accuracy import AllRightGroups, Record, ratio
from pytest_tom.metrics.numbers import pct, pct_of, tiny_pct

COIN_TURN = 0.5  # two plausible answers per scene (the paper's turn baseline)


def coin_goal(scenes: int) -> float:
    """Chance that coin tosses answer every scene of a scenery right (2^-16 for 16 scenes)."""
    return COIN_TURN ** scenes


def aggregate_records(records: list[Record], settings: Settings) -> FamilyResult:
    by_class, cells = _count(records)
    order = [c for c in CLASSES if c in by_class] + sorted(set(by_class) - set(CLASSES))
    overall = _ClassCounts()
    for counts in by_class.values():
        overall.add(counts)
    metrics: dict[str, float | int | None] = {}
    turn_rows: list[list[Any]] = []
    goal_rows: list[list[Any]] = []
    for name, counts in [*((c, by_class[c]) for c in order), ("overall", overall)]:
        row = counts.row()
        label = CLASSES.get(name, name)
        turn_rows.append([label, row["sceneries"], row["judged"], row["right"],
                          row["unparseable"], pct(row["turn"]), pct(COIN_TURN)])
        goal_rows.append([label, row["sceneries"], row["all_right"], pct(row["goal"]),
                          tiny_pct(row["coin_goal"])])
        prefix = "" if name == "overall" else f"class.{name}."
        metrics[f"{prefix}turn"] = row["turn"]
        metrics[f"{prefix}goal"] = row["goal"]
        if name == "overall":
            metrics["sceneries"] = row["sceneries"]
            metrics["baseline.turn"] = COIN_TURN
            metrics["baseline.goal"] = row["coin_goal"]
        else:
            metrics[f"{prefix}sceneries"] = row["sceneries"]
    variant_rows, variant_metrics = _variant_table(cells)
    metrics.update(variant_metrics)
    tables = [
        MetricTable("Turn accuracy by complexity class (as the paper's Table 1)",
                    ["complexity class", "sceneries", "scenes", "right", "unparseable",
                     "turn acc", "coin toss"], turn_rows,
                    "turn accuracy = scenes answered right / scenes; coin toss = 50.0%"),
        MetricTable("Goal accuracy by complexity class (as the paper's Table 2)",
                    ["complexity class", "sceneries", "all scenes right", "goal acc",
                     "coin toss"], goal_rows,
                    "goal accuracy = sceneries with every scene right / sceneries; "
                    "coin toss = 2^-scenes per scenery (2^-16 = 1.5e-05)"),
        MetricTable("Turn accuracy by scene variant", ["variant", "belief", "world", "all"],
                    variant_rows, "variants: story as written, true belief, informed "
                    "protagonist, visible true state; each with the objects as written "
                    "and swapped"),
    ]
    return FamilyResult(metrics=metrics, tables=tables)


class _ClassCounts:
    """The counts of one row of the class tables: scenes judged, right and unparseable, and
    per scenery its scenes and whether every judged one is right."""

    __slots__ = ("judged", "right", "unparseable", "sizes", "sceneries")

    def __init__(self) -> None:
        self.judged = self.right = self.unparseable = 0
        self.sizes: dict[str, int] = defaultdict(int)  # scenery -> scenes
        self.sceneries = AllRightGroups()  # sceneries with a judged scene, and all right?

    def add(self, other: _ClassCounts) -> None:
        """Count `other`'s scenes here too (the overall row adds up the classes)."""
        self.judged += other.judged
        self.right += other.right
        self.unparseable += other.unparseable
        for key, n in other.sizes.items():
            self.sizes[key] += n
        self.sceneries.merge(other.sceneries)

    def row(self) -> dict[str, Any]:
        sizes = self.sizes
        ok, n = self.sceneries.counts()
        return {
            "sceneries": len(sizes), "judged": self.judged, "right": self.right,
            "unparseable": self.unparseable,
            "turn": ratio(self.right, self.judged), "goal": ratio(ok, n), "all_right": ok,
            "coin_goal": (sum(coin_goal(s) for s in sizes.values()) / len(sizes)) if sizes else None,
        }


Cells = dict[tuple[Any, str], list[int]]  # (variant, question or "all") -> [right, judged]


def _count(records: list[Record]) -> tuple[dict[str, _ClassCounts], Cells]:
    """One pass over the records (a 100,000-record run reads each once): the counts of each
    complexity class, and the cells of the variant table."""
    by_class: dict[str, _ClassCounts] = {}
    cells: Cells = defaultdict(lambda: [0, 0])
    for r in records:
        item, outcome = r["item"], r["outcome"]
        meta = item["meta"]
        cls = meta.get("class", "?")
        counts = by_class.get(cls)
        if counts is None:
            counts = by_class[cls] = _ClassCounts()
        key = item.get("group") or item["scenario"]
        counts.sizes[key] += 1
        state = status(outcome)
        if state == UNPARSEABLE:
            counts.unparseable += 1
        correct = outcome.get("correct")
        if correct is None or state == SKIPPED:
            continue
        right = bool(correct)
        counts.judged += 1
        counts.right += right
        counts.sceneries.add(key, right)
        variant = meta.get("variant")
        for cell in (cells[(variant, meta.get("question"))], cells[(variant, "all")]):
            cell[0] += right
            cell[1] += 1
    return by_class, cells


def _variant_table(cells: Cells) -> tuple[list[list[Any]], dict[str, float | None]]:
    variants = [v for v in VARIANTS if any(k[0] == v for k in cells)]
    variants += sorted({k[0] for k in cells} - set(VARIANTS))
    rows, metrics = [], {}
    for v in variants:
        row: list[Any] = [v]
        for q in ("belief", "world", "all"):
            right, n = cells.get((v, q), (0, 0))
            row.append(pct_of(right, n))
            metrics[f"variant.{v}.{q}.turn"] = ratio(right, n)
        rows.append(row)
    return rows, metrics
