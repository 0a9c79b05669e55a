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
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pytest_tom.metrics.accuracy import Record, group_key, is_skipped, judged
from pytest_tom.metrics.intervals import (
    RESAMPLES,
    Finish,
    Interval,
    bootstrap,
    derive_seed,
    label_pairs,
    macro_f1_of,
    ratio_batch,
    ratio_of,
    weighted_f1_of,
    wilson,
)
from pytest_tom.metrics.numbers import pct, points, unit

PROPORTION = "proportion"
GROUPED = "grouped"


def everything(rec: Record) -> bool:
    return True


@dataclass(frozen=True)
class Spec:
    name: str  # the metric's name in the suite's metrics (totals: "turn", "goal")
    label: str  # a row label for tables
    kind: str  # PROPORTION | GROUPED
    select: Callable[[Record], bool] = everything
    summarize: Callable[[list[Record]], Counter] | None = None  # GROUPED: one unit's summary
    finish: Finish | None = None  # GROUPED: metric of a summed summary
    unit: Callable[[Record], Hashable] = group_key  # GROUPED: the resampling unit
    headline: bool = True  # shown in the short interval line of the terminal
    of_groups: bool = False  # GROUPED and a share of groups (summaries ok / n)

    def counts(self, records: Iterable[Record],
               judged_records: list[Record] | None = None) -> tuple[int, int]:
        """PROPORTION: (right, judged) among the selected records (`judged_records`: the
        judged ones of `records` when the caller has them, computed once per suite)."""
        pool = judged(records) if judged_records is None else judged_records
        j = [r for r in pool if self.select(r)]
        return sum(1 for r in j if r["outcome"]["correct"]), len(j)

    def summaries(self, records: Iterable[Record]) -> dict[Hashable, Counter]:
        """GROUPED: unit -> summary of its selected records (units without any are left out)."""
        assert self.summarize is not None
        units: dict[Hashable, list[Record]] = defaultdict(list)
        for r in records:
            if self.select(r):
                units[self.unit(r)].append(r)
        return {u: self.summarize(recs) for u, recs in sorted(units.items(), key=lambda kv: str(kv[0]))}

    def interval(self, records: list[Record], seed: int, scope: str,
                 resamples: int = RESAMPLES,
                 judged_records: list[Record] | None = None) -> Interval:
        if self.kind == PROPORTION:
            return wilson(*self.counts(records, judged_records))
        assert self.finish is not None
        summaries = list(self.summaries(records).values())
        iv = bootstrap(summaries, self.finish, derive_seed(seed, scope, self.name), resamples)
        if self.of_groups and iv.value in (0.0, 1.0):
            # every group right (or none): the bootstrap has no spread; the groups are then
            # a plain binomial sample and the Wilson interval over them is the honest one
            ok = sum(s["ok"] for s in summaries)
            n = sum(s["n"] for s in summaries)
            w = wilson(ok, n)
            return Interval(iv.value, w.low, w.high, "wilson over groups", n)
        return iv


# -- summaries ---------------------------------------------------------------------------
def all_right(key: Callable[[Record], Hashable] = group_key,
              include_skipped: bool = False) -> Callable[[list[Record]], Counter]:
    """Groups (by `key`, within the unit) whose every judged record is right: ok / n."""
    def summarize(recs: list[Record]) -> Counter:
        groups: dict[Hashable, bool] = {}
        pool = recs if include_skipped else judged(recs)
        for r in pool:
            k = key(r)
            groups[k] = groups.get(k, True) and r["outcome"].get("correct") is True
        return Counter(ok=sum(groups.values()), n=len(groups))
    return summarize


def value_mean(recs: list[Record]) -> Counter:
    return Counter(sum=sum(float(r["outcome"].get("value") or 0.0) for r in recs), n=len(recs))


def mean_of(c: Counter) -> float | None:
    return c["sum"] / c["n"] if c["n"] else None


mean_of.batch = ratio_batch("sum", "n")  # type: ignore[attr-defined]  # the array form


@dataclass
class Catalog:
    """The specs of one suite (family-specific ones after the common ones)."""

    specs: list[Spec] = field(default_factory=list)

    def get(self, name: str) -> Spec | None:
        return next((s for s in self.specs if s.name == name), None)


def common_specs(records: list[Record]) -> list[Spec]:
    specs = [Spec("turn", "turn accuracy", PROPORTION),
             Spec("goal", "goal accuracy", GROUPED, summarize=all_right(), finish=ratio_of(),
                  of_groups=True)]
    tags = sorted({t for r in records for t in r["item"].get("tags", [])})
    for tag in tags:
        specs.append(Spec(f"tag.{tag}.turn", f"tag {tag}: turn accuracy", PROPORTION,
                          select=lambda r, t=tag: t in r["item"].get("tags", []), headline=False))
    return specs


