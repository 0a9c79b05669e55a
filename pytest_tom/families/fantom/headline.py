"""FANToM's metrics and plot, declared once (see `pytest_tom.metrics.declare`): every
figure of the paper's Table 9 that the declaration forms can express, for the
inaccessible questions (the FANToM scores, under their bare names: the headline) and for
the accessible ones (the control task, `accessible.<column>`), and belief accuracy by
ToM order (`<scenario>.<belief kind>.<order>`). The set-level scores (ALL*, ALL, the two
Alls) are shares of sets whose every question is right, a skipped free-response question
counting as not right; the yes/no weighted F1 and the token F1s are resampled by set too.

The tables of `fantom.metrics` read these values. Not declared here, and counted by
`fantom.metrics` itself: the control task's set-level figures (they count only the sets
whose every ToM question is accessible, a property of the whole set that no selection of
one record can see), the per-character figures (formed across a set's answers), and the
error types (they read the outcome's `extra`, which a selection may not read).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Hashable
from dataclasses import replace

from pytest_tom.families.fantom.expand import BELIEF_KINDS
from pytest_tom.families.fantom.expand import GROUPINGS
from pytest_tom.families.fantom.expand import LIST_KINDS
from pytest_tom.families.fantom.expand import TOM_KINDS
from pytest_tom.families.fantom.expand import YN_KINDS
from pytest_tom.families.fantom.parsing import IRRELEVANT
from pytest_tom.families.fantom.parsing import NO
from pytest_tom.families.fantom.parsing import YES
from pytest_tom.families.fantom.schema import ORDERS
from pytest_tom.families.kit import GROUPED
from pytest_tom.families.kit import AllRight
from pytest_tom.families.kit import Contrast
from pytest_tom.families.kit import LabelPairs
from pytest_tom.families.kit import Metric
from pytest_tom.families.kit import Plot
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import RecordView
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import ValueMean
from pytest_tom.families.kit import condition_of
from pytest_tom.families.kit import gold_of
from pytest_tom.families.kit import kind_of
from pytest_tom.families.kit import mean_of
from pytest_tom.families.kit import meta
from pytest_tom.families.kit import outcome_value
from pytest_tom.families.kit import parsed_of
from pytest_tom.families.kit import ratio_of
from pytest_tom.families.kit import weighted_f1_of

PLOTS = (Plot("table9", "FANToM scores (the paper's Table 9 columns)"),)

INACCESSIBLE, ACCESSIBLE = "inaccessible", "accessible"
# the metric name of a Table 9 column in a scenario: the FANToM scores under bare names
PREFIX = {INACCESSIBLE: "", ACCESSIBLE: "accessible."}
# ToM order -> the suffix of its metric name; "second_order" pools the two second orders
ORDER_NAMES = {
    "first-order": "first_order",
    "second-order:cyclic": "second_order_cyclic",
    "second-order:acyclic": "second_order_acyclic",
}
SECOND_ORDERS = tuple(o for o in ORDERS if o.startswith("second"))
READS = ("accessibility",)
ORDER_READS = ("accessibility", "tom_order")
SCENARIO_LABEL = {INACCESSIBLE: "", ACCESSIBLE: " (control)"}


def fantom_set(r: Record) -> Hashable:
    return meta(r).get("set")


def yn_label(r: Record) -> str:
    """A yes/no answer's label for the F1: yes, no, or irrelevant (anything else, a
    request error included)."""
    parsed = parsed_of(r)
    return parsed if parsed in (YES, NO) else IRRELEVANT


def yn_pair(r: Record) -> tuple[Hashable, Hashable]:
    return str(gold_of(r)), yn_label(r)


# the selections look at the kind first: most facets are of another kind, and the meta
# keys are read through the record table's guard


def in_scenario(scenario: str, kinds: tuple[str, ...]) -> Callable[[Record], bool]:
    return lambda r: kind_of(r) in kinds and meta(r).get("accessibility") == scenario


def dist_correct(scenario: str) -> Callable[[Record], bool]:
    """The Dist.-correct free responses of the scenario (their token F1 is averaged)."""
    return lambda r: (kind_of(r) == "belief_dist" and RecordView(r).correct is True
                      and meta(r).get("accessibility") == scenario)


def of_order(scenario: str, kind: str, orders: tuple[str, ...]) -> Callable[[Record], bool]:
    return lambda r: (kind_of(r) == kind and meta(r).get("tom_order") in orders
                      and meta(r).get("accessibility") == scenario)


NO_DIST = tuple(k for k in TOM_KINDS if k != "belief_dist")
EVERY_SET = AllRight(include_skipped=True)


def _set_level(name: str, label: str, kinds: tuple[str, ...], short: str) -> Metric:
    return Metric(name, label, GROUPED, select=in_scenario(INACCESSIBLE, kinds), reads=READS,
                  summarize=EVERY_SET, finish=ratio_of(), unit=fantom_set, of_groups=True,
                  plot="table9", short=short)


def _question_level(scenario: str) -> tuple[Metric, ...]:
    """The question-level Table 9 columns of a scenario (those of the inaccessible one
    in the table9 plot)."""
    pre, suffix = PREFIX[scenario], SCENARIO_LABEL[scenario]
    plot = "table9" if scenario == INACCESSIBLE else ""  # the control task has no plot
    headline = scenario == INACCESSIBLE

    def accuracy(name: str, label: str, kind: str, short: str) -> Metric:
        return Metric(f"{pre}{name}", f"{label}{suffix}", select=in_scenario(scenario, (kind,)),
                      reads=READS, plot=plot, short=short, headline=headline)

    def yn_f1(fam: str, label: str, short: str) -> Metric:
        kind = next(k for k in YN_KINDS if k.startswith(fam))
        return Metric(f"{pre}{fam}_yn_f1", f"{label} Y/N (weighted F1){suffix}", GROUPED,
                      select=in_scenario(scenario, (kind,)), reads=READS,
                      summarize=LabelPairs(yn_pair), finish=weighted_f1_of, unit=fantom_set,
                      plot=plot, short=f"{short} Y/N", headline=headline)

    def lst(fam: str, label: str, short: str) -> Metric:
        kind = next(k for k in LIST_KINDS if k.startswith(fam))
        return accuracy(f"{fam}_list", f"{label} List", kind, f"{short} List")

    # not in the terminal's headline line (it was not before it was declared)
    token_f1 = Metric(f"{pre}belief_dist_token_f1", f"Belief token F1{suffix}", GROUPED,
                      select=dist_correct(scenario), reads=READS,
                      summarize=ValueMean(outcome_value), finish=mean_of, unit=fantom_set,
                      plot=plot, short="Belief TokenF1", headline=False)
    return (
        accuracy("belief_choice", "Belief Choice", "belief_choice", "Belief Choice"),
        accuracy("belief_dist", "Belief Dist.", "belief_dist", "Belief Dist."),
        token_f1,
        lst("answerability", "Answerability", "Answerab."),
        yn_f1("answerability", "Answerability", "Answerab."),
        lst("infoaccess", "Info access", "InfoAcc."),
        yn_f1("infoaccess", "Info access", "InfoAcc."),
    )


def _by_order(scenario: str) -> tuple[Metric, ...]:
    """Belief accuracy by ToM order, each order and the second orders pooled."""
    out = []
    for kind in BELIEF_KINDS:
        cells = [(ORDER_NAMES[o], o, (o,)) for o in ORDERS]
        cells.insert(1, ("second_order", "second-order", SECOND_ORDERS))
        for suffix, label, orders in cells:
            out.append(Metric(f"{scenario}.{kind}.{suffix}", f"{kind} {label} ({scenario})",
                              select=of_order(scenario, kind, orders), reads=ORDER_READS,
                              headline=False))
    return tuple(out)


def _headline() -> tuple[Metric, ...]:
    """Table 9 on the inaccessible questions, in the table's column order."""
    alls = {fam: _set_level(f"{fam}_all", f"{label} All",
                            tuple(k for k in (*LIST_KINDS, *YN_KINDS) if k.startswith(fam)),
                            f"{short} All")
            for fam, label, short in (("answerability", "Answerability", "Answerab."),
                                      ("infoaccess", "Info access", "InfoAcc."))}
    choice, dist, token_f1, a_list, a_yn, i_list, i_yn = _question_level(INACCESSIBLE)
    return (
        _set_level("all_star", "ALL*", TOM_KINDS, "ALL*"),
        _set_level("all", "ALL", NO_DIST, "ALL"),
        choice, dist, token_f1,
        alls["answerability"], a_list, a_yn,
        alls["infoaccess"], i_list, i_yn,
        Metric("fact_token_f1", "Fact token F1", GROUPED,
               select=lambda r: kind_of(r) == "fact", summarize=ValueMean(outcome_value),
               finish=mean_of, unit=fantom_set, plot="table9", short="Fact TokenF1"),
    )


