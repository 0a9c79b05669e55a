"""A family table's JSON form (`TableJSON`): what `families.base.MetricTable.to_dict`
writes, `metrics.sample_spread.combine_table` averages over samples and a report keeps in
each suite's `tables` (`results.results.SuiteJSON`). Declared here, below the families and
the results, so that the writer and every reader name the one shape."""

from __future__ import annotations

from typing import TypedDict

from pytest_tom.core.json_value import JSONScalar


class TableJSON(TypedDict, total=False):
    """A family table (`MetricTable.to_dict`)."""

    title: str
    headers: list[str]
    rows: list[list[JSONScalar]]  # cells: numbers, words, None where a figure is missing
    note: str
    caption: str
