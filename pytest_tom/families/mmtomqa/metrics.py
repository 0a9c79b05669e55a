"""MMToM-QA's table in the paper's layout, from the declared values (`mmtomqa.headline`).

The paper's results table has one row per model and modality and the columns belief
inference (true belief, false belief, belief tracking, all), goal inference (true
belief, false belief, updated belief, future actions, all) and all; here the run is the
text-only row, shown as a column so that the table fits a terminal.
"""

from __future__ import annotations

import functools
from typing import Any

from pytest_tom.families.kit import Declared
from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import Settings

from .headline import METRICS
from .question_types import BELIEF
from .question_types import GOAL
from .question_types import INFERENCE_LABEL
from .question_types import TYPES


def aggregate(records: list[Record], settings: Settings, declared: Declared) -> FamilyResult:
    """The table of the declared values; a declared metric with no item run is None."""
    metrics: dict[str, float | int | None] = {**declared.unrun(m.name for m in METRICS)}
    cell_text = functools.partial(declared.cell, na=None)
    rows: list[list[Any]] = []
    for inference in (BELIEF, GOAL):
        for i, t in enumerate(t for t in TYPES if t.inference == inference):
            rows.append([INFERENCE_LABEL[inference] if i == 0 else "", f"{t.code} {t.label}",
                         cell_text(t.name)])
        rows.append(["", "all", cell_text(f"{inference}_inference")])
    rows.append(["all", "", cell_text("all")])
    reading = settings.options.get("mmtomqa_reading") or "answer"
    note = ("answers read as the authors' script reads them: the reply's first character"
            if reading == "authors" else "")
    table = MetricTable(title="MMToM-QA · text only · accuracy per question type",
                        headers=["inference", "question type", "text"], rows=rows, note=note,
                        caption="accuracy in % (right/questions); the paper's columns as rows")
    return FamilyResult(metrics=metrics, tables=[table])