METRICS = (*_headline(), *_question_level(ACCESSIBLE), *_by_order(INACCESSIBLE),
           *_by_order(ACCESSIBLE))


def grouped_by(grouping: str) -> tuple[Metric, ...]:
    """The metrics as `--tom-fantom-group` defines them: ALL* and ALL count groups of that
    field (set, part or conversation) instead of sets."""
    if grouping == "set":
        return METRICS

    def field(r: Record) -> Hashable:
        return meta(r).get(grouping)

    return tuple(replace(m, unit=field) if m.name in ("all_star", "all") else m for m in METRICS)


def grouping_of(settings: Settings) -> str:
    """The field ALL* and ALL group by (`--tom-fantom-group`; set by default)."""
    grouping = str(settings.options.get("fantom_group") or "set")
    return grouping if grouping in GROUPINGS else "set"


def declared_metrics(settings: Settings) -> tuple[Metric, ...]:
    """The metrics of a run: ALL* and ALL grouped as its `--tom-fantom-group` says."""
    return grouped_by(grouping_of(settings))


def _declared(name: str) -> Metric:
    return next(m for m in METRICS if m.name == name)


# a reasoning model's thought length on belief questions about a character who missed the
# information against one who heard it; a conversation asks both (paired by set)
CONTRASTS = (
    Contrast("access", "inaccessible against accessible (belief choice)",
             condition_of(_declared("accessible.belief_choice"), "accessible"),
             (condition_of(_declared("belief_choice"), "inaccessible"),), paired=True),
)
