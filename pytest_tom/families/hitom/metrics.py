"""Hi-ToM's tables in the paper's layout, from the declared values (`hitom.headline`).

* accuracy per ToM order for the four settings (No_Tell / Tell stories, VP / CoTP
  prompting), as the paper reports each model, with the average over orders;
* joint accuracy per ToM order for the same settings (an order counts only when every
  lower order of the story is right too);
* accuracy and joint accuracy per story length (1-3 chapters) and order;
* the paper's heat maps: joint accuracy per story length and order, one block per setting.

Every cell is a declared metric's value with the counts behind it; a row none of whose
items ran (e.g. CoTP rows under `--tom-hitom-prompting=vp`) is left out, and a declared
metric none of whose items ran is reported as None.
"""

from __future__ import annotations

from typing import Any

from pytest_tom.families.kit import Declared
from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import Settings

from .headline import ALL
from .headline import BY_LENGTH
from .headline import DECEPTION_LABEL
from .headline import HEATMAP
from .headline import METRICS
from .headline import SETTINGS
from .headline import Cell
from .prompts import STYLE_LABEL
from .schema import ORDERS

ORDER_HEADERS = [f"order {k}" for k in ORDERS]
ITEMS = "accuracy in % (right/questions)"
STORIES = "joint accuracy in %: stories whose questions up to this order are all right (stories)"


def aggregate(records: list[Record], settings: Settings, declared: Declared) -> FamilyResult:
    """The tables of the declared values; a declared metric with no item run is None."""
    metrics: dict[str, float | int | None] = {**declared.unrun(m.name for m in METRICS)}

    def acc(cell: Cell, k: int) -> str | None:
        return declared.cell(f"{cell.prefix}order{k}", na=None)

    def jnt(cell: Cell, k: int) -> str | None:
        return declared.cell(f"{cell.prefix}joint.order{k}", na=None)

    def whole(cell: Cell) -> str | None:
        return declared.cell(cell.prefix.rstrip(".") or "all", na=None)

    def setting(cell: Cell) -> list[str]:
        if cell == ALL:
            return ["all", ""]
        return [DECEPTION_LABEL[cell.deception or ""], STYLE_LABEL[cell.style or ""]]

    def length(cell: Cell) -> list[str]:
        return [str(cell.length) if cell.length else "all"]

    tables = [
        table("Hi-ToM · accuracy per ToM order (the paper's settings)",
              ["stories", "prompting", *ORDER_HEADERS, "all orders"],
              [[*setting(c), *(acc(c, k) for k in ORDERS), whole(c)] for c in (*SETTINGS, ALL)],
              ITEMS),
        table("Hi-ToM · joint accuracy per ToM order",
              ["stories", "prompting", *ORDER_HEADERS],
              [[*setting(c), *(jnt(c, k) for k in ORDERS)] for c in (*SETTINGS, ALL)],
              STORIES, note="order 4: every question of the story right"),
        table("Hi-ToM · accuracy per story length",
              ["chapters", *ORDER_HEADERS, "all orders"],
              [[*length(c), *(acc(c, k) for k in ORDERS), whole(c)] for c in (*BY_LENGTH, ALL)],
              ITEMS),
        table("Hi-ToM · joint accuracy per story length",
              ["chapters", *ORDER_HEADERS],
              [[*length(c), *(jnt(c, k) for k in ORDERS)] for c in (*BY_LENGTH, ALL)], STORIES),
        table("Hi-ToM · joint accuracy per setting and story length (the paper's heat maps)",
              ["stories", "prompting", "chapters", *ORDER_HEADERS],
              [[*setting(c), str(c.length), *(jnt(c, k) for k in ORDERS)] for c in HEATMAP],
              STORIES),
    ]
    return FamilyResult(metrics=metrics, tables=[t for t in tables if t.rows])


def table(title: str, headers: list[str], rows: list[list[Any]], caption: str,
          note: str = "") -> MetricTable:
    """A table of the rows with at least one value (a setting none of whose items ran is
    left out)."""
    n_labels = sum(1 for h in headers if not h.startswith(("order", "all orders")))
    kept = [r for r in rows if any(c is not None for c in r[n_labels:])]
    return MetricTable(title=title, headers=headers, rows=kept, note=note if kept else "",
                       caption=caption)
