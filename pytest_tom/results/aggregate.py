"""Aggregation on the controller: item records -> per-suite metrics and tables, and totals.

Runs identically with and without xdist because it only reads the records that
travel on the reports, never `session.items`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from pytest_tom import families
from pytest_tom.core.record_view import RecordView, by_suite, group_of, id_of
from pytest_tom.families.base import FamilyResult, Settings
from pytest_tom.metrics.accuracy import Record, accuracy_block, core_metrics, sum_blocks
from pytest_tom.metrics.declare import Value, evaluate
from pytest_tom.metrics.record_table import RecordTable, UndeclaredRead
from pytest_tom.metrics.sample_spread import combine_flat, combine_table, sample_count, sample_view
from pytest_tom.results.headline import add_intervals, reasoning_figures, table_of
from pytest_tom.results.reasoning.probe_results import probe_block
from pytest_tom.results.reasoning.sweep_results import sweep_block
from pytest_tom.results.results import Figure, Results, SuiteJSON, suite_block


def aggregate(records: list[Record], settings: Settings) -> Results:
    """Per suite its metrics, tables and intervals, and the totals, for the records of one
    run (`results.results.Results`); with `--tom-samples k` every number is the mean over
    samples and the spread holds the standard deviations (see
    `pytest_tom.metrics.sample_spread`)."""
    samples = sample_count(records)  # one scan of 100,000 records is worth saving
    tables: dict[str, RecordTable] | None = {} if samples < 2 else None
    results = add_intervals(scores(records, settings, tables, samples), records, settings, tables)
    sweep = sweep_block(results, records, settings.seed)  # --tom-sweep: values side by side
    if sweep is not None:
        results["sweep"] = sweep
    probes = probe_block(records)  # --tom-probe: each probe beside the base, paired
    if probes is not None:
        results["probes"] = probes
    return results


def scores(records: list[Record], settings: Settings,
           tables: dict[str, RecordTable] | None = None, samples: int | None = None) -> Results:
    """`aggregate` without the intervals (`tables`, when given, keeps each suite's record
    table for them; `samples`: the records' `sample_count`, when the caller has it)."""
    k = sample_count(records) if samples is None else samples
    if k < 2:
        return _aggregate_once(records, settings, tables)
    return combine_samples([_aggregate_once(sample_view(records, s), settings)
                            for s in range(k)])


def combine_samples(results: list[Results]) -> Results:
    """One result from the results of each sample: every figure the mean over the samples,
    its spread (the sample standard deviation) beside it; no interval."""
    k = len(results)
    first = results[0]
    suites: dict[str, SuiteJSON] = {}
    for name, suite in first.suites.items():
        per = [s for s in (r.suite(name) for r in results) if s is not None]
        metrics, spread = combine_flat([p.metrics for p in per])
        tables = []
        for ti in range(len(suite.table_data)):
            group = [p.table_data[ti] for p in per if ti < len(p.table_data)]
            tables.append(combine_table(group))
        suites[name] = suite.over_samples(metrics, tables, spread, k)
    totals, totals_spread = combine_flat([r.totals.as_dict() for r in results])
    return Results.over_samples(first, suites, totals, totals_spread, k)


def family_result(family: str, records: list[Record], settings: Settings) -> FamilyResult:
    """What `family` reports for the records of one suite: its `aggregate` given the values
    of its declared metrics, those values set in the metrics (see `set_declared`). For
    tests and scripts that want one suite's figures without a whole run's totals."""
    result, _ = _family_figures(family, records, sorted(records, key=_item_id), settings)
    return result


def _family_figures(family: str, arrived: list[Record], by_id: list[Record],
                    settings: Settings) -> tuple[FamilyResult, RecordTable]:
    """The family's result with the declared values set, and the suite's record table."""
    table = table_of(family, arrived, settings)
    try:
        fam = families.get(family)
    except KeyError:
        return FamilyResult(), table
    try:
        declared = evaluate(fam.declared_metrics(settings), table)
    except UndeclaredRead as exc:
        suite = RecordView(arrived[0]).suite if arrived else "?"
        raise UndeclaredRead(f"family {family} (suite {suite}): {exc}") from None
    result = fam.aggregate(by_id, settings, declared)
    result.metrics = set_declared(dict(result.metrics), declared)
    return result, table


def set_declared(metrics: dict[str, Figure], declared: dict[str, Value]) -> dict[str, Figure]:
    """`metrics` with the value of each declared metric: one the family reports as None
    stays None (unavailable in this run, e.g. FANToM's ALL* without free-response scores);
    one that selects nothing is left out."""
    for name, value in declared.items():
        if name in metrics and metrics[name] is None:
            continue
        if value.value is not None or name in metrics:
            metrics[name] = value.value
    return metrics


def _aggregate_once(records: list[Record], settings: Settings,
                    tables: dict[str, RecordTable] | None = None) -> Results:
    """The scores of one set of records: each suite's family figures (its declared metrics
    from their declarations, then the family's own figures and tables given those values)
    and the core metrics. `tables` (when given) keeps each suite's record table for the
    intervals."""
    grouped = by_suite(records)
    suites: dict[str, SuiteJSON] = {}
    blocks: list[Mapping[str, Figure]] = []  # each suite's share of the totals
    for name in sorted(grouped):
        arrived = grouped[name]
        # the family gets the suite's records by id (as one sort by (suite, id) would give:
        # its figures must not depend on the order in which items finished); the counts
        # of the core metrics do not depend on any order, so they read the records as they
        # arrived, which are also the closest together in memory
        recs = sorted(arrived, key=_item_id)
        first = RecordView(recs[0])
        family_name = first.family
        result, table = _family_figures(family_name, arrived, recs, settings)
        if tables is not None:
            tables[name] = table
        core = core_metrics(arrived)
        blocks.append(_totals_share(arrived, core))
        # how long the model reasoned (nothing when the records show no reasoning)
        thought = reasoning_figures(family_name, table, settings)
        metrics = {**core, **result.metrics, **thought.values}
        suites[name] = suite_block(family_name, first.source_file,
                                   metrics, [t.to_dict() for t in result.tables],
                                   dict(result.info),  # the family's str -> str, as JSON
                                   thought.block)
    return Results.build(suites, sum_blocks(blocks))


def _totals_share(records: list[Record], core: dict[str, Figure]) -> Mapping[str, Figure]:
    """A suite's block in the totals, whose groups are (suite, group): a suite's items
    without a group form one group there, while its core metrics group them by scenario.
    When every item has a group the two groupings are the same and the core block is it."""
    if all(map(group_of, records)):
        return core
    return cast(Mapping[str, Figure], accuracy_block(records, key=_group))  # a figure map too


_item_id = id_of


def _group(rec: Record) -> Any:
    return group_of(rec)
