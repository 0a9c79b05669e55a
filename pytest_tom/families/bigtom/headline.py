"""BigToM's metrics and plots, declared once (see `pytest_tom.metrics.declare`): accuracy
per belief condition (TB, FB, TC, FC), the joint scores TB ∧ FB and TC ∧ FC (pairs of the
same template, inference and variant, resampled by scenario), the accuracy of each of the
25 conditions, and the joint scores of each inference and variant
(`<inference>.tb_and_fb.<with_init|no_init>`). The tables in the paper's layout
(`bigtom.metrics`) show these values."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Hashable

from pytest_tom.families.bigtom.conditions import CONDITIONS
from pytest_tom.families.bigtom.conditions import FALSE_BELIEF
from pytest_tom.families.bigtom.conditions import FALSE_CONTROL
from pytest_tom.families.bigtom.conditions import INFERENCES
from pytest_tom.families.bigtom.conditions import TRUE_BELIEF
from pytest_tom.families.bigtom.conditions import TRUE_CONTROL
from pytest_tom.families.bigtom.conditions import VARIANT_ID
from pytest_tom.families.kit import GROUPED
from pytest_tom.families.kit import Contrast
from pytest_tom.families.kit import Joint
from pytest_tom.families.kit import Metric
from pytest_tom.families.kit import Plot
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import condition_of
from pytest_tom.families.kit import meta
from pytest_tom.families.kit import ratio_of
from pytest_tom.families.kit import scenario_of

BELIEF_OF = {c.id: c.belief for c in CONDITIONS}
SHORT = {TRUE_BELIEF: "TB", FALSE_BELIEF: "FB", TRUE_CONTROL: "TC", FALSE_CONTROL: "FC"}
VARIANT_LABEL = {"with_init": "with initial belief", "no_init": "without initial belief"}

PLOTS = (
    Plot("conditions", "BigToM accuracy per condition"),
    *(Plot(variant, f"BigToM TB / FB per inference, {label}")
      for variant, label in VARIANT_LABEL.items()),
)


def of_belief(belief: str) -> Callable[[Record], bool]:
    return lambda r: BELIEF_OF.get(meta(r).get("condition", "")) == belief


def of_condition(cid: str) -> Callable[[Record], bool]:
    return lambda r: meta(r).get("condition") == cid


def of_conditions(*cids: str) -> Callable[[Record], bool]:
    wanted = frozenset(cids)
    return lambda r: meta(r).get("condition") in wanted


def template(r: Record) -> Hashable:
    """What the two items of a pair share within a scenario."""
    m = meta(r)
    return m.get("inference"), bool(m.get("initial_belief"))


def role(r: Record) -> Hashable:
    return meta(r).get("belief_condition")


# (name, label, anchor, dependent) of the two joint scores
JOINTS = (("tb_and_fb", "TB ∧ FB", TRUE_BELIEF, FALSE_BELIEF),
          ("tc_and_fc", "TC ∧ FC", TRUE_CONTROL, FALSE_CONTROL))


def joint(name: str, label: str, anchor: str, dependent: str, *,
          conditions: tuple[str, ...] = (), plot: str = "", headline: bool = True) -> Metric:
    """A joint score: the dependent items right whose anchor item (same scenario,
    inference and variant) is right too, of the pairs, resampled by scenario; over the
    items of `conditions` (all of them when empty)."""
    select = {"select": of_conditions(*conditions), "reads": ("condition",)} if conditions else {}
    return Metric(name, label, GROUPED, summarize=Joint(template, role, anchor, dependent),
                  finish=ratio_of(), unit=scenario_of, of_groups=True, plot=plot,
                  short=label if plot else "", headline=headline, **select)


def joint_name(inference: str, name: str, initial: bool) -> str:
    """`forward_belief.tb_and_fb.with_init`: the joint score of one inference and variant."""
    return f"{inference}.{name}.{VARIANT_ID[initial]}"


METRICS = (
    *(Metric(b, f"{lab} accuracy", select=of_belief(b), reads=("condition",), plot="conditions",
             short=lab)
      for b, lab in SHORT.items()),
    *(joint(name, label, anchor, dependent, plot="conditions")
      for name, label, anchor, dependent in JOINTS),
    *(Metric(c.id, c.id.replace(".", " · "), select=of_condition(c.id), reads=("condition",),
             headline=False,
             plot=VARIANT_ID[c.initial_belief] if c.belief in (TRUE_BELIEF, FALSE_BELIEF) else "",
             short=f"{c.inference.replace('_', ' ')} {SHORT.get(c.belief or '', '')}".strip())
      for c in CONDITIONS),
    # the joint scores of each inference and variant: the pairs of the two conditions
    *(joint(joint_name(inference, name, initial), f"{inference} · {label} · {VARIANT_ID[initial]}",
            anchor, dependent,
            conditions=(f"{inference}.{anchor}.{VARIANT_ID[initial]}",
                        f"{inference}.{dependent}.{VARIANT_ID[initial]}"),
            headline=False)
      for inference in INFERENCES for initial in VARIANT_ID
      for name, label, anchor, dependent in JOINTS),
)


def _declared(name: str) -> Metric:
    return next(m for m in METRICS if m.name == name)


# a reasoning model's thought length, false-belief against true-belief stories: each
# template tells both, so the ratio is paired by scenario (results/reasoning/thought_stats.py)
CONTRASTS = (
    Contrast("belief", "false against true belief", condition_of(_declared(TRUE_BELIEF)),
             (condition_of(_declared(FALSE_BELIEF)),), paired=True),
)
