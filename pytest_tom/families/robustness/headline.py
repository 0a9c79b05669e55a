"""The robustness family's headline metrics and plots, declared once (see
`pytest_tom.metrics.declare`): turn and goal accuracy of each complexity class (goal:
sceneries with every scene right), drawn beside the overall ones and the coin toss."""

from __future__ import annotations

from collections.abc import Callable

from pytest_tom.families.robustness.schema import CLASSES
from pytest_tom.metrics.accuracy import Record
from pytest_tom.metrics.declare import GROUPED, AllRight, Metric, Plot, meta, ratio_of

PLOTS = (
    Plot("turn", "Turn accuracy per complexity class", also=(("turn", "overall"),),
         baselines=(("coin toss 50%", 0.5),)),
    Plot("goal", "Goal accuracy per complexity class", also=(("goal", "overall"),),
         baselines=(("coin toss ≈ 0% (2^-16)", 2 ** -16),)),
)


def of_class(c: str) -> Callable[[Record], bool]:
    return lambda r: meta(r).get("class") == c


METRICS = tuple(
    m for c, label in CLASSES.items() for m in (
        Metric(f"class.{c}.turn", f"{label}: turn", select=of_class(c), reads=("class",),
               headline=False, plot="turn", short=label),
        Metric(f"class.{c}.goal", f"{label}: goal", GROUPED, select=of_class(c),
               reads=("class",), summarize=AllRight(), finish=ratio_of(), headline=False,
               of_groups=True, plot="goal", short=label),
    ))