def meta(rec: Record) -> dict[str, Any]:
    return rec["item"].get("meta") or {}


def bigtom_specs(records: list[Record]) -> list[Spec]:
    from pytest_tom.families.bigtom.conditions import CONDITIONS
    from pytest_tom.metrics.pairing import joint_score

    belief_of = {c.id: c.belief for c in CONDITIONS}
    labels = {"true_belief": "TB", "false_belief": "FB", "true_control": "TC",
              "false_control": "FC"}
    specs = [Spec(b, f"{lab} accuracy", PROPORTION,
                  select=lambda r, b=b: belief_of.get(meta(r).get("condition", "")) == b)
             for b, lab in labels.items()]

    def joint(anchor: str, dependent: str) -> Callable[[list[Record]], Counter]:
        def summarize(recs: list[Record]) -> Counter:
            s = joint_score(recs, key=lambda r: (r["item"]["scenario"], meta(r).get("inference"),
                                                 bool(meta(r).get("initial_belief"))),
                            role=lambda r: meta(r).get("belief_condition"),
                            anchor=anchor, dependent=dependent)
            return Counter(ok=s.both, n=s.pairs)
        return summarize

    specs.append(Spec("tb_and_fb", "TB ∧ FB", GROUPED,
                      summarize=joint("true_belief", "false_belief"),
                      finish=ratio_of(), unit=lambda r: r["item"]["scenario"], of_groups=True))
    specs.append(Spec("tc_and_fc", "TC ∧ FC", GROUPED,
                      summarize=joint("true_control", "false_control"), finish=ratio_of(),
                      unit=lambda r: r["item"]["scenario"], of_groups=True))
    for c in CONDITIONS:
        specs.append(Spec(c.id, c.id.replace(".", " · "), PROPORTION,
                          select=lambda r, cid=c.id: meta(r).get("condition") == cid,
                          headline=False))
    return specs


def fantom_specs(records: list[Record]) -> list[Spec]:
    from pytest_tom.families.fantom.expand import LIST_KINDS, TOM_KINDS, YN_KINDS
    from pytest_tom.families.fantom.metrics import yn_label

    def inacc(kinds: tuple[str, ...]) -> Callable[[Record], bool]:
        return lambda r: meta(r).get("accessibility") == "inaccessible" and r["item"]["kind"] in kinds

    def set_of(r: Record) -> Hashable:
        return meta(r).get("set")

    def yn_pairs(recs: list[Record]) -> Counter:
        return label_pairs([str(r["item"]["gold"]) for r in recs], [yn_label(r) for r in recs])

    no_dist = tuple(k for k in TOM_KINDS if k != "belief_dist")
    specs = [
        Spec("all_star", "ALL*", GROUPED, select=inacc(TOM_KINDS),
             summarize=all_right(set_of, include_skipped=True), finish=ratio_of(), unit=set_of,
             of_groups=True),
        Spec("all", "ALL", GROUPED, select=inacc(no_dist),
             summarize=all_right(set_of, include_skipped=True), finish=ratio_of(), unit=set_of,
             of_groups=True),
        Spec("belief_choice", "Belief Choice", PROPORTION, select=inacc(("belief_choice",))),
        Spec("belief_dist", "Belief Dist.", PROPORTION, select=inacc(("belief_dist",))),
    ]
    for fam in ("answerability", "infoaccess"):
        lst = next(k for k in LIST_KINDS if k.startswith(fam))
        yn = next(k for k in YN_KINDS if k.startswith(fam))
        label = "Answerability" if fam == "answerability" else "Info access"
        specs += [
            Spec(f"{fam}_all", f"{label} All", GROUPED, select=inacc((lst, yn)),
                 summarize=all_right(set_of, include_skipped=True), finish=ratio_of(),
                 unit=set_of, of_groups=True),
            Spec(f"{fam}_list", f"{label} List", PROPORTION, select=inacc((lst,))),
            Spec(f"{fam}_yn_f1", f"{label} Y/N (weighted F1)", GROUPED, select=inacc((yn,)),
                 summarize=yn_pairs, finish=weighted_f1_of, unit=set_of),
        ]
    specs.append(Spec("fact_token_f1", "Fact token F1", GROUPED,
                      select=lambda r: r["item"]["kind"] == "fact", summarize=value_mean,
                      finish=mean_of, unit=set_of))
    return specs


