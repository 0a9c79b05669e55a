"""ToMBench's tables in the paper's layout: accuracy per task (its 8 tasks and their
average, then the 12 ability sets), per ability grouped by dimension (with the average over
abilities), and with the authors' reading the per-ability table keyed as get_results.py
keys it. Every cell shows a declared value (`tombench.headline`) with the counts behind it.

The authors' script leaves out of its table a task (and an ability string) with no right
answer; under `--tom-tombench-reading authors` those figures are reported as None (n/a)
the same way. No figure here counts records of its own."""

from __future__ import annotations

from typing import Any

from pytest_tom.families.kit import Declared
from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import RecordView
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Value
from pytest_tom.families.kit import pct
from pytest_tom.families.kit import pct_of

from .catalogue import DIMENSIONS
from .catalogue import PAPER_TASKS
from .catalogue import RELEASED_ABILITY_FIELDS
from .catalogue import TASKS
from .catalogue import ability_slug
from .catalogue import released_name
from .catalogue import slug
from .expand import tries_of

DROPPED = "n/a (no right answer: dropped, as get_results.py)"


def cell(value: Value, dropped: bool = False) -> str:
    if dropped:
        return DROPPED
    right, n = value.count()
    return pct_of(right, n) if n else "n/a"


def aggregate(records: list[Record], settings: Settings, declared: Declared) -> FamilyResult:
    """The tables of one ToMBench suite (and None for the figures the authors' script drops)."""
    opts = settings.options
    as_authors = opts.get("tombench_reading") == "authors"
    official = opts.get("tombench_protocol", "default") == "official"

    get = declared.__getitem__  # a value by name, NO_VALUE where none was declared

    def dropped(name: str) -> bool:
        v = get(name)
        return as_authors and v.value == 0.0 and v.count()[1] > 0

    metrics: dict[str, float | int | None] = {}
    names = [f"task.{t.slug}" for t in TASKS]
    if as_authors:
        names += [f"ability_as_released.{released_name(f)}" for f in RELEASED_ABILITY_FIELDS]
    for name in names:
        if dropped(name):
            metrics[name] = None
    unit = "questions" if official else "items"
    tables = [task_table(get, dropped, unit), ability_table(get, unit)]
    if as_authors:
        tables.append(released_table(get, dropped, unit, records))
    tries = tries_of(settings)
    info = {"tombench protocol": (
        f"official: each question asked {tries} times, options in a seeded order, "
        f"majority vote (seed {settings.seed})" if official
        else "default: one pass, options in file order"),
        "tombench reading": ("the authors' (get_results.py)" if as_authors else "correct")}
    return FamilyResult(metrics=metrics, tables=tables, info=info)


def task_table(get: Any, dropped: Any, unit: str) -> MetricTable:
    rows: list[list[Any]] = []
    for paper in (True, False):
        shown = 0
        for task in (t for t in TASKS if t.paper == paper):
            name = f"task.{task.slug}"
            v = get(name)
            if v.count()[1]:
                shown += 1
                label = f"{task.short} {task.name}" if paper else task.name
                rows.append([label, v.count()[1], cell(v, dropped(name))])
        if paper and shown:
            rows.append([f"average over the paper's tasks ({shown} of {len(PAPER_TASKS)})",
                         "", pct(get("task_average").value)])
    return MetricTable(
        title="ToMBench accuracy per task (layout of the paper's task table)",
        headers=["task", unit, "accuracy"], rows=rows,
        note=("the paper's 8 tasks (UOT ... FRT) and their unweighted mean, then the 12 "
              "ability sets of the release; right/asked in brackets"))


def ability_table(get: Any, unit: str) -> MetricTable:
    rows: list[list[Any]] = []
    for dimension, abilities in DIMENSIONS.items():
        v = get(f"dimension.{slug(dimension)}")
        if not v.count()[1]:
            continue
        rows.append([dimension, "(all)", v.count()[1], cell(v)])
        for ability in abilities:
            a = get(f"ability.{ability_slug(f'{dimension}: {ability}')}")
            if a.count()[1]:
                rows.append(["", ability, a.count()[1], cell(a)])
    if rows:
        rows.append(["average over abilities", "", "", pct(get("ability_average").value)])
    return MetricTable(
        title="ToMBench accuracy per ability (the paper's ability dimensions)",
        headers=["dimension", "ability", unit, "accuracy"], rows=rows,
        note=("a question whose ABILITY field names two abilities counts in both; the average "
              "is the unweighted mean over the abilities asked"))


def released_table(get: Any, dropped: Any, unit: str, records: list[Record]) -> MetricTable:
    rows = []
    for field in RELEASED_ABILITY_FIELDS:
        name = f"ability_as_released.{released_name(field)}"
        v = get(name)
        if v.count()[1]:
            rows.append([repr(field), v.count()[1], cell(v, dropped(name))])
    others = sorted({RecordView(r).meta["ability_field"] for r in records}
                    - set(RELEASED_ABILITY_FIELDS))
    note = "keyed by the ABILITY string as the release writes it, as get_results.py keys them"
    if others:
        note += ("; not in this table (no such string in the release): "
                 + ", ".join(map(repr, others)))
    return MetricTable(title="ToMBench accuracy per ABILITY string (the authors' reading)",
                       headers=["ABILITY as written", unit, "accuracy"], rows=rows, note=note)
