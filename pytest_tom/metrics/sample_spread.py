"""Several samples per item (`--tom-samples k`): metrics as mean ± spread over the samples.

Each record of a k-sample run carries `samples`: one `{"outcome", "responses"}`
per sample. Sample s of the run is the set of records with every outcome
replaced by the one of sample s; each is aggregated exactly like a one-sample
run, then every number is averaged over the k runs and its spread (the sample
standard deviation, k - 1 in the denominator) kept beside it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from pytest_tom.metrics.numbers import pct

Record = dict[str, Any]


def sample_count(records: list[Record]) -> int:
    return max((len(r.get("samples") or ()) for r in records), default=0)


def sample_view(records: list[Record], s: int) -> list[Record]:
    """The records as if sample `s` had been the only one (records without samples, e.g.
    skipped items, stay as they are)."""
    out = []
    for r in records:
        samples = r.get("samples") or ()
        if s < len(samples):
            r = {**r, "outcome": samples[s]["outcome"], "responses": samples[s]["responses"]}
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


def combine_flat(blocks: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, float]]:
    """Mean of each key over the blocks, and the spread of the keys that vary."""
    keys = list(dict.fromkeys(k for b in blocks for k in b))
    means: dict[str, Any] = {}
    spread: dict[str, float] = {}
    for k in keys:
        m, sd = mean_sd([b.get(k) for b in blocks])
        means[k] = m
        if sd is not None:
            spread[k] = sd
    return means, spread


def combine_table(tables: list[dict[str, Any]]) -> dict[str, Any]:
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


def combine_samples(results: list[dict[str, Any]]) -> dict[str, Any]:
    """One result (as `aggregate` returns) from the results of each sample."""
    k = len(results)
    first = results[0]
    suites: dict[str, Any] = {}
    for name, suite in first["suites"].items():
        per = [r["suites"].get(name) for r in results]
        per = [p for p in per if p is not None]
        metrics, spread = combine_flat([p["metrics"] for p in per])
        tables = []
        for ti in range(len(suite["tables"])):
            group = [p["tables"][ti] for p in per if ti < len(p["tables"])]
            tables.append(combine_table(group))
        suites[name] = {**suite, "metrics": metrics, "tables": tables, "spread": spread,
                        "samples": k}
    totals, totals_spread = combine_flat([r["totals"] for r in results])
    return {**first, "suites": suites, "totals": totals, "totals_spread": totals_spread,
            "samples": k}


def aggregate_samples(records: list[Record], once: Callable[[list[Record]], dict[str, Any]],
                      count: int | None = None) -> dict[str, Any]:
    """`once(records)` for a one-sample run; mean ± spread over samples otherwise (`count`:
    the records' `sample_count`, when the caller has it)."""
    k = sample_count(records) if count is None else count
    if k < 2:
        return once(records)
    return combine_samples([once(sample_view(records, s)) for s in range(k)])


def spread_line(suite: dict[str, Any], names: tuple[str, ...] = ("turn", "goal")) -> str:
    """`mean over 5 samples: turn 72.0% ± 3.1% · goal 40.0% ± 5.0%` for the terminal."""
    m, sd = suite["metrics"], suite.get("spread", {})
    parts = []
    for name in names:
        if m.get(name) is None:
            continue
        parts.append(f"{name} {pct(m[name])} ± {pct(sd.get(name, 0.0))}")
    return (f"mean over {suite.get('samples')} samples (± standard deviation over samples): "
            + " · ".join(parts))
