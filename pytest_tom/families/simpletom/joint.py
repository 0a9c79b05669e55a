"""The paper's gap between knowing and using: behaviour (or judgement) accuracy among the
stories whose awareness question was answered right.

A story's three answers are one unit. `GivenRight(anchor, dependent)` gives a story `n` 1
when its `anchor` answer (aware) was judged right and its `dependent` answer (action or
judge) was judged, and `ok` 1 when that answer is right too; summed over stories,
`ok / n` is the conditional accuracy, resampled by story. A story whose anchor is wrong,
or whose dependent answer failed to arrive, is no part of the figure."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_tom.families.kit import RecordTable
from pytest_tom.families.kit import RecordView
from pytest_tom.families.kit import Summaries
from pytest_tom.families.kit import np


@dataclass(frozen=True)
class GivenRight:
    anchor: str
    dependent: str

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        anchor_right = np.zeros(units, dtype=bool)
        dependent_judged = np.zeros(units, dtype=bool)
        dependent_right = np.zeros(units, dtype=bool)
        for pos, row in enumerate(rows.tolist()):
            if not table.judged[row]:
                continue
            kind = RecordView(table.records[row]).meta["kind"]
            unit = unit_of[pos]
            if kind == self.anchor:
                anchor_right[unit] = bool(table.right[row])
            elif kind == self.dependent:
                dependent_judged[unit] = True
                dependent_right[unit] = bool(table.right[row])
        n = anchor_right & dependent_judged
        ok = n & dependent_right
        return Summaries(("n", "ok"), np.column_stack([n, ok]).astype(np.float64))
