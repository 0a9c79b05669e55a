"""Accuracy in a two-way table: one row key and one column key per record (e.g. ToMi's
question type x story type). Judged records only; errors count as wrong."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from pytest_tom.core.record_view import RecordView
from pytest_tom.metrics.accuracy import Record, judged, ratio
from pytest_tom.metrics.numbers import pct_of

Key = Callable[[Record], str | None]


def crosstab(records: Sequence[Record], row: Key, col: Key) -> dict[tuple[str, str], tuple[int, int]]:
    """(row, column) -> (right, judged), with "all" margins; records whose keys are None are left out."""
    cells: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in judged(list(records)):
        rk, ck = row(r), col(r)
        if rk is None or ck is None:
            continue
        ok = int(bool(RecordView(r).correct))
        for key in ((rk, ck), (rk, "all"), ("all", ck), ("all", "all")):
            cells[key][0] += ok
            cells[key][1] += 1
    return {k: (v[0], v[1]) for k, v in cells.items()}


def ordered(keys: set[str], preferred: Sequence[str]) -> list[str]:
    """The preferred keys that occur, in that order, then the others sorted."""
    return [k for k in preferred if k in keys] + sorted(keys - set(preferred))


def table_rows(cells: dict[tuple[str, str], tuple[int, int]], rows: Sequence[str],
               cols: Sequence[str]) -> list[list[Any]]:
    """One row per row key: `acc% (right/n)` per column, `n/a` for empty cells."""
    out = []
    for rk in [*rows, "all"]:
        line: list[Any] = [rk]
        for ck in [*cols, "all"]:
            right, n = cells.get((rk, ck), (0, 0))
            line.append(pct_of(right, n))
        out.append(line)
    return out


def accuracies(cells: dict[tuple[str, str], tuple[int, int]]) -> dict[tuple[str, str], float | None]:
    return {k: ratio(*v) for k, v in cells.items()}
