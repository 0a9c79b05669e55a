"""The headline metrics of a suite, each defined once: the common ones (turn, goal, one
turn accuracy per tag; when the records show reasoning, the reasoning-length figures of
`results.reasoning.reasoning_length`) and those its family declares (`Family.declared_metrics`, see
`pytest_tom.metrics.declare`). From those declarations come the point value in the
report's metrics, the 95% interval of a run and (in `compare`) the paired test between
two runs. Nothing here knows a family by name.

Each suite's records are read once into a `RecordTable` faceted by the meta keys its
metrics declare they read; every metric of the suite shares it, and the totals reuse
those tables.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_tom import families
from pytest_tom.core.record_view import RecordView
from pytest_tom.core.settings import Settings
from pytest_tom.metrics.accuracy import Record, group_key
from pytest_tom.metrics.declare import AMOUNT, GROUPED, PROPORTION, AllRight, Metric, ratio_of
from pytest_tom.metrics.intervals import MIN_GROUPS, RESAMPLES, Interval, MetricInterval
from pytest_tom.metrics.record_table import RecordTable
from pytest_tom.results.reasoning import reasoning_length, thought_stats
from pytest_tom.results.results import Figure, ReasoningJSON, Results


@dataclass
class Catalog:
    """The metrics of one suite (its family's after the common ones)."""

    specs: list[Metric] = field(default_factory=list)

    def get(self, name: str) -> Metric | None:
        return next((s for s in self.specs if s.name == name), None)


def suite_of(rec: Record) -> Any:
    return RecordView(rec).suite


def representatives(records: list[Record] | RecordTable) -> list[Record]:
    """One record of every facet of a table (every record of a plain list): enough to see
    every tag there is."""
    return records.representatives if isinstance(records, RecordTable) else records


def common_specs(records: list[Record] | RecordTable) -> list[Metric]:
    specs = [Metric("turn", "turn accuracy", PROPORTION),
             Metric("goal", "goal accuracy", GROUPED, summarize=AllRight(), finish=ratio_of(),
                    of_groups=True)]
    # the tags are part of every facet: its representatives carry every tag there is
    tags = sorted({t for r in representatives(records) for t in RecordView(r).tags})
    for tag in tags:
        specs.append(Metric(f"tag.{tag}.turn", f"tag {tag}: turn accuracy", PROPORTION,
                            select=lambda r, t=tag: t in RecordView(r).tags,
                            headline=False))
    return specs


def family_metrics(family: str, settings: Settings | None = None) -> tuple[Metric, ...]:
    """The metrics `family` declares (none for a family not installed)."""
    try:
        fam = families.get(family)
    except KeyError:
        return ()
    return tuple(fam.declared_metrics(settings or Settings()))


def reads_of(metrics: Iterable[Metric]) -> frozenset[str]:
    """The meta keys the selections of `metrics` read: the facets of their table."""
    return frozenset(k for m in metrics for k in m.reads)


def table_of(family: str, records: list[Record], settings: Settings | None = None) -> RecordTable:
    """The records of a suite of `family` as a table whose facets its metrics can use."""
    return RecordTable(records, reads_of(family_metrics(family, settings)))


def catalog(family: str, records: list[Record] | RecordTable,
            settings: Settings | None = None) -> Catalog:
    """The metrics of a suite: the common ones, its family's, then (when its records show
    reasoning) the reasoning-length figures of both (`results.reasoning.reasoning_length`)."""
    declared = family_metrics(family, settings)
    table = (records if isinstance(records, RecordTable)
             else RecordTable(records, reads_of(declared)))
    specs = common_specs(table)
    names = {s.name for s in specs}
    specs += [m for m in declared if m.name not in names]
    names = {s.name for s in specs}
    return Catalog(specs + [m for m in reasoning_length.specs(table, specs)
                            if m.name not in names])


@dataclass
class ReasoningFigures:
    """A suite's reasoning-length figures: the values of its reasoning metrics (those that
    select anything) and its `reasoning` block (None: its records show no reasoning)."""

    values: dict[str, Figure] = field(default_factory=dict)
    block: ReasoningJSON | None = None


def reasoning_figures(family: str, table: RecordTable,
                      settings: Settings | None = None) -> ReasoningFigures:
    """The reasoning metrics of a suite evaluated over its table, and its block."""
    specs = [m for m in catalog(family, table, settings).specs
             if reasoning_length.is_reasoning(m.name)]
    if not specs:
        return ReasoningFigures()
    values = {}
    for spec in specs:
        value = spec.evaluate(table).value
        if value is not None:
            values[spec.name] = value
    block = reasoning_length.block(table, specs)
    if block is not None:  # cut-off items apart, and the family's contrasts
        block.update(thought_stats.extra_block(table, family, (settings or Settings()).seed))
    return ReasoningFigures(values, block)


def totals_catalog() -> Catalog:
    """Totals over suites: the unit of goal accuracy is (suite, group)."""
    return Catalog([Metric("turn", "turn accuracy", PROPORTION),
                    Metric("goal", "goal accuracy", GROUPED, summarize=AllRight(),
                           finish=ratio_of(), unit=(suite_of, group_key), of_groups=True)])


def one_group(iv: Interval) -> bool:
    """A bootstrap over fewer than 2 groups (a subset such as `--tom-limit` can leave one
    BigToM template): the value has no interval, and the reports say so (`null` bounds in
    the JSON, `(no interval: 1 group)` in the tables) rather than leave the line out."""
    return iv.method == "bootstrap" and iv.value is not None and iv.n < MIN_GROUPS


def suite_intervals(family: str, records: list[Record] | RecordTable,
                    metrics: Mapping[str, Figure],
                    seed: int, resamples: int = RESAMPLES,
                    settings: Settings | None = None) -> dict[str, MetricInterval]:
    """Interval of every metric of the suite that has a value in `metrics` (the declared
    ones are set there by `results.aggregate.set_declared`)."""
    out: dict[str, MetricInterval] = {}
    table = records if isinstance(records, RecordTable) else table_of(family, records, settings)
    if not len(table):
        return out
    suite = RecordView(table.records[0]).suite
    for spec in catalog(family, table, settings).specs:
        if metrics.get(spec.name) is None:
            continue  # not reported, or unavailable in this run
        iv = spec.interval(table, seed, suite, resamples)
        if iv.low is not None or one_group(iv):
            # an amount keeps its display: the reports show it as a number, not a share
            out[spec.name] = MetricInterval.of(iv, spec.label, spec.headline,
                                               AMOUNT if spec.display == AMOUNT else "")
    return out


def totals_intervals(records: list[Record] | RecordTable, seed: int,
                     resamples: int = RESAMPLES) -> dict[str, MetricInterval]:
    out: dict[str, MetricInterval] = {}
    table = records if isinstance(records, RecordTable) else RecordTable(records)
    for spec in totals_catalog().specs:
        iv = spec.interval(table, seed, "totals", resamples)
        if iv.low is not None or one_group(iv):
            out[spec.name] = MetricInterval.of(iv, spec.label, True)
    return out


def add_intervals(results: Results, records: list[Record], settings: Settings,
                  suite_tables: dict[str, RecordTable] | None = None,
                  resamples: int = RESAMPLES) -> Results:
    """`results` (as `aggregate` returns) with the intervals of every suite and of the
    totals; `suite_tables`: the suites' record tables when the caller has them already.
    With `--tom-samples k` (k > 1) the numbers are means over samples and their spread
    over samples is reported instead (no interval)."""
    if results.samples:  # means over samples: the spread over samples is shown instead
        return results
    by_suite: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_suite[suite_of(r)].append(r)
    tables = []
    for name, recs in by_suite.items():
        suite = results.suite(name)
        table = suite_tables.get(name) if suite_tables else None
        if table is None:
            table = table_of(suite.family if suite else "", recs, settings)
        table.constant(suite_of, name)
        tables.append(table)
        if suite is not None:  # its declared metrics were evaluated already (UndeclaredRead)
            suite.intervals = suite_intervals(suite.family, table, suite.metrics,
                                              settings.seed, resamples, settings)
    for name, suite in results.suites.items():
        if name not in by_suite:
            suite.intervals = {}
    results.totals_intervals = totals_intervals(RecordTable.concat(tables), settings.seed,
                                                resamples)
    return results
