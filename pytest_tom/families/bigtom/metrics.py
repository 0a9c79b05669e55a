"""BigToM aggregates: accuracy per condition, TB ∧ FB and TC ∧ FC, tables in the paper's layout.

Flat metric names (gates address them as `bigtom.<name>`):

* `<condition id>`: accuracy of one of the 25 conditions, e.g.
  `forward_belief.false_belief.with_init`, `percept_to_belief`;
* `<inference>.tb_and_fb.<with_init|no_init>` and `<inference>.tc_and_fc.<...>`:
  the joint scores (a false-belief item counts only if the true-belief item of
  the same template, inference and variant is right too);
* `true_belief`, `false_belief`, `true_control`, `false_control`, `tb_and_fb`,
  `tc_and_fc`: the same pooled over the three inferences and both variants;
* `initial_state_rate`: the share of answers naming one option that pick the
  initial-state option (a model blind to the event picks it always).

A value is None when no item of it was run (e.g. deselected with `-m`).
"""

from __future__ import annotations

from typing import Any

from pytest_tom.families.base import FamilyResult, MetricTable, Settings
from pytest_tom.families.bigtom.conditions import (
    BELIEF_CONDITIONS,
    CONDITIONS,
    FALSE_BELIEF,
    FALSE_CONTROL,
    INFERENCES,
    PERCEPT_TO_BELIEF,
    TRUE_BELIEF,
    TRUE_CONTROL,
    VARIANT_ID,
)
from pytest_tom.families.bigtom.prompts import METHODS
from pytest_tom.metrics.accuracy import Record, is_judged, ratio
from pytest_tom.metrics.numbers import pct_of
from pytest_tom.metrics.pairing import JointScore, Pairs

JOINTS = (("tb_and_fb", TRUE_BELIEF, FALSE_BELIEF, "TB ∧ FB"),
          ("tc_and_fc", TRUE_CONTROL, FALSE_CONTROL, "TC ∧ FC"))
LABEL = {TRUE_BELIEF: "TB", FALSE_BELIEF: "FB", TRUE_CONTROL: "TC", FALSE_CONTROL: "FC"}
INFERENCE_LABEL = {"forward_belief": "forward belief", "forward_action": "forward action",
                   "backward_belief": "backward belief", PERCEPT_TO_BELIEF: "percept to belief"}


def _meta(rec: Record) -> dict[str, Any]:
    return rec["item"].get("meta") or {}


def _pair_key(rec: Record) -> tuple[str, str, bool]:
    m = _meta(rec)
    return rec["item"]["scenario"], m["inference"], bool(m["initial_belief"])


def _cell(right: int, n: int) -> str | None:
    return None if n == 0 else pct_of(right, n)


def aggregate_records(records: list[Record], settings: Settings) -> FamilyResult:
    # one pass over the judged records: (right, judged) per condition, the pairs of each
    # joint score per (inference, initial belief), and the answers that name one option
    # (for the initial-state rate)
    tally: dict[str, list[int]] = {cond.id: [0, 0] for cond in CONDITIONS}
    pairs = {(inference, initial, name): Pairs(anchor, dependent)
             for inference in INFERENCES for initial in VARIANT_ID
             for name, anchor, dependent, _ in JOINTS}
    roles = {anchor: name for name, anchor, _, _ in JOINTS}
    roles.update({dependent: name for name, _, dependent, _ in JOINTS})
    picked = picked_initial = 0
    for r in records:
        if not is_judged(r):
            continue
        m = _meta(r)
        outcome = r["outcome"]
        right = bool(outcome["correct"])
        cond_tally = tally.get(m.get("condition", ""))
        if cond_tally is not None:
            cond_tally[0] += right
            cond_tally[1] += 1
        role = m.get("belief_condition")
        joint = pairs.get((m.get("inference"), bool(m.get("initial_belief")), roles.get(role)))
        if joint is not None:
            joint.add(role, _pair_key(r), right, r["item"].get("id"))
        extra = outcome.get("extra") or {}
        if "initial_state" in extra:
            picked += 1
            picked_initial += bool(extra["initial_state"])

    metrics: dict[str, float | int | None] = {}
    counts: dict[str, tuple[int, int]] = {}
    for cond in CONDITIONS:
        counts[cond.id] = (tally[cond.id][0], tally[cond.id][1])
        metrics[cond.id] = ratio(*counts[cond.id])

    joints: dict[str, JointScore] = {}
    for inference in INFERENCES:
        for initial, variant in VARIANT_ID.items():
            for name, *_ in JOINTS:
                score = pairs[(inference, initial, name)].score()
                joints[f"{inference}.{name}.{variant}"] = score
                metrics[f"{inference}.{name}.{variant}"] = score.accuracy

    for belief in BELIEF_CONDITIONS:
        right = sum(counts[c.id][0] for c in CONDITIONS if c.belief == belief)
        n = sum(counts[c.id][1] for c in CONDITIONS if c.belief == belief)
        metrics[belief] = ratio(right, n)
    for name, *_ in JOINTS:
        pooled = sum((s for k, s in joints.items() if f".{name}." in k), JointScore())
        metrics[name] = pooled.accuracy

    metrics["initial_state_rate"] = ratio(picked_initial, picked)

    method = settings.method if settings.method in METHODS else "vanilla"  # as the items ran
    tables = [_table(f"BigToM · {method} · accuracy (rows as the paper's Table 2)",
                     (TRUE_BELIEF, FALSE_BELIEF), JOINTS[0], counts, joints, percept=False),
              _table(f"BigToM · {method} · control conditions",
                     (TRUE_CONTROL, FALSE_CONTROL), JOINTS[1], counts, joints, percept=True)]
    unpaired = sum(s.unpaired for s in joints.values())
    if unpaired:
        tables[0].note += (f"{unpaired} item(s) had no partner item in this run (deselected?) "
                           f"and are left out of the joint scores.")
    return FamilyResult(metrics=metrics, tables=tables)


def _table(title: str, beliefs: tuple[str, str], joint: tuple[str, str, str, str],
           counts: dict[str, tuple[int, int]], joints: dict[str, JointScore],
           percept: bool) -> MetricTable:
    headers = ["inference", "condition", "with initial belief", "without initial belief"]
    rows: list[list[Any]] = []
    for inference in INFERENCES:
        for i, belief in enumerate(beliefs):
            row: list[Any] = [INFERENCE_LABEL[inference] if i == 0 else "", LABEL[belief]]
            for initial in (True, False):
                cid = f"{inference}.{belief}.{VARIANT_ID[initial]}"
                row.append(_cell(*counts[cid]))
            rows.append(row)
        row = ["", joint[3]]
        for initial in (True, False):
            s = joints[f"{inference}.{joint[0]}.{VARIANT_ID[initial]}"]
            row.append(_cell(s.both, s.pairs))
        rows.append(row)
    if percept:
        rows.append([INFERENCE_LABEL[PERCEPT_TO_BELIEF], "initial belief", "",
                     _cell(*counts[PERCEPT_TO_BELIEF])])
    caption = "accuracy in % (right/items); joint rows: % of pairs both right (both/pairs)"
    note = ("Backward belief TC and FC tell the same story (the random event, then the "
            "initial-state action), as the authors' generator does." if percept else "")
    return MetricTable(title=title, headers=headers, rows=rows, note=note, caption=caption)
