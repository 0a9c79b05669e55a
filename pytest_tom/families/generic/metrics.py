"""The summary table of suites converted from ToMi: accuracy per question type x story type.

Items written by `pytest-tom convert tomi` carry `meta.tomi = {question_type,
story_type}`; the generic family's aggregate adds this table (and the flat
metrics `tomi.<question type>.<story type>`) when such items are present.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Value
from pytest_tom.families.kit import accuracies
from pytest_tom.families.kit import crosstab
from pytest_tom.families.kit import meta
from pytest_tom.families.kit import ordered
from pytest_tom.families.kit import table_rows

QUESTION_TYPES = (
    "memory", "reality",
    "first_order_0_no_tom", "first_order_0_tom", "first_order_1_no_tom", "first_order_1_tom",
    "second_order_0_no_tom", "second_order_0_tom", "second_order_1_no_tom", "second_order_1_tom",
)
STORY_TYPES = ("true_belief", "false_belief", "second_order_false_belief")


def _tomi(rec: Record, field: str) -> str | None:
    tomi: Any = meta(rec).get("tomi")  # per record of the table: no view object
    return str(tomi[field]) if isinstance(tomi, dict) and field in tomi else None


def aggregate(records: list[Record], settings: Settings,
              declared: Mapping[str, Value]) -> FamilyResult:
    """The ToMi table for the records that carry a `tomi` meta (an empty result otherwise;
    a generic suite declares no metrics of its own)."""
    cells = crosstab(records, lambda r: _tomi(r, "question_type"), lambda r: _tomi(r, "story_type"))
    if not cells:
        return FamilyResult()
    qtypes = ordered({k[0] for k in cells} - {"all"}, QUESTION_TYPES)
    stypes = ordered({k[1] for k in cells} - {"all"}, STORY_TYPES)
    metrics = {f"tomi.{q}.{s}.turn": acc for (q, s), acc in accuracies(cells).items()}
    table = MetricTable(
        "ToMi accuracy by question type x story type",
        ["question type", *stypes, "all"], table_rows(cells, qtypes, stypes),
        "cells: accuracy (right/judged); tom = the question needs the agent's (false) belief")
    return FamilyResult(metrics=metrics, tables=[table])
