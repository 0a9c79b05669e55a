"""SimpleToM's metrics and plots, declared once (see `pytest_tom.metrics.declare`), the
figures of the paper:

- `aware`, `action`, `judge`: accuracy per kind of question (mental state, behaviour,
  judgement): shares of judged items (Wilson interval, McNemar test in compare);
- `unreadable.<kind>`: the share of replies naming no option per kind (the authors'
  `na_frac`; lower is better): a mean over stories (cluster bootstrap by story);
- `action_given_aware`, `judge_given_aware`: behaviour and judgement accuracy among the
  stories whose awareness question was answered right (`joint`): a share of stories,
  the three answers of one story one unit (bootstrap by story);
- `all_three`: the share of stories with all three answers right."""

from __future__ import annotations

from collections.abc import Callable

from pytest_tom.families.kit import GROUPED
from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import AllRight
from pytest_tom.families.kit import Metric
from pytest_tom.families.kit import Plot
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import RecordView
from pytest_tom.families.kit import ValueMean
from pytest_tom.families.kit import mean_of
from pytest_tom.families.kit import ratio_of
from pytest_tom.families.kit import scenario_of

from .joint import GivenRight
from .schema import KIND_NAMES
from .schema import KINDS

PLOTS = (
    Plot("kinds", "SimpleToM accuracy per kind of question", ylabel="accuracy (%)",
         baselines=(("chance (2 options)", 0.5),)),
    Plot("unreadable", "SimpleToM replies naming no option", ylabel="% of replies"),
)


def of_kind(kind: str) -> Callable[[Record], bool]:
    return lambda r: RecordView(r).kind == kind


def judged_of_kind(kind: str) -> Callable[[Record], bool]:
    return lambda r: (v := RecordView(r)).kind == kind and v.correct is not None


def unreadable(rec: Record) -> float:
    return 1.0 if RecordView(rec).error == UNPARSEABLE else 0.0


def _metrics() -> tuple[Metric, ...]:
    out = [Metric(kind, f"{KIND_NAMES[kind]} accuracy", select=of_kind(kind), plot="kinds",
                  short=KIND_NAMES[kind]) for kind in KINDS]
    for dependent in ("action", "judge"):
        out.append(Metric(f"{dependent}_given_aware",
                          f"{KIND_NAMES[dependent]} accuracy when aware was right", GROUPED,
                          summarize=GivenRight("aware", dependent), finish=ratio_of(),
                          unit=scenario_of, of_groups=True, plot="kinds",
                          short=f"{KIND_NAMES[dependent]} | aware right"))
    out.append(Metric("all_three", "stories with all three answers right", GROUPED,
                      summarize=AllRight(), finish=ratio_of(), unit=scenario_of,
                      of_groups=True, headline=False))
    out += [Metric(f"unreadable.{kind}", f"{KIND_NAMES[kind]}: replies naming no option",
                   GROUPED, select=judged_of_kind(kind), summarize=ValueMean(unreadable),
                   finish=mean_of, unit=scenario_of, higher_is_better=False,
                   plot="unreadable", short=KIND_NAMES[kind], headline=False)
            for kind in KINDS]
    return tuple(out)


METRICS = _metrics()
