"""Robustness tables: turn and goal accuracy per complexity class beside the coin-toss
baselines (the paper's Tables 1 and 2) and turn accuracy per scene variant.

Their accuracies are the declared metrics of `headline.py` (`class.<class>.turn`,
`class.<class>.goal`, `variant.<variant>.<belief|world|all>.turn`), computed once by the
engine and handed to `aggregate` with the counts behind them; the overall rows add up the
classes' counts (every scene has exactly one class, and every scenery one class, so these
are the suite's `turn` and `goal`, which the core metrics report). What stays counted
here is what the declaration forms cannot express:

* `class.<class>.sceneries`, `sceneries`: sceneries with any scene (run or skipped);
* the unparseable scenes of each class (a count, not a share of judged scenes);
* `baseline.turn`, `baseline.goal`: the coin toss, whose goal baseline is a mean over
  sceneries of 2^-scenes;
* the turn accuracy of a variant that a hand-written scene names itself
  (`variant: distracted`): a name known only once the suite is read cannot be declared.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import Declared
from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import judged_verdict
from pytest_tom.families.kit import meta_verdicts
from pytest_tom.families.kit import pct
from pytest_tom.families.kit import ratio
from pytest_tom.families.kit import tiny_pct
from pytest_tom.families.robustness.headline import ALL
from pytest_tom.families.robustness.headline import DECLARED_VARIANTS
from pytest_tom.families.robustness.headline import variant_metric
from pytest_tom.families.robustness.scenes import QUESTIONS
from pytest_tom.families.robustness.scenes import VARIANTS
from pytest_tom.families.robustness.schema import CLASSES

COIN_TURN = 0.5  # two plausible answers per scene (the paper's turn baseline)
COLUMNS = (*QUESTIONS, ALL)  # the variant table's columns


def coin_goal(scenes: int) -> float:
    """Chance that coin tosses answer every scene of a scenery right (2^-16 for 16 scenes)."""
    return COIN_TURN ** scenes


def aggregate(records: list[Record], settings: Settings, declared: Declared) -> FamilyResult:
    """The tables of the declared values, and the figures that are not declared metrics.
    A declared metric of a class (or variant) that has scenes but none judged is reported
    as None, as it always was; one of a class or variant without scenes is left out."""
    counted = _count(records)
    present = [c for c in CLASSES if c in counted.sizes]
    metrics: dict[str, float | int | None] = {}
    turn_rows: list[list[Any]] = []
    goal_rows: list[list[Any]] = []
    overall = {"turn": [0, 0], "goal": [0, 0]}  # (ok, n) added up over the classes
    for c in present:
        turn, goal = (declared[f"class.{c}.{what}"] for what in ("turn", "goal"))
        for name, value in ((f"class.{c}.turn", turn), (f"class.{c}.goal", goal)):
            if value.value is None:
                metrics[name] = None
        sizes = counted.sizes[c]
        metrics[f"class.{c}.sceneries"] = len(sizes)
        turn_rows.append(_turn_row(CLASSES[c], len(sizes), turn.value, *turn.count(),
                                   counted.unparseable[c]))
        goal_rows.append(_goal_row(CLASSES[c], len(sizes), goal.value, goal.count()[0],
                                   _coin_goal_of(sizes.values())))
        for what, value in (("turn", turn), ("goal", goal)):
            ok, n = value.count()
            overall[what][0] += ok
            overall[what][1] += n
    every = [size for c in present for size in counted.sizes[c].values()]
    (right, judged), (all_right, sceneries_judged) = overall["turn"], overall["goal"]
    turn_rows.append(_turn_row("overall", len(every), ratio(right, judged), right, judged,
                               sum(counted.unparseable[c] for c in present)))
    goal_rows.append(_goal_row("overall", len(every), ratio(all_right, sceneries_judged),
                               all_right, _coin_goal_of(every)))
    metrics["sceneries"] = len(every)
    metrics["baseline.turn"] = COIN_TURN
    metrics["baseline.goal"] = _coin_goal_of(every)
    variant_rows = _variant_rows(declared, counted.own_variants, metrics)
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


def _turn_row(label: str, sceneries: int, turn: float | None, right: int, judged: int,
              unparseable: int) -> list[Any]:
    return [label, sceneries, judged, right, unparseable, pct(turn), pct(COIN_TURN)]


def _goal_row(label: str, sceneries: int, goal: float | None, all_right: int,
              coin: float | None) -> list[Any]:
    return [label, sceneries, all_right, pct(goal), tiny_pct(coin)]


def _coin_goal_of(sizes: Any) -> float | None:
    """The coin-toss goal accuracy: the mean over sceneries of 2^-scenes."""
    sizes = list(sizes)
    return sum(coin_goal(s) for s in sizes) / len(sizes) if sizes else None


class _Counted:
    """What one pass over the records counts: the scenes of each scenery by class, the
    unparseable scenes of each class, and (right, judged) of the variants not declared,
    by (variant, question) and (variant, "all")."""

    __slots__ = ("sizes", "unparseable", "own_variants")

    def __init__(self) -> None:
        self.sizes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.unparseable: dict[str, int] = defaultdict(int)
        self.own_variants: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])


def _count(records: list[Record]) -> _Counted:
    """One pass over the records (a 100,000-record run reads each once)."""
    counted = _Counted()
    declared_variants = frozenset(DECLARED_VARIANTS)
    for _, meta, unit, error, correct in meta_verdicts(records):
        cls = meta.get("class", "?")
        counted.sizes[cls][unit] += 1
        if error == UNPARSEABLE:
            counted.unparseable[cls] += 1
        variant = meta.get("variant")
        if variant not in declared_variants and judged_verdict(error, correct):
            right = bool(correct)
            for cell in (counted.own_variants[(variant, meta.get("question"))],
                         counted.own_variants[(variant, ALL)]):
                cell[0] += right
                cell[1] += 1
    return counted


def _variant_rows(declared: Declared, own: dict[tuple[str, str], list[int]],
                  metrics: dict[str, float | int | None]) -> list[list[Any]]:
    """One row per variant with a judged scene: its declared values (reported None where
    a column has no judged scene), then those of the variants hand-written scenes name
    themselves, counted here (`own`) and reported as metrics of the same form."""
    cells: dict[str, dict[str, tuple[float | None, int, int]]] = {}
    for v in DECLARED_VARIANTS:
        values = {q: declared[variant_metric(v, q)] for q in COLUMNS}
        if values[ALL].count()[1]:
            cells[v] = {q: (value.value, *value.count()) for q, value in values.items()}
            metrics.update({variant_metric(v, q): None for q, value in values.items()
                            if value.value is None})
    for v in sorted({v for v, _ in own}, key=str):
        cells[v] = {q: (ratio(*own[(v, q)]) if (v, q) in own else None,
                        *own.get((v, q), (0, 0))) for q in COLUMNS}
        metrics.update({variant_metric(v, q): cells[v][q][0] for q in COLUMNS})
    order = [v for v in VARIANTS if v in cells] + sorted(set(cells) - set(VARIANTS), key=str)
    return [[v, *(_share(*cells[v][q]) for q in COLUMNS)] for v in order]


def _share(value: float | None, ok: int, n: int) -> str:
    """`93.8% (75/80)`, `n/a` without a judged scene."""
    return pct(None) if n == 0 else f"{pct(value)} ({ok}/{n})"
