"""ToMATO's table in the paper's layout: accuracy per mental state (rows) and order
(columns), with the margins, ToMATO-FB and the unreadable share. Every cell shows a
declared value (`headline`) with the counts behind it; the decoding and the reading of the
run are said under it."""

from __future__ import annotations

from pytest_tom.families.kit import Declared
from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import pct

from .prompts import AUTHORS_SAMPLING
from .schema import MENTAL_STATES
from .schema import ORDERS


def aggregate(records: list[Record], settings: Settings, declared: Declared) -> FamilyResult:
    cell = declared.cell
    rows = []
    for state in MENTAL_STATES:
        if declared.judged(f"state.{state}"):
            rows.append([state, *(cell(f"state.{state}.order{o}") for o in ORDERS),
                         cell(f"state.{state}")])
    rows.append(["all", *(cell(f"order{o}") for o in ORDERS), cell("accuracy")])
    if declared.judged("fb"):
        rows.append(["ToMATO-FB (false belief)", "", "", cell("fb")])
    unread = declared["unreadable"]
    if unread.value is not None:
        rows.append(["replies naming no option", "", "", pct(unread.value)])
    table = MetricTable(
        title="ToMATO accuracy per mental state and order (layout of the paper's table)",
        headers=["mental state", "first order", "second order", "all"], rows=rows,
        note="right/judged in brackets; a reply naming no option counts as wrong")
    opts = settings.options
    sampling = ("the authors' sampling: " + ", ".join(f"{k} {v}" for k, v in AUTHORS_SAMPLING.items())
                if opts.get("tomato_sampling", "greedy") == "authors"
                else "greedy (the run's own decoding; --tom-tomato-sampling authors samples as "
                     "the authors did)")
    info = {"tomato decoding": sampling,
            "tomato reading": ("the authors' (the first bracketed letter)"
                               if opts.get("tomato_reading") == "authors" else "correct")}
    return FamilyResult(tables=[table], info=info)
