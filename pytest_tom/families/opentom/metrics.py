"""OpenToM aggregate metrics: macro-F1 per genre and order (the paper's Table 2), the
paper's sampling protocol, the unfaithful rate of (coarse, fine) location pairs, the
mover-minus-observer F1 gap (Table 4) and the parse-failure rate per genre and order.

Records are the plain item records of one suite. Skipped items are left out;
an unparseable answer or a failed request is predicted as the class `unparsed`,
which takes part in every macro-F1 as a class of its own (see
`pytest_tom.metrics.macro_f1`), and is a wrong answer for the accuracy.

Metric names (flat, for gates as `opentom.<name>`), with `<key>` one of
`loc_coarse.first`, `loc_coarse.second`, `loc_fine.first`, `loc_fine.second`,
`mhop.first`, `mhop.second` (fullness and accessibility pooled, their six
labels kept apart), `mhop_fullness.first`, ..., `mhop_accessibility.second`,
`attitude`, and `loc_fine.narrator` (the narrator's fine-location questions on
their own; they are part of `loc_fine.first` too, as in the authors' evaluator):

- `f1.<key>`, `accuracy.<key>`, `items.<key>`, `parse_failure.<key>` (share of
  unparseable answers; failed requests are counted by the core metrics): over the whole pool;
- `f1_mean.<key>`, `f1_std.<key>`, `accuracy_mean.<key>`, `accuracy_std.<key>`: over the
  samples (protocol `samples` only);
- `f1_mover.<key>`, `f1_observer.<key>`, `role_gap.<key>` (mover minus observer), over the
  perspective subsets of `labels.perspective_subsets` (narrator questions in both,
  attitude in the observer's only);
- `unfaithful_rate.<order>`, `unfaithful.<order>`, `faithfulness_pairs.<order>`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pytest_tom.core.outcome import UNPARSEABLE
from pytest_tom.families.base import FamilyResult, MetricTable, Settings
from pytest_tom.metrics.accuracy import Record, is_skipped, ratio
from pytest_tom.metrics.macro_f1 import MacroF1, macro_f1
from pytest_tom.metrics.numbers import pct, signed_unit
from pytest_tom.metrics.resampling import disjoint_samples, mean_std

# (metric key, row label in the paper's notation)
TABLE2_ROWS = (
    ("loc_coarse.first", "Loc_c (F)"),
    ("loc_coarse.second", "Loc_c (S)"),
    ("loc_fine.first", "Loc_f (F)"),
    ("loc_fine.second", "Loc_f (S)"),
    ("mhop.first", "MHop (F)"),
    ("mhop.second", "MHop (S)"),
    ("mhop_fullness.first", "MHop fullness (F)"),
    ("mhop_fullness.second", "MHop fullness (S)"),
    ("mhop_accessibility.first", "MHop accessibility (F)"),
    ("mhop_accessibility.second", "MHop accessibility (S)"),
    ("attitude", "Att"),
    ("loc_fine.narrator", "Loc_f narrator (control)"),
)
KEYS = tuple(k for k, _ in TABLE2_ROWS)
ROLE_KEYS = tuple(k for k in KEYS if k != "loc_fine.narrator")
ROLE_NAMES = ("mover", "observer")


def keys_of(meta: dict[str, Any]) -> list[str]:
    """The F1 keys an item counts in."""
    genre, order = meta["genre"], meta.get("order")
    if genre == "attitude":
        return ["attitude"]
    keys = [f"{genre}.{order}"]
    if meta.get("role") == "narrator":
        keys.append(f"{genre}.narrator")
    if genre.startswith("mhop_"):
        keys.append(f"mhop.{order}")
    return keys


def predicted(rec: Record) -> str | None:
    """The label the answer gave; None for an unparseable answer or a failed request."""
    out = rec["outcome"]
    return out.get("parsed") if not out.get("error") else None


def scored(recs: list[Record]) -> MacroF1:
    return macro_f1([r["item"]["meta"]["gold_label"] for r in recs], [predicted(r) for r in recs])


def subsets_of(meta: dict[str, Any]) -> list[Any]:
    """The perspective subsets (mover, observer) an item counts in."""
    subsets = meta.get("subsets")
    if subsets is None:  # records written before subsets were recorded
        subsets = ["observer"] if meta["genre"] == "attitude" else (
            list(ROLE_NAMES) if meta.get("role") == "narrator" else [meta.get("role")])
    return subsets


def by_key(records: list[Record]) -> dict[str, list[Record]]:
    out: dict[str, list[Record]] = defaultdict(list)
    for rec in records:
        for key in keys_of(rec["item"]["meta"]):
            out[key].append(rec)
    return out


class Answers:
    """Gold and predicted labels of the items of one F1 key (or one perspective subset of
    it), and how many answers were unparseable."""

    __slots__ = ("gold", "predicted", "unparseable")

    def __init__(self) -> None:
        self.gold: list[str] = []
        self.predicted: list[str | None] = []
        self.unparseable = 0

    def scored(self) -> MacroF1:
        return macro_f1(self.gold, self.predicted)


LocationPairs = dict[tuple[str, str, str], dict[str, str | None]]


class Reading:
    """An OpenToM suite's records, read once (the records of a 100,000-record run lie
    far apart in memory: a pass over them costs more than the arithmetic done in it).

    Skipped items are left out. Holds the answers of each F1 key and of each (key,
    perspective subset) of the role keys, each perspective's (coarse, fine) location
    answers for the unfaithful rate, the narrative versions, and the records kept (for
    the samples protocol)."""

    def __init__(self, records: list[Record]) -> None:
        self.kept: list[Record] = []
        self.pools: dict[str, Answers] = defaultdict(Answers)
        self.roles: dict[tuple[str, str], Answers] = defaultdict(Answers)
        # (narrative, order, perspective) -> genre -> the answer's label
        self.location_pairs: LocationPairs = defaultdict(dict)
        self.versions: set[Any] = set()
        role_keys = set(ROLE_KEYS)
        for rec in records:
            if is_skipped(rec):
                continue
            self.kept.append(rec)
            item, out = rec["item"], rec["outcome"]
            meta = item["meta"]
            gold, error = meta["gold_label"], out.get("error")
            label = out.get("parsed") if not error else None  # as `predicted`
            counted_in = subsets_of(meta)
            subsets = [role for role in ROLE_NAMES if role in counted_in]
            for key in keys_of(meta):
                pool = self.pools[key]
                pool.gold.append(gold)
                pool.predicted.append(label)
                pool.unparseable += error == UNPARSEABLE
                if key in role_keys:
                    for role in subsets:
                        part = self.roles[(key, role)]
                        part.gold.append(gold)
                        part.predicted.append(label)
            genre, role = meta["genre"], meta.get("role")
            if genre in ("loc_coarse", "loc_fine") and role in ROLE_NAMES:
                self.location_pairs[(item["scenario"], meta["order"], role)][genre] = label
            self.versions.add(meta.get("narrative", "short"))


def unfaithfulness(pairs: LocationPairs) -> dict[str, dict[str, int]]:
    """Per order: (coarse, fine) pairs of one perspective, pairs where both parse, contradictions.

    Contradiction: the coarse answer says the entity is still in its initial
    location ("Yes") while the fine answer names the new place, or the coarse
    answer says "No" while the fine answer names the original place.
    """
    out = {order: {"pairs": 0, "parsed": 0, "unfaithful": 0} for order in ("first", "second")}
    for (_scenario, order, _role), answers in pairs.items():
        if set(answers) != {"loc_coarse", "loc_fine"}:
            continue
        counts = out[order]
        counts["pairs"] += 1
        coarse, fine = answers["loc_coarse"], answers["loc_fine"]
        if coarse is None or fine is None:
            continue
        counts["parsed"] += 1
        counts["unfaithful"] += (coarse == "Yes") != (fine == "original")
    return out


def aggregate(records: list[Record], settings: Settings) -> FamilyResult:
    reading = Reading(records)
    recs, pools, roles = reading.kept, reading.pools, reading.roles
    metrics: dict[str, float | int | None] = {}
    for key in KEYS:
        answers = pools.get(key, Answers())
        result = answers.scored()
        metrics[f"f1.{key}"] = result.value
        metrics[f"accuracy.{key}"] = result.accuracy
        metrics[f"items.{key}"] = result.items
        metrics[f"parse_failure.{key}"] = ratio(answers.unparseable, result.items)
    for key in ROLE_KEYS:
        mover = roles.get((key, "mover"), Answers()).scored().value
        observer = roles.get((key, "observer"), Answers()).scored().value
        metrics[f"f1_mover.{key}"] = mover
        metrics[f"f1_observer.{key}"] = observer
        metrics[f"role_gap.{key}"] = None if mover is None or observer is None else mover - observer
    faith = unfaithfulness(reading.location_pairs)
    for order, counts in faith.items():
        metrics[f"faithfulness_pairs.{order}"] = counts["parsed"]
        metrics[f"unfaithful.{order}"] = counts["unfaithful"]
        metrics[f"unfaithful_rate.{order}"] = ratio(counts["unfaithful"], counts["parsed"])

    opts = settings.options
    protocol = opts.get("opentom_protocol", "pool")
    info: dict[str, Any] = {}
    sample_note = ""
    if protocol == "samples":
        groups = by_key(recs)
        count, size = int(opts.get("opentom_samples", 5)), int(opts.get("opentom_sample_size", 50))
        suite = recs[0]["item"]["suite"] if recs else ""
        narratives = {r["item"]["scenario"] for r in recs}
        samples = disjoint_samples(narratives, count, size,
                                   settings.rng("opentom-samples", suite))
        info["opentom protocol"] = (f"{count} disjoint samples of {size} narratives "
                                    f"(seed {settings.seed}), mean ± std")
        if samples is None:
            sample_note = (f"samples protocol: needs {count}×{size} = {count * size} narratives, "
                           f"the run has {len(narratives)}; sample figures are n/a")
        for key in KEYS:
            values: list[MacroF1] = []
            if samples is not None:
                for sample in samples:
                    chosen = set(sample)
                    values.append(scored([r for r in groups.get(key, [])
                                          if r["item"]["scenario"] in chosen]))
            mean, std = mean_std([v.value for v in values])
            metrics[f"f1_mean.{key}"] = mean
            metrics[f"f1_std.{key}"] = std
            mean, std = mean_std([v.accuracy for v in values])
            metrics[f"accuracy_mean.{key}"] = mean
            metrics[f"accuracy_std.{key}"] = std
    else:
        info["opentom protocol"] = "whole pool"
    versions = sorted(reading.versions)
    if versions:
        info["opentom narratives"] = ", ".join(versions)
    tables = [table2(metrics, protocol, sample_note), faithfulness_table(faith),
              role_table(metrics)]
    return FamilyResult(metrics=metrics, tables=tables, info=info)


def _num(value: float | None) -> float | str:
    return "n/a" if value is None else round(value, 3)  # the JSON keeps the number


CAPTION = "F1 and accuracy on 0–1, as the paper's Table 2; unparseable in %"


def table2(metrics: dict[str, Any], protocol: str, note: str) -> MetricTable:
    headers = ["question", "F1 (pool)", "accuracy", "items", "unparseable"]
    if protocol == "samples":
        headers += ["F1 mean ± std (samples)", "accuracy mean ± std"]
    rows = []
    for key, label in TABLE2_ROWS:
        if not metrics[f"items.{key}"]:
            continue
        rate = metrics[f"parse_failure.{key}"]
        row: list[Any] = [label, _num(metrics[f"f1.{key}"]), _num(metrics[f"accuracy.{key}"]),
                          metrics[f"items.{key}"], pct(rate)]
        if protocol == "samples":
            for name in ("f1", "accuracy"):
                mean, std = metrics[f"{name}_mean.{key}"], metrics[f"{name}_std.{key}"]
                row.append("n/a" if mean is None else f"{mean:.3f} ± {std:.3f}")
        rows.append(row)
    text = ("macro-F1 per genre and order (F first, S second order) over the labels that occur, "
            "an unparseable answer or failed request being the class 'unparsed' (F1 0); "
            "accuracy: share of right answers; Loc_f (F) includes the narrator's questions")
    return MetricTable(title="OpenToM macro-F1 (layout of the paper's Table 2)", headers=headers,
                       rows=rows, note="\n".join(filter(None, [text, note])), caption=CAPTION)


def faithfulness_table(faith: dict[str, dict[str, int]]) -> MetricTable:
    rows = []
    for order, c in faith.items():
        if not c["pairs"]:
            continue
        rate = ratio(c["unfaithful"], c["parsed"])
        rows.append([f"{order} order", c["pairs"], c["parsed"], c["unfaithful"],
                     pct(rate)])
    return MetricTable(
        title="OpenToM unfaithful (Loc_coarse, Loc_fine) pairs", rows=rows,
        headers=["order", "pairs", "both parsed", "unfaithful", "unfaithful rate"],
        note="a pair is one perspective's coarse and fine question; unfaithful: the coarse answer "
             "and the place named contradict each other (rate over pairs where both parse)")


def role_table(metrics: dict[str, Any]) -> MetricTable:
    rows = []
    for key, label in TABLE2_ROWS:
        if key not in ROLE_KEYS or not metrics[f"items.{key}"]:
            continue
        gap = metrics[f"role_gap.{key}"]
        rows.append([label, _num(metrics[f"f1_mover.{key}"]), _num(metrics[f"f1_observer.{key}"]),
                     signed_unit(gap)])
    return MetricTable(title="OpenToM mover − observer F1 gap (layout of the paper's Table 4)",
                       headers=["question", "mover F1", "observer F1", "gap"], rows=rows,
                       caption="F1 on 0–1, as the paper's Table 4")
