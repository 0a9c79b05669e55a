"""The contrasts of thought length a family declares (`CONTRASTS` in its headline.py):
"does the model think longer on false-belief items than on true-belief ones?".

A contrast compares the mean thought length of the items of each of its `levels` with
that of its `reference` condition (BigToM: false belief against true belief; Hi-ToM:
orders 1-4 against order 0). Without a reference (None) each level is compared with
the suite's other items (ToMBench: an ability against the rest). `paired`: the family
asks every condition of the contrast in one scenario (a BigToM template has a
true-belief and a false-belief story; a Hi-ToM story asks every order), so the ratio is
taken over the scenarios that have answered items of both, resampled together.
`results/reasoning/thought_stats.py` computes the figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pytest_tom.core.record import Record
from pytest_tom.metrics.declare import Metric

Select = Callable[[Record], bool]


@dataclass(frozen=True)
class Condition:
    """The items of one condition: `name` (a metric's name when it is one), `label` for the
    reports, `select` and the meta keys it `reads` (as a metric's selection)."""

    name: str
    label: str
    select: Select
    reads: tuple[str, ...] = ()


@dataclass(frozen=True)
class Contrast:
    """Levels against a reference condition (module docstring)."""

    name: str
    label: str
    reference: Condition | None
    levels: tuple[Condition, ...]
    paired: bool = False


def condition_of(metric: Metric, label: str | None = None) -> Condition:
    """The condition of a declared proportion metric: its items, its name, and its short
    label (a plot's), else its label."""
    return Condition(metric.name, label or metric.short or metric.label, metric.select,
                     tuple(metric.reads))
