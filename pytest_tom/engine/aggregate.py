"""Aggregation on the controller: item records -> per-suite metrics and tables, and totals.

Runs identically with and without xdist because it only reads the records that
travel on the reports, never `session.items`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pytest_tom import families
from pytest_tom.engine.headline import add_intervals, declared_values
from pytest_tom.families.base import FamilyResult, Settings
from pytest_tom.metrics.accuracy import Record, accuracy_block, core_metrics, sum_blocks
from pytest_tom.metrics.sample_spread import aggregate_samples, sample_count


def aggregate(records: list[Record], settings: Settings) -> dict[str, Any]:
    """`{"suites": {name: {...}}, "totals": {...}}` for the records of one run; with
    `--tom-samples k` every number is the mean over samples and `spread` holds the standard
    deviations (see `pytest_tom.metrics.sample_spread`)."""
    several = sample_count(records) > 1
    results = aggregate_samples(records, lambda recs: _aggregate_once(recs, settings, several))
    return add_intervals(results, records, settings)


def _aggregate_once(records: list[Record], settings: Settings,
                    declared: bool = False) -> dict[str, Any]:
    """The scores of one set of records. The values of the metrics the families declare
    are set from their declarations with the intervals (`add_intervals`), or here with
    `declared` (a run of several samples, which has no intervals)."""
    grouped: dict[str, list[Record]] = defaultdict(list)
    for rec in records:
        grouped[rec["item"]["suite"]].append(rec)
    suites: dict[str, Any] = {}
    blocks: list[dict[str, Any]] = []  # each suite's share of the totals
    for name in sorted(grouped):
        arrived = grouped[name]
        # the family gets the suite's records by id (as one sort by (suite, id) would give:
        # its figures must not depend on the order in which items finished); the counts
        # of the core metrics do not depend on any order, so they read the records as they
        # arrived, which are also the closest together in memory
        recs = sorted(arrived, key=_item_id)
        family_name = recs[0]["item"]["family"]
        try:
            result = families.get(family_name).aggregate(recs, settings)
        except KeyError:
            result = FamilyResult()
        core = core_metrics(arrived)
        blocks.append(_totals_share(arrived, core))
        metrics = {**core, **result.metrics}
        if declared:
            declared_values(family_name, recs, metrics, settings)
        suites[name] = {
            "family": family_name,
            "path": recs[0]["item"]["source"].get("file", ""),
            "metrics": metrics,
            "tables": [t.to_dict() for t in result.tables],
            "info": result.info,
        }
    return {"suites": suites, "totals": sum_blocks(blocks)}


def _totals_share(records: list[Record], core: dict[str, Any]) -> dict[str, Any]:
    """A suite's block in the totals, whose groups are (suite, group): a suite's items
    without a group form one group there, while its core metrics group them by scenario.
    When every item has a group the two groupings are the same and the core block is it."""
    if all(r["item"].get("group") for r in records):
        return core
    return accuracy_block(records, key=_group)


def _item_id(rec: Record) -> str:
    return rec["item"]["id"]


def _group(rec: Record) -> Any:
    return rec["item"].get("group")
