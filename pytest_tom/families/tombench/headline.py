"""ToMBench's metrics and plots, declared once (see `pytest_tom.metrics.declare`):

- `task.<task>`: accuracy per task file (the paper's 8 tasks and the 12 ability sets);
- `ability.<ability>`: accuracy per ability (a question whose ABILITY field names two
  abilities counts in both);
- `dimension.<dimension>`: accuracy per ability dimension (the part before the colon);
- `task_average`: the unweighted mean of the paper's 8 task accuracies, and
  `ability_average`: of the ability accuracies (the paper's two averages);
- with the authors' reading also `ability_as_released.<field>`: accuracy per ABILITY string
  as the release writes it, which is how get_results.py keys its table.

Under the default protocol (one pass) each accuracy is a share of items (Wilson interval,
McNemar test in compare); under the official protocol it is a share of questions, each
right by the majority vote of its tries (`votes`), resampled by question. The averages are
means over groups, resampled by question under both. The names are the same under every
protocol and reading; `declared_metrics` picks the definitions of the run's options."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tom.families.kit import GROUPED
from pytest_tom.families.kit import PROPORTION
from pytest_tom.families.kit import Contrast
from pytest_tom.families.kit import Metric
from pytest_tom.families.kit import Plot
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import condition_of
from pytest_tom.families.kit import meta
from pytest_tom.families.kit import ratio_of
from pytest_tom.families.kit import scenario_of

from .catalogue import ABILITIES
from .catalogue import DIMENSIONS
from .catalogue import PAPER_TASKS
from .catalogue import RELEASED_ABILITY_FIELDS
from .catalogue import TASKS
from .catalogue import ability_slug
from .catalogue import released_name
from .catalogue import slug
from .votes import GroupShares
from .votes import QuestionRight
from .votes import mean_of_shares

PLOTS = (
    Plot("tasks", "ToMBench accuracy per task", ylabel="accuracy (%)",
         baselines=(("chance (4 options)", 0.25),)),
    Plot("dimensions", "ToMBench accuracy per ability dimension", ylabel="accuracy (%)"),
    Plot("abilities", "ToMBench accuracy per ability", ylabel="accuracy (%)"),
)


def task_of(rec: Record) -> tuple[Any, ...]:
    return (meta(rec)["task"],)


def abilities_of(rec: Record) -> tuple[Any, ...]:
    return tuple(meta(rec)["abilities"])


def in_task(name: str) -> Callable[[Record], bool]:
    return lambda r: meta(r)["task"] == name


def with_ability(name: str) -> Callable[[Record], bool]:
    return lambda r: name in meta(r)["abilities"]


def in_dimension(name: str) -> Callable[[Record], bool]:
    return lambda r: name in meta(r)["dimensions"]


def as_released(field: str) -> Callable[[Record], bool]:
    return lambda r: meta(r)["ability_field"] == field


def in_paper_task(rec: Record) -> bool:
    return meta(rec)["task"] in PAPER_TASKS


def _share(official: bool, as_authors: bool, name: str, label: str,
           select: Callable[[Record], bool], reads: tuple[str, ...], plot: str = "",
           short: str = "") -> Metric:
    """An accuracy: of items (one pass) or of questions by majority vote (official)."""
    if official:
        return Metric(name, label, GROUPED, select=select, reads=reads,
                      summarize=QuestionRight(as_authors), finish=ratio_of(), unit=scenario_of,
                      of_groups=True, plot=plot, short=short, headline=False)
    return Metric(name, label, PROPORTION, select=select, reads=reads, plot=plot, short=short,
                  headline=False)


def metrics_for(official: bool, as_authors: bool) -> tuple[Metric, ...]:
    """Every declared metric of a run with these options."""
    out: list[Metric] = []
    for task in TASKS:
        out.append(_share(official, as_authors, f"task.{task.slug}", f"{task.name} accuracy",
                          in_task(task.name), ("task",), "tasks", task.short))
    for dimension in DIMENSIONS:
        out.append(_share(official, as_authors, f"dimension.{slug(dimension)}",
                          f"{dimension} accuracy", in_dimension(dimension), ("dimensions",),
                          "dimensions", dimension))
    for ability in ABILITIES:
        out.append(_share(official, as_authors, f"ability.{ability_slug(ability)}",
                          f"{ability} accuracy", with_ability(ability), ("abilities",),
                          "abilities", ability.partition(": ")[2]))
    out.append(Metric("task_average", "mean accuracy over the paper's 8 tasks", GROUPED,
                      select=in_paper_task, reads=("task",),
                      summarize=GroupShares(task_of, as_authors), finish=mean_of_shares,
                      unit=scenario_of, plot="tasks", short="average (8 tasks)"))
    out.append(Metric("ability_average", "mean accuracy over the abilities", GROUPED,
                      summarize=GroupShares(abilities_of, as_authors), finish=mean_of_shares,
                      unit=scenario_of, plot="abilities", short="average"))
    if as_authors:
        for field in RELEASED_ABILITY_FIELDS:
            out.append(_share(official, True, f"ability_as_released.{released_name(field)}",
                              f"{field!r} accuracy (the authors' key)", as_released(field),
                              ("ability_field",)))
    return tuple(out)


# (official protocol, authors' reading) -> the metrics of such a run, built once (a run's
# record table keeps results per metric object)
METRIC_SETS = {(official, as_authors): metrics_for(official, as_authors)
               for official in (False, True) for as_authors in (False, True)}
METRICS = METRIC_SETS[(False, False)]


def declared_metrics(settings: Settings) -> tuple[Metric, ...]:
    """The metrics of a run with `settings`: the same names, defined for its protocol and
    reading."""
    opts = settings.options
    return METRIC_SETS[(opts.get("tombench_protocol", "default") == "official",
                        opts.get("tombench_reading") == "authors")]


# a reasoning model's thought length on each ability's questions against the suite's
# other questions (results/reasoning/thought_stats.py); stories differ: not paired
CONTRASTS = (
    Contrast("ability", "by ability", None,
             tuple(condition_of(m) for m in METRICS if m.name.startswith("ability.")
                   and not m.name.startswith("ability_"))),
)
