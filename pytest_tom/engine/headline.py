"""The headline metrics of each family, each defined once from the item records, so that
one definition gives the 95% interval of a run and the paired test between two runs.

A `Spec` is either

* a **proportion** of judged items (`select` picks the items): Wilson interval, exact
  McNemar test between runs; or
* a **grouped** metric: each resampling unit (the suite's groups: scenarios, FANToM
  sets, robustness sceneries) is reduced to an additive summary by `summarize`, and
  `finish` turns a sum of summaries into the metric: seeded cluster bootstrap interval,
  paired bootstrap between runs.

The point estimate of every spec equals the metric the family reports under the same
name (tests/test_intervals.py checks that on the bundled suites), so an interval always
belongs to the number printed beside it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from pytest_tom.metrics.accuracy import Record, group_key, is_skipped
from pytest_tom.metrics.intervals import (
    RESAMPLES,
    Finish,
    Interval,
    Summaries,
    bootstrap,
    derive_seed,
    macro_f1_of,
    ratio_batch,
    ratio_of,
    weighted_f1_of,
    wilson,
)
from pytest_tom.metrics.numbers import pct, points, unit
from pytest_tom.metrics.pairing import duplicate_key
from pytest_tom.metrics.record_table import Key, RecordTable

PROPORTION = "proportion"
GROUPED = "grouped"


def everything(rec: Record) -> bool:
    return True


class Summary(Protocol):
    """How a grouped metric reduces the selected records of each unit to an additive
    summary: one row per unit, read from the table's arrays (see `Summaries`)."""

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries: ...


@dataclass(frozen=True)
class Spec:
    """One headline metric. `select` picks its records; it may read only the item's tags
    and kind, whether it was skipped, and the meta keys its catalog's family declares
    (`FAMILY_SPECS`): it is evaluated once per facet of the records (see
    `metrics.record_table`)."""

    name: str  # the metric's name in the suite's metrics (totals: "turn", "goal")
    label: str  # a row label for tables
    kind: str  # PROPORTION | GROUPED
    select: Callable[[Record], bool] = everything
    summarize: Summary | None = None  # GROUPED: the units' summaries
    finish: Finish | None = None  # GROUPED: metric of a summed summary
    unit: Key = group_key  # GROUPED: the resampling unit
    headline: bool = True  # shown in the short interval line of the terminal
    of_groups: bool = False  # GROUPED and a share of groups (summaries ok / n)

    def counts(self, records: list[Record] | RecordTable) -> tuple[int, int]:
        """PROPORTION: (right, judged) among the selected records."""
        return as_table(records).counts(self.select)

    def unit_summaries(self, table: RecordTable) -> tuple[list[Hashable], Summaries]:
        """GROUPED: the units that have selected records (sorted by `str`) and their
        summaries."""
        assert self.summarize is not None
        rows = np.flatnonzero(table.selected(self.select))
        unit_of, units = table.units(self.unit, rows)
        return units, self.summarize(table, rows, unit_of, len(units))

    def summaries(self, records: list[Record] | RecordTable) -> dict[Hashable, Counter]:
        """GROUPED: unit -> summary of its selected records (units without any are left out)."""
        units, summaries = self.unit_summaries(as_table(records))
        return dict(zip(units, summaries.rows(), strict=True))

    def interval(self, records: list[Record] | RecordTable, seed: int, scope: str,
                 resamples: int = RESAMPLES) -> Interval:
        table = as_table(records)
        if self.kind == PROPORTION:
            return wilson(*self.counts(table))
        assert self.finish is not None
        _, summaries = self.unit_summaries(table)
        if self.of_groups:
            sums = summaries.total()
            value = self.finish(sums)
            if value in (0.0, 1.0):
                # every group right (or none): a bootstrap has no spread; the groups are then
                # a plain binomial sample and the Wilson interval over them is the honest one
                w = wilson(sums["ok"], sums["n"])
                return Interval(value, w.low, w.high, "wilson over groups", sums["n"])
        return bootstrap(summaries, self.finish, derive_seed(seed, scope, self.name), resamples)


def as_table(records: list[Record] | RecordTable) -> RecordTable:
    """The records as a table; a plain list gets one facet per record (any selection)."""
    return records if isinstance(records, RecordTable) else RecordTable(records, None)


