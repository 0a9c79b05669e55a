"""BigToM's tables in the paper's layout, and the one figure that is not a declared metric.

The metrics are declared in `headline.py` (gates address them as `bigtom.<name>`):

* `<condition id>`: accuracy of one of the 25 conditions, e.g.
  `forward_belief.false_belief.with_init`, `percept_to_belief`;
* `<inference>.tb_and_fb.<with_init|no_init>` and `<inference>.tc_and_fc.<...>`:
  the joint scores (a false-belief item counts only if the true-belief item of
  the same template, inference and variant is right too);
* `true_belief`, `false_belief`, `true_control`, `false_control`, `tb_and_fb`,
  `tc_and_fc`: the same pooled over the three inferences and both variants.

The engine computes them once from those declarations and hands their values to
`aggregate`, whose tables show them (value and counts), never a count of their own.
What stays here is what the declaration forms cannot express:

* `initial_state_rate`: the share of answers naming one option that pick the
  initial-state option (a model blind to the event picks it always). It is read from
  the outcome's `extra`, which a declared selection may not read, and its denominator
  (answers naming one option) is not the judged items of a proportion;
* the note on items left out of the joint scores for want of a partner, which follows
  from the declared counts (judged false-belief items minus pairs).

A value is None when no item of it was run (e.g. deselected with `-m`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_tom.families.bigtom.conditions import INFERENCES
from pytest_tom.families.bigtom.conditions import PERCEPT_TO_BELIEF
from pytest_tom.families.bigtom.conditions import VARIANT_ID
from pytest_tom.families.bigtom.headline import JOINTS
from pytest_tom.families.bigtom.headline import METRICS
from pytest_tom.families.bigtom.headline import SHORT
from pytest_tom.families.bigtom.headline import joint_name
from pytest_tom.families.bigtom.prompts import METHODS
from pytest_tom.families.kit import Declared
from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Value
from pytest_tom.families.kit import extra_verdicts
from pytest_tom.families.kit import judged_verdict
from pytest_tom.families.kit import pct
from pytest_tom.families.kit import ratio

INFERENCE_LABEL = {"forward_belief": "forward belief", "forward_action": "forward action",
                   "backward_belief": "backward belief", PERCEPT_TO_BELIEF: "percept to belief"}
DECLARED = tuple(m.name for m in METRICS)


def aggregate(records: list[Record], settings: Settings, declared: Declared) -> FamilyResult:
    """The tables of the declared values and `initial_state_rate`; a declared metric none
    of whose items ran is reported as None (as every BigToM metric always was)."""
    values = {name: declared[name] for name in DECLARED}
    metrics: dict[str, float | int | None] = {
        name: None for name, v in values.items() if v.value is None}
    metrics["initial_state_rate"] = initial_state_rate(records)
    method = settings.method if settings.method in METHODS else "vanilla"  # as the items ran
    main, controls = JOINTS
    tables = [_table(f"BigToM · {method} · accuracy (rows as the paper's Table 2)",
                     main, values, percept=False),
              _table(f"BigToM · {method} · control conditions", controls, values, percept=True)]
    unpaired = sum(_unpaired(values, inference, initial, dependent, name)
                   for inference in INFERENCES for initial in VARIANT_ID
                   for name, _, _, dependent in JOINTS)
    if unpaired:
        tables[0].note += (f"{unpaired} item(s) had no partner item in this run (deselected?) "
                           f"and are left out of the joint scores.")
    return FamilyResult(metrics=metrics, tables=tables)


def initial_state_rate(records: list[Record]) -> float | None:
    """The share of judged answers naming one option that name the initial-state one."""
    picked = picked_initial = 0
    for _, extra, error, correct in extra_verdicts(records):
        if extra and "initial_state" in extra and judged_verdict(error, correct):
            picked += 1
            picked_initial += bool(extra["initial_state"])
    return ratio(picked_initial, picked)


def _unpaired(values: Mapping[str, Value], inference: str, initial: bool, dependent: str,
              name: str) -> int:
    """Judged dependent items of one joint score without a judged partner: each judged
    dependent is in at most one pair (two sharing a key are an error)."""
    _, judged = values[f"{inference}.{dependent}.{VARIANT_ID[initial]}"].count()
    _, pairs = values[joint_name(inference, name, initial)].count()
    return judged - pairs


def _cell(value: Value) -> str | None:
    """`55.5% (111/200)`: the declared value with the counts behind it (None: no item)."""
    ok, n = value.count()
    return None if n == 0 else f"{pct(value.value)} ({ok}/{n})"


def _table(title: str, joint: tuple[str, str, str, str], values: Mapping[str, Value],
           percept: bool) -> MetricTable:
    name, label, anchor, dependent = joint
    headers = ["inference", "condition", "with initial belief", "without initial belief"]
    rows: list[list[Any]] = []
    for inference in INFERENCES:
        for i, belief in enumerate((anchor, dependent)):
            row: list[Any] = [INFERENCE_LABEL[inference] if i == 0 else "", SHORT[belief]]
            row += [_cell(values[f"{inference}.{belief}.{VARIANT_ID[initial]}"])
                    for initial in (True, False)]
            rows.append(row)
        rows.append(["", label, *(_cell(values[joint_name(inference, name, initial)])
                                  for initial in (True, False))])
    if percept:
        rows.append([INFERENCE_LABEL[PERCEPT_TO_BELIEF], "initial belief", "",
                     _cell(values[PERCEPT_TO_BELIEF])])
    caption = "accuracy in % (right/items); joint rows: % of pairs both right (both/pairs)"
    note = ("Backward belief TC and FC tell the same story (the random event, then the "
            "initial-state action), as the authors' generator does." if percept else "")
    return MetricTable(title=title, headers=headers, rows=rows, note=note, caption=caption)
