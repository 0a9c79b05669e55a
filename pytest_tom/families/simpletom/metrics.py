"""SimpleToM's table in the paper's layout: per kind of question, the accuracy and the
share of unreadable replies, then the behaviour and judgement accuracy among the stories
whose awareness question was answered right. Every cell is a declared value
(`headline`) with the counts behind it."""

from __future__ import annotations

from pytest_tom.families.kit import Declared
from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import pct

from .schema import KIND_NAMES
from .schema import KINDS


def aggregate(records: list[Record], settings: Settings, declared: Declared) -> FamilyResult:
    rows = []
    for kind in KINDS:
        if declared.judged(kind):
            u = declared[f"unreadable.{kind}"].value
            rows.append([KIND_NAMES[kind], declared.cell(kind), pct(u) if u is not None else ""])
    for dependent in ("action", "judge"):
        if declared.judged(f"{dependent}_given_aware"):
            rows.append([f"{KIND_NAMES[dependent]}, stories aware answered right",
                         declared.cell(f"{dependent}_given_aware"), ""])
    if declared.judged("all_three"):
        rows.append(["stories with all three right", declared.cell("all_three"), ""])
    table = MetricTable(
        title="SimpleToM accuracy per kind of question (the paper's figures)",
        headers=["questions", "accuracy", "unreadable"], rows=rows,
        note=("right/asked in brackets (stories for the last rows); an unreadable reply "
              "counts as wrong"))
    reading = ("the authors' cascade" if settings.options.get("simpletom_reading") == "authors"
               else "correct")
    return FamilyResult(tables=[table], info={"simpletom reading": reading})