def _summaries(columns: dict[str, np.ndarray]) -> Summaries:
    keys = sorted(columns, key=repr)
    matrix = np.column_stack([columns[k].astype(np.float64) for k in keys])
    return Summaries(tuple(keys), matrix.reshape(-1, len(keys)))


# -- summaries ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AllRight:
    """A unit is right when every one of its judged selected records is right (with
    `include_skipped`, every selected record, a skipped or unjudged one counting as
    wrong): `ok` 1 or 0, `n` 1, or 0 for a unit with no such record."""

    include_skipped: bool = False

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        pool = slice(None) if self.include_skipped else table.judged[rows]
        counted = np.bincount(unit_of[pool], minlength=units) > 0
        wrong = np.bincount(unit_of[pool][~table.true[rows][pool]], minlength=units) > 0
        return _summaries({"ok": counted & ~wrong, "n": counted})


@dataclass(frozen=True)
class Joint:
    """Pairs of a `dependent` record and the `anchor` record of the same `key` within
    the unit (among judged records) with both right: `ok` such pairs of `n` pairs, as
    `metrics.pairing.joint_score` counts them in each unit (a dependent without anchor is
    no pair). The key need not name the unit: records of two units never pair."""

    key: Callable[[Record], Hashable]
    role: Callable[[Record], Hashable]
    anchor: str
    dependent: str

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        pool = table.judged[rows]
        rows, unit_of = rows[pool], unit_of[pool]
        roles, role_labels = table.codes(self.role, rows)
        keys, key_labels = table.codes(self.key, rows)
        pair_key = unit_of * max(1, len(key_labels)) + keys
        code = {label: i for i, label in enumerate(role_labels)}
        anchors = roles == code.get(self.anchor, -1)
        dependents = roles == code.get(self.dependent, -1)
        for which, mask in ((self.anchor, anchors), (self.dependent, dependents)):
            _unique_or_raise(table, which, rows[mask], pair_key[mask], keys[mask], key_labels)
        anchor_keys = pair_key[anchors]
        order = np.argsort(anchor_keys)
        anchor_keys = anchor_keys[order]
        anchor_right = table.right[rows[anchors]][order]
        dep_keys = pair_key[dependents]
        at = np.minimum(np.searchsorted(anchor_keys, dep_keys), max(0, len(anchor_keys) - 1))
        if len(anchor_keys):
            paired = anchor_keys[at] == dep_keys
            both = paired & table.right[rows[dependents]] & anchor_right[at]
        else:
            paired = both = np.zeros(len(dep_keys), dtype=bool)
        dep_units = unit_of[dependents]
        return _summaries({"ok": np.bincount(dep_units[both], minlength=units),
                           "n": np.bincount(dep_units[paired], minlength=units)})


def _unique_or_raise(table: RecordTable, which: str, rows: np.ndarray, pair_key: np.ndarray,
                     keys: np.ndarray, key_labels: list[Hashable]) -> None:
    """Two records of one role and pairing key are an error (as in `joint_score`)."""
    uniq, count = np.unique(pair_key, return_counts=True)
    if len(uniq) and count.max() > 1:
        dup = pair_key == uniq[int(np.argmax(count > 1))]
        second = rows[np.flatnonzero(dup)[1]]
        k = key_labels[int(keys[np.flatnonzero(dup)[0]])]
        raise duplicate_key(which, k, table.records[int(second)]["item"].get("id"))


@dataclass(frozen=True)
class LabelPairs:
    """Counts of (gold, predicted) label pairs of the selected records, keyed
    `("pair", gold, predicted)`: the additive summary behind any F1."""

    pair: Callable[[Record], tuple[Hashable, Hashable]]

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        codes, labels = table.codes(self.pair, rows)
        seen = np.unique(codes)
        cells = np.bincount(unit_of * len(labels) + codes, minlength=units * len(labels))
        cells = cells.reshape(units, len(labels))
        return _summaries({("pair", *labels[c]): cells[:, c] for c in seen.tolist()})


@dataclass(frozen=True)
class ValueMean:
    """The mean of a value over the selected records: `sum` and `n`."""

    value: Callable[[Record], float]

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        values = table.values(self.value, rows)
        return _summaries({"sum": np.bincount(unit_of, weights=values, minlength=units),
                           "n": np.bincount(unit_of, minlength=units)})


