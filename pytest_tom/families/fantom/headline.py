"""FANToM's headline metrics and plot, declared once (see `pytest_tom.metrics.declare`):
the columns of the paper's Table 9 on the inaccessible questions. The set-level scores
(ALL*, ALL, the two Alls) are shares of sets whose every question is right, a skipped
free-response question counting as not right; the yes/no weighted F1 and the fact token
F1 are resampled by set too."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import replace

from pytest_tom.families.fantom.expand import LIST_KINDS, TOM_KINDS, YN_KINDS
from pytest_tom.families.fantom.metrics import yn_label
from pytest_tom.metrics.accuracy import Record
from pytest_tom.metrics.declare import (
    GROUPED,
    AllRight,
    LabelPairs,
    Metric,
    Plot,
    ValueMean,
    mean_of,
    meta,
    outcome_value,
    ratio_of,
    weighted_f1_of,
)

PLOTS = (Plot("table9", "FANToM scores (the paper's Table 9 columns)",
              also=(("belief_dist_token_f1", "Belief TokenF1"),)),)


def fantom_set(r: Record) -> Hashable:
    return meta(r).get("set")


def inaccessible(kinds: tuple[str, ...]) -> Callable[[Record], bool]:
    return lambda r: meta(r).get("accessibility") == "inaccessible" and r["item"]["kind"] in kinds


def yn_pair(r: Record) -> tuple[Hashable, Hashable]:
    return str(r["item"]["gold"]), yn_label(r)


NO_DIST = tuple(k for k in TOM_KINDS if k != "belief_dist")
EVERY_SET = AllRight(include_skipped=True)
READS = ("accessibility",)


def _set_level(name: str, label: str, kinds: tuple[str, ...], short: str) -> Metric:
    return Metric(name, label, GROUPED, select=inaccessible(kinds), reads=READS,
                  summarize=EVERY_SET, finish=ratio_of(), unit=fantom_set, of_groups=True,
                  plot="table9", short=short)


def _question_family(fam: str, label: str, short: str) -> tuple[Metric, ...]:
    lst = next(k for k in LIST_KINDS if k.startswith(fam))
    yn = next(k for k in YN_KINDS if k.startswith(fam))
    return (
        _set_level(f"{fam}_all", f"{label} All", (lst, yn), f"{short} All"),
        Metric(f"{fam}_list", f"{label} List", select=inaccessible((lst,)), reads=READS,
               plot="table9", short=f"{short} List"),
        Metric(f"{fam}_yn_f1", f"{label} Y/N (weighted F1)", GROUPED, select=inaccessible((yn,)),
               reads=READS, summarize=LabelPairs(yn_pair), finish=weighted_f1_of,
               unit=fantom_set, plot="table9", short=f"{short} Y/N"),
    )


METRICS = (
    _set_level("all_star", "ALL*", TOM_KINDS, "ALL*"),
    _set_level("all", "ALL", NO_DIST, "ALL"),
    Metric("belief_choice", "Belief Choice", select=inaccessible(("belief_choice",)),
           reads=READS, plot="table9", short="Belief Choice"),
    Metric("belief_dist", "Belief Dist.", select=inaccessible(("belief_dist",)), reads=READS,
           plot="table9", short="Belief Dist."),
    *_question_family("answerability", "Answerability", "Answerab."),
    *_question_family("infoaccess", "Info access", "InfoAcc."),
    Metric("fact_token_f1", "Fact token F1", GROUPED, select=lambda r: r["item"]["kind"] == "fact",
           summarize=ValueMean(outcome_value), finish=mean_of, unit=fantom_set, plot="table9",
           short="Fact TokenF1"),
)


def grouped_by(grouping: str) -> tuple[Metric, ...]:
    """The metrics as `--tom-fantom-group` defines them: ALL* and ALL count groups of that
    field (set, part or conversation) instead of sets."""
    if grouping == "set":
        return METRICS

    def field(r: Record) -> Hashable:
        return meta(r).get(grouping)

    return tuple(replace(m, unit=field) if m.name in ("all_star", "all") else m for m in METRICS)
