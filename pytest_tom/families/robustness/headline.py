"""The robustness family's metrics and plots, declared once (see
`pytest_tom.metrics.declare`): turn and goal accuracy of each complexity class (goal:
sceneries with every scene right), drawn beside the overall ones and the coin toss, and
the turn accuracy of each scene variant, on its belief questions, its world questions and
all of them (`variant.<variant>.<belief|world|all>.turn`). The tables in the paper's
layout (`robustness.metrics`) show these values."""

from __future__ import annotations

from collections.abc import Callable

from pytest_tom.families.kit import GROUPED
from pytest_tom.families.kit import AllRight
from pytest_tom.families.kit import Metric
from pytest_tom.families.kit import Plot
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import meta
from pytest_tom.families.kit import ratio_of
from pytest_tom.families.robustness.scenes import QUESTIONS
from pytest_tom.families.robustness.scenes import VARIANTS
from pytest_tom.families.robustness.schema import CLASSES

HAND = "hand"  # the variant of a hand-written scene that names none
# the variants declared (a hand-written scene may name a variant of its own, whose figures
# `robustness.metrics` counts: a name known only once the suite is read cannot be declared)
DECLARED_VARIANTS = (*VARIANTS, HAND)
ALL = "all"  # a variant's column over every question

PLOTS = (
    Plot("turn", "Turn accuracy per complexity class", also=(("turn", "overall"),),
         baselines=(("coin toss 50%", 0.5),)),
    Plot("goal", "Goal accuracy per complexity class", also=(("goal", "overall"),),
         baselines=(("coin toss ≈ 0% (2^-16)", 2 ** -16),)),
)


def of_class(c: str) -> Callable[[Record], bool]:
    return lambda r: meta(r).get("class") == c


def of_variant(v: str, question: str) -> Callable[[Record], bool]:
    if question == ALL:
        return lambda r: meta(r).get("variant") == v
    return lambda r: meta(r).get("variant") == v and meta(r).get("question") == question


def variant_metric(v: str, question: str) -> str:
    """`variant.informed.belief.turn`."""
    return f"variant.{v}.{question}.turn"


METRICS = (
    *(m for c, label in CLASSES.items() for m in (
        Metric(f"class.{c}.turn", f"{label}: turn", select=of_class(c), reads=("class",),
               headline=False, plot="turn", short=label),
        Metric(f"class.{c}.goal", f"{label}: goal", GROUPED, select=of_class(c),
               reads=("class",), summarize=AllRight(), finish=ratio_of(), headline=False,
               of_groups=True, plot="goal", short=label),
    )),
    *(Metric(variant_metric(v, q), f"variant {v}, {q} questions: turn" if q != ALL else
             f"variant {v}: turn", select=of_variant(v, q), reads=("variant", "question"),
             headline=False)
      for v in DECLARED_VARIANTS for q in (*QUESTIONS, ALL)),
)
