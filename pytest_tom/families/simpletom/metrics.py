"""SimpleToM's table in the paper's layout: per kind of question, the accuracy and the
share of unreadable replies, then the behaviour and judgement accuracy among the stories
whose awareness question was answered right. Every cell is a declared value
(`headline`) with the counts behind it."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_tom.families.kit import NO_VALUE
from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Value
from pytest_tom.families.kit import pct
from pytest_tom.families.kit import pct_of

from .schema import KIND_NAMES
from .schema import KINDS


def cell(value: Value) -> str:
    return pct_of(*value.count(), na="")


def aggregate(records: list[Record], settings: Settings,
              declared: Mapping[str, Value]) -> FamilyResult:
    def get(name: str) -> Value:
        return declared.get(name, NO_VALUE)

    rows = []
    for kind in KINDS:
        v = get(kind)
        if v.count()[1]:
            u = get(f"unreadable.{kind}").value
            rows.append([KIND_NAMES[kind], cell(v), pct(u) if u is not None else ""])
    for dependent in ("action", "judge"):
        v = get(f"{dependent}_given_aware")
        if v.count()[1]:
            rows.append([f"{KIND_NAMES[dependent]}, stories aware answered right", cell(v), ""])
    v = get("all_three")
    if v.count()[1]:
        rows.append(["stories with all three right", cell(v), ""])
    table = MetricTable(
        title="SimpleToM accuracy per kind of question (the paper's figures)",
        headers=["questions", "accuracy", "unreadable"], rows=rows,
        note=("right/asked in brackets (stories for the last rows); an unreadable reply "
              "counts as wrong"))
    reading = ("the authors' cascade" if settings.options.get("simpletom_reading") == "authors"
               else "correct")
    return FamilyResult(tables=[table], info={"simpletom reading": reading})