def outcome_value(rec: Record) -> float:
    return float(rec["outcome"].get("value") or 0.0)


def mean_of(c: Counter) -> float | None:
    return c["sum"] / c["n"] if c["n"] else None


mean_of.batch = ratio_batch("sum", "n")  # type: ignore[attr-defined]  # the array form


@dataclass
class Catalog:
    """The specs of one suite (family-specific ones after the common ones)."""

    specs: list[Spec] = field(default_factory=list)

    def get(self, name: str) -> Spec | None:
        return next((s for s in self.specs if s.name == name), None)


def meta(rec: Record) -> dict[str, Any]:
    return rec["item"].get("meta") or {}


def scenario_of(rec: Record) -> Hashable:
    return rec["item"]["scenario"]


def suite_of(rec: Record) -> Hashable:
    return rec["item"]["suite"]


def representatives(records: list[Record] | RecordTable) -> list[Record]:
    """One record of every facet of a table (every record of a plain list): enough to see
    every value of what selections read (tags, meta keys of the family)."""
    return records.representatives if isinstance(records, RecordTable) else records


def common_specs(records: list[Record] | RecordTable) -> list[Spec]:
    specs = [Spec("turn", "turn accuracy", PROPORTION),
             Spec("goal", "goal accuracy", GROUPED, summarize=AllRight(), finish=ratio_of(),
                  of_groups=True)]
    # the tags are part of every facet: its representatives carry every tag there is
    tags = sorted({t for r in representatives(records) for t in r["item"].get("tags", [])})
    for tag in tags:
        specs.append(Spec(f"tag.{tag}.turn", f"tag {tag}: turn accuracy", PROPORTION,
                          select=lambda r, t=tag: t in r["item"].get("tags", []), headline=False))
    return specs


def bigtom_specs(records: list[Record] | RecordTable) -> list[Spec]:
    from pytest_tom.families.bigtom.conditions import CONDITIONS

    belief_of = {c.id: c.belief for c in CONDITIONS}
    labels = {"true_belief": "TB", "false_belief": "FB", "true_control": "TC",
              "false_control": "FC"}
    specs = [Spec(b, f"{lab} accuracy", PROPORTION,
                  select=lambda r, b=b: belief_of.get(meta(r).get("condition", "")) == b)
             for b, lab in labels.items()]

    def template(r: Record) -> Hashable:  # what the two items of a pair share in a scenario
        m = meta(r)
        return m.get("inference"), bool(m.get("initial_belief"))

    def role(r: Record) -> Hashable:
        return meta(r).get("belief_condition")

    for name, label, anchor, dependent in (("tb_and_fb", "TB ∧ FB", "true_belief", "false_belief"),
                                           ("tc_and_fc", "TC ∧ FC", "true_control",
                                            "false_control")):
        specs.append(Spec(name, label, GROUPED, summarize=Joint(template, role, anchor, dependent),
                          finish=ratio_of(), unit=scenario_of, of_groups=True))
    for c in CONDITIONS:
        specs.append(Spec(c.id, c.id.replace(".", " · "), PROPORTION,
                          select=lambda r, cid=c.id: meta(r).get("condition") == cid,
                          headline=False))
    return specs


def fantom_set(r: Record) -> Hashable:
    return meta(r).get("set")


