"""MMToM-QA's table in the paper's layout, from the declared values (`mmtomqa.headline`).

The paper's results table has one row per model and modality and the columns belief
inference (true belief, false belief, belief tracking, all), goal inference (true
belief, false belief, updated belief, future actions, all) and all; here the run is the
text-only row, shown as a column so that the table fits a terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_tom.families.kit import NO_VALUE
from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Value
from pytest_tom.families.kit import pct

from .headline import METRICS
from .question_types import BELIEF
from .question_types import GOAL
from .question_types import INFERENCE_LABEL
from .question_types import TYPES


def aggregate(records: list[Record], settings: Settings,
              declared: Mapping[str, Value]) -> FamilyResult:
    """The table of the declared values; a declared metric with no item run is None."""
    values = {m.name: declared.get(m.name, NO_VALUE) for m in METRICS}
    metrics: dict[str, float | int | None] = {n: None for n, v in values.items() if v.value is None}
    rows: list[list[Any]] = []
    for inference in (BELIEF, GOAL):
        for i, t in enumerate(t for t in TYPES if t.inference == inference):
            rows.append([INFERENCE_LABEL[inference] if i == 0 else "", f"{t.code} {t.label}",
                         cell_text(values[t.name])])
        rows.append(["", "all", cell_text(values[f"{inference}_inference"])])
    rows.append(["all", "", cell_text(values["all"])])
    reading = settings.options.get("mmtomqa_reading") or "answer"
    note = ("answers read as the authors' script reads them: the reply's first character"
            if reading == "authors" else "")
    table = MetricTable(title="MMToM-QA · text only · accuracy per question type",
                        headers=["inference", "question type", "text"], rows=rows, note=note,
                        caption="accuracy in % (right/questions); the paper's columns as rows")
    return FamilyResult(metrics=metrics, tables=[table])


def cell_text(value: Value) -> str | None:
    ok, n = value.count()
    return None if n == 0 or value.value is None else f"{pct(value.value)} ({ok}/{n})"
