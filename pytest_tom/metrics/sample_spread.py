"""Several samples per item (`--tom-samples k`): metrics as mean ± spread over the samples.

Each record of a k-sample run carries `samples`: one `{"outcome", "responses"}`
per sample. Sample s of the run is the set of records with every outcome
replaced by the one of sample s; each is aggregated exactly like a one-sample
run, then every number is averaged over the k runs and its spread (the sample
standard deviation, k - 1 in the denominator) kept beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView, most_samples
from pytest_tom.metrics.accuracy import Figure
from pytest_tom.metrics.table_json import TableJSON


def sample_count(records: list[Record]) -> int:
    return most_samples(records)


# what a record holds of its first sample (thoughts, finish) or sums over its samples
# (usage): a sample's view holds the sample's own, or none
PER_SAMPLE = ("thoughts", "finish", "usage", "cached_usage")


def sample_view(records: list[Record], s: int) -> list[Record]:
    """The records as if sample `s` had been the only one (records without samples, e.g.
    skipped items, stay as they are). A sample's thoughts, finish reasons and token
    counts are its own where the sample keeps them; else the view has none (so a reasoning
    length read from a view is the sample's: its thoughts' characters when only the
    record's summed token counts are known)."""
    out = []
    for r in records:
        samples = RecordView(r).samples
        if s < len(samples):
            sample = samples[s]
            one = RecordView(sample)
            view = {**r, "outcome": one.outcome, "responses": one.responses}
            for key in PER_SAMPLE:
                if key in sample:
                    view[key] = sample[key]
                elif key in view:
                    del view[key]
            r = view
        out.append(r)
    return out


DIGITS = 9  # means and spreads are rounded: 0.333333333, not 0.3333333333333333


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def mean_sd(values: list[Any]) -> tuple[Any, float | None]:
    """(mean, standard deviation) of numbers; (the value, None) when they are not all numbers
    (None if any is None); equal integers stay integers."""
    if not all(_is_number(v) for v in values):
        if any(v is None for v in values):
            return None, None
        return values[0], None
    if all(v == values[0] for v in values) and isinstance(values[0], int):
        return values[0], 0.0
    mean = sum(values) / len(values)
    if len(values) < 2:
        return round(mean, DIGITS), None
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return round(mean, DIGITS), round(math.sqrt(var), DIGITS)


def combine_flat(blocks: list[Mapping[str, Figure]]
                 ) -> tuple[dict[str, Figure], dict[str, float]]:
    """Mean of each key over the blocks (figure maps: a suite's metrics, the totals), and
    the spread of the keys that vary."""
    keys = list(dict.fromkeys(k for b in blocks for k in b))
    means: dict[str, Figure] = {}
    spread: dict[str, float] = {}
    for k in keys:
        m, sd = mean_sd([b.get(k) for b in blocks])
        means[k] = m
        if sd is not None:
            spread[k] = sd
    return means, spread


def combine_table(tables: list[TableJSON]) -> TableJSON:
    """Numeric cells averaged when every sample's table has the same shape; else sample 0's."""
    first = tables[0]
    same = all(t["headers"] == first["headers"] and len(t["rows"]) == len(first["rows"])
               and all(len(a) == len(b) for a, b in zip(t["rows"], first["rows"], strict=True))
               for t in tables)
    k = len(tables)
    if not same:
        return {**first, "note": " ".join(filter(None, [first.get("note"),
                                                          f"(sample 1 of {k})"]))}
    rows = []
    for i, row in enumerate(first["rows"]):
        cells = []
        for j, _ in enumerate(row):
            values = [t["rows"][i][j] for t in tables]
            mean, _sd = mean_sd(values)
            cells.append(mean if mean is not None or all(v is None for v in values) else values[0])
        rows.append(cells)
    note = " ".join(filter(None, [first.get("note"), f"(mean over {k} samples)"]))
    return {**first, "rows": rows, "note": note}