def fantom_specs(records: list[Record] | RecordTable) -> list[Spec]:
    from pytest_tom.families.fantom.expand import LIST_KINDS, TOM_KINDS, YN_KINDS
    from pytest_tom.families.fantom.metrics import yn_label

    def inacc(kinds: tuple[str, ...]) -> Callable[[Record], bool]:
        return lambda r: meta(r).get("accessibility") == "inaccessible" and r["item"]["kind"] in kinds

    def yn_pair(r: Record) -> tuple[Hashable, Hashable]:
        return str(r["item"]["gold"]), yn_label(r)

    no_dist = tuple(k for k in TOM_KINDS if k != "belief_dist")
    every_set = AllRight(include_skipped=True)
    specs = [
        Spec("all_star", "ALL*", GROUPED, select=inacc(TOM_KINDS), summarize=every_set,
             finish=ratio_of(), unit=fantom_set, of_groups=True),
        Spec("all", "ALL", GROUPED, select=inacc(no_dist), summarize=every_set,
             finish=ratio_of(), unit=fantom_set, of_groups=True),
        Spec("belief_choice", "Belief Choice", PROPORTION, select=inacc(("belief_choice",))),
        Spec("belief_dist", "Belief Dist.", PROPORTION, select=inacc(("belief_dist",))),
    ]
    for fam in ("answerability", "infoaccess"):
        lst = next(k for k in LIST_KINDS if k.startswith(fam))
        yn = next(k for k in YN_KINDS if k.startswith(fam))
        label = "Answerability" if fam == "answerability" else "Info access"
        specs += [
            Spec(f"{fam}_all", f"{label} All", GROUPED, select=inacc((lst, yn)),
                 summarize=every_set, finish=ratio_of(), unit=fantom_set, of_groups=True),
            Spec(f"{fam}_list", f"{label} List", PROPORTION, select=inacc((lst,))),
            Spec(f"{fam}_yn_f1", f"{label} Y/N (weighted F1)", GROUPED, select=inacc((yn,)),
                 summarize=LabelPairs(yn_pair), finish=weighted_f1_of, unit=fantom_set),
        ]
    specs.append(Spec("fact_token_f1", "Fact token F1", GROUPED,
                      select=lambda r: r["item"]["kind"] == "fact",
                      summarize=ValueMean(outcome_value), finish=mean_of, unit=fantom_set))
    return specs


def opentom_specs(records: list[Record] | RecordTable) -> list[Spec]:
    from pytest_tom.families.opentom.metrics import TABLE2_ROWS, keys_of, predicted

    def pair(r: Record) -> tuple[Hashable, Hashable]:
        return meta(r)["gold_label"], predicted(r)

    pairs = LabelPairs(pair)
    return [Spec(f"f1.{key}", f"{label} macro-F1", GROUPED,
                 select=lambda r, k=key: not is_skipped(r) and k in keys_of(meta(r)),
                 summarize=pairs, finish=macro_f1_of, unit=scenario_of)
            for key, label in TABLE2_ROWS]


def robustness_specs(records: list[Record] | RecordTable) -> list[Spec]:
    from pytest_tom.families.robustness.schema import CLASSES

    # the class is part of every facet: its representatives carry every class there is
    reps = representatives(records)
    present = [c for c in CLASSES if any(meta(r).get("class") == c for r in reps)]
    specs: list[Spec] = []
    for c in present:
        def sel(r: Record, c: str = c) -> bool:
            return meta(r).get("class") == c
        specs.append(Spec(f"class.{c}.turn", f"{CLASSES[c]}: turn", PROPORTION, select=sel,
                          headline=False))
        specs.append(Spec(f"class.{c}.goal", f"{CLASSES[c]}: goal", GROUPED, select=sel,
                          summarize=AllRight(), finish=ratio_of(), headline=False,
                          of_groups=True))
    return specs


@dataclass(frozen=True)
class FamilySpecs:
    """A family's own specs and the meta keys their selections read (besides the item's
    tags and kind and whether it was skipped, which every selection may read)."""

    build: Callable[[list[Record] | RecordTable], list[Spec]]
    reads: tuple[str, ...]


FAMILY_SPECS: dict[str, FamilySpecs] = {
    "bigtom": FamilySpecs(bigtom_specs, ("condition",)),
    "fantom": FamilySpecs(fantom_specs, ("accessibility",)),
    "opentom": FamilySpecs(opentom_specs, ("genre", "order", "role")),  # keys_of(meta)
    "robustness": FamilySpecs(robustness_specs, ("class",)),
}


def table_of(family: str, records: list[Record]) -> RecordTable:
    """The records of a suite of `family` as a table whose facets its specs can use."""
    extra = FAMILY_SPECS.get(family)
    return RecordTable(records, extra.reads if extra is not None else ())


def catalog(family: str, records: list[Record] | RecordTable) -> Catalog:
    table = records if isinstance(records, RecordTable) else table_of(family, records)
    specs = common_specs(table)
    extra = FAMILY_SPECS.get(family)
    if extra is not None:
        names = {s.name for s in specs}
        specs += [s for s in extra.build(table) if s.name not in names]
    return Catalog(specs)