def opentom_specs(records: list[Record]) -> list[Spec]:
    from pytest_tom.families.opentom.metrics import TABLE2_ROWS, keys_of, predicted

    def pairs(recs: list[Record]) -> Counter:
        return label_pairs([meta(r)["gold_label"] for r in recs], [predicted(r) for r in recs])

    return [Spec(f"f1.{key}", f"{label} macro-F1", GROUPED,
                 select=lambda r, k=key: not is_skipped(r) and k in keys_of(meta(r)),
                 summarize=pairs, finish=macro_f1_of, unit=lambda r: r["item"]["scenario"])
            for key, label in TABLE2_ROWS]


def robustness_specs(records: list[Record]) -> list[Spec]:
    from pytest_tom.families.robustness.schema import CLASSES

    present = [c for c in CLASSES if any(meta(r).get("class") == c for r in records)]
    specs: list[Spec] = []
    for c in present:
        def sel(r: Record, c: str = c) -> bool:
            return meta(r).get("class") == c
        specs.append(Spec(f"class.{c}.turn", f"{CLASSES[c]}: turn", PROPORTION, select=sel,
                          headline=False))
        specs.append(Spec(f"class.{c}.goal", f"{CLASSES[c]}: goal", GROUPED, select=sel,
                          summarize=all_right(), finish=ratio_of(), headline=False,
                          of_groups=True))
    return specs


FAMILY_SPECS: dict[str, Callable[[list[Record]], list[Spec]]] = {
    "bigtom": bigtom_specs,
    "fantom": fantom_specs,
    "opentom": opentom_specs,
    "robustness": robustness_specs,
}


def catalog(family: str, records: list[Record]) -> Catalog:
    specs = common_specs(records)
    extra = FAMILY_SPECS.get(family)
    if extra is not None:
        names = {s.name for s in specs}
        specs += [s for s in extra(records) if s.name not in names]
    return Catalog(specs)


def totals_catalog() -> Catalog:
    """Totals over suites: the unit of goal accuracy is (suite, group)."""
    return Catalog([Spec("turn", "turn accuracy", PROPORTION),
                    Spec("goal", "goal accuracy", GROUPED,
                         summarize=all_right(lambda r: (r["item"]["suite"], group_key(r))),
                         finish=ratio_of(), unit=lambda r: (r["item"]["suite"], group_key(r)),
                         of_groups=True)])


def suite_intervals(family: str, records: list[Record], metrics: dict[str, Any], seed: int,
                    resamples: int = RESAMPLES) -> dict[str, dict[str, Any]]:
    """Interval of every spec whose metric the suite reports with a value."""
    out: dict[str, dict[str, Any]] = {}
    if not records:
        return out
    suite = records[0]["item"]["suite"]
    pool = judged(records)  # once, not once per proportion spec
    for spec in catalog(family, records).specs:
        if metrics.get(spec.name) is None:
            continue
        iv = spec.interval(records, seed, suite, resamples, pool)
        if not same(iv.value, metrics[spec.name]):
            continue  # defined differently in this run (e.g. another FANToM grouping): no interval
        if iv.low is not None:
            out[spec.name] = {**iv.to_dict(), "label": spec.label, "headline": spec.headline}
    return out


def same(a: Any, b: Any) -> bool:
    return (isinstance(a, int | float) and isinstance(b, int | float)
            and abs(float(a) - float(b)) <= 1e-9)


def totals_intervals(records: list[Record], seed: int,
                     resamples: int = RESAMPLES) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    pool = judged(records)
    for spec in totals_catalog().specs:
        iv = spec.interval(records, seed, "totals", resamples, pool)
        if iv.low is not None:
            out[spec.name] = {**iv.to_dict(), "label": spec.label, "headline": True}
    return out


def add_intervals(results: dict[str, Any], records: list[Record], seed: int,
                  resamples: int = RESAMPLES) -> dict[str, Any]:
    """`results` (as `aggregate` returns) with `intervals` on every suite and
    `totals_intervals`. With `--tom-samples k` (k > 1) the numbers are means over samples
    and their spread over samples is reported instead (no interval)."""
    if results.get("samples"):  # means over samples: the spread over samples is shown instead
        return results
    by_suite: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_suite[r["item"]["suite"]].append(r)
    for name, suite in results["suites"].items():
        suite["intervals"] = suite_intervals(suite["family"], by_suite.get(name, []),
                                             suite["metrics"], seed, resamples)
    results["totals_intervals"] = totals_intervals(records, seed, resamples)
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