def totals_catalog() -> Catalog:
    """Totals over suites: the unit of goal accuracy is (suite, group)."""
    return Catalog([Spec("turn", "turn accuracy", PROPORTION),
                    Spec("goal", "goal accuracy", GROUPED, summarize=AllRight(),
                         finish=ratio_of(), unit=(suite_of, group_key), of_groups=True)])


def suite_intervals(family: str, records: list[Record] | RecordTable, metrics: dict[str, Any],
                    seed: int, resamples: int = RESAMPLES) -> dict[str, dict[str, Any]]:
    """Interval of every spec whose metric the suite reports with a value."""
    out: dict[str, dict[str, Any]] = {}
    table = records if isinstance(records, RecordTable) else table_of(family, records)
    if not len(table):
        return out
    suite = table.records[0]["item"]["suite"]
    for spec in catalog(family, table).specs:
        if metrics.get(spec.name) is None:
            continue
        iv = spec.interval(table, seed, suite, resamples)
        if not same(iv.value, metrics[spec.name]):
            continue  # defined differently in this run (e.g. another FANToM grouping): no interval
        if iv.low is not None:
            out[spec.name] = {**iv.to_dict(), "label": spec.label, "headline": spec.headline}
    return out


def same(a: Any, b: Any) -> bool:
    return (isinstance(a, int | float) and isinstance(b, int | float)
            and abs(float(a) - float(b)) <= 1e-9)


def totals_intervals(records: list[Record] | RecordTable, seed: int,
                     resamples: int = RESAMPLES) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    table = records if isinstance(records, RecordTable) else RecordTable(records)
    for spec in totals_catalog().specs:
        iv = spec.interval(table, seed, "totals", resamples)
        if iv.low is not None:
            out[spec.name] = {**iv.to_dict(), "label": spec.label, "headline": True}
    return out


def add_intervals(results: dict[str, Any], records: list[Record], seed: int,
                  resamples: int = RESAMPLES) -> dict[str, Any]:
    """`results` (as `aggregate` returns) with `intervals` on every suite and
    `totals_intervals`. With `--tom-samples k` (k > 1) the numbers are means over samples
    and their spread over samples is reported instead (no interval).

    Each suite's records are read into one table (`metrics.record_table`) that all its
    specs share; the totals reuse those tables."""
    if results.get("samples"):  # means over samples: the spread over samples is shown instead
        return results
    by_suite: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_suite[r["item"]["suite"]].append(r)
    tables = []
    for name, recs in by_suite.items():
        suite = results["suites"].get(name)
        table = table_of(suite["family"] if suite else "", recs)
        table.constant(suite_of, name)
        tables.append(table)
        if suite is not None:
            suite["intervals"] = suite_intervals(suite["family"], table, suite["metrics"], seed,
                                                 resamples)
    for name, suite in results["suites"].items():
        if name not in by_suite:
            suite["intervals"] = {}
    results["totals_intervals"] = totals_intervals(RecordTable.concat(tables), seed, resamples)
    return results


def fmt_interval(iv: dict[str, Any] | None, percent: bool = True) -> str:
    """`[80.1, 86.2]` (percent points) or `[0.801, 0.862]`; empty when there is none."""
    if not iv or iv.get("low") is None:
        return ""
    if percent:
        return f"[{points(iv['low'])}, {points(iv['high'])}]"
    return f"[{unit(iv['low'])}, {unit(iv['high'])}]"


def interval_parts(intervals: dict[str, dict[str, Any]], skip: tuple[str, ...] = ("turn", "goal"),
                   percent: bool = True) -> list[str]:
    """`TB 68.0% [60.2, 74.9]`, one per headline metric beyond turn and goal; on 0–1
    (`F1 0.412 [0.301, 0.520]`) for a family whose paper uses that scale."""
    show = pct if percent else unit
    return [f"{iv['label']} {show(iv['value'])} {fmt_interval(iv, percent)}"
            for name, iv in intervals.items() if iv.get("headline") and name not in skip]


def interval_line(intervals: dict[str, dict[str, Any]], skip: tuple[str, ...] = ("turn", "goal"),
                  percent: bool = True) -> str:
    """`95% intervals: TB 68.0% [60.2, 74.9] · ALL* 10.0% [0.0, 23.3]` for the headline
    metrics beyond turn and goal (empty when there are none)."""
    parts = interval_parts(intervals, skip, percent)
    return ("95% intervals: " + " · ".join(parts)) if parts else ""
