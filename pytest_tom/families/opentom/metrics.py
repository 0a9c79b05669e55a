"""OpenToM's tables and the figures no declaration expresses: the paper's Table 2 (macro-F1,
accuracy, items, unparseable share per genre and order), its Table 4 (mover and observer
F1 and their gap) and the unfaithful (coarse, fine) location pairs, with the paper's
sampling protocol.

Every cell that shows a declared metric (`opentom.headline`: `f1.<key>`,
`accuracy.<key>`, `parse_failure.<key>`, `f1_mover.<key>`, `f1_observer.<key>`) reads the
value the engine computed from its declaration; the figures here are

- `items.<key>`: the items counted in the key (the pairs behind its declared F1);
- `role_gap.<key>`: mover minus observer F1 (of the declared values);
- `f1_mean.<key>`, `f1_std.<key>`, `accuracy_mean.<key>`, `accuracy_std.<key>`: over the
  samples (protocol `samples` only): the declared F1 and accuracy evaluated on each
  sample's records, a mean of per-sample values that no additive summary gives;
- `unfaithful_rate.<order>`, `unfaithful.<order>`, `faithfulness_pairs.<order>`: pairs
  of one perspective's coarse and fine answers, two records read together.

Skipped items are left out; an unparseable answer or a failed request is predicted as the
class `unparsed`, which takes part in every macro-F1 as a class of its own (see
`pytest_tom.metrics.macro_f1`), and is a wrong answer for the accuracy. Metric keys: see
`opentom.headline` (`loc_fine.narrator`, the narrator's fine-location questions on their
own, are part of `loc_fine.first` too, as in the authors' evaluator).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from pytest_tom.families.kit import SKIPPED
from pytest_tom.families.kit import Declared
from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import Metric
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import RecordTable
from pytest_tom.families.kit import RecordView
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Value
from pytest_tom.families.kit import answer_rows
from pytest_tom.families.kit import disjoint_samples
from pytest_tom.families.kit import evaluate
from pytest_tom.families.kit import mean_std
from pytest_tom.families.kit import pct
from pytest_tom.families.kit import ratio
from pytest_tom.families.kit import scenario_of
from pytest_tom.families.kit import signed_unit
from pytest_tom.families.opentom.headline import ACCURACY
from pytest_tom.families.opentom.headline import F1
from pytest_tom.families.opentom.headline import KEYS
from pytest_tom.families.opentom.headline import ROLE_KEYS
from pytest_tom.families.opentom.headline import ROLE_NAMES
from pytest_tom.families.opentom.headline import TABLE2_ROWS
from pytest_tom.families.opentom.headline import predicted_from

LocationPairs = dict[tuple[str, str, str], dict[str, str | None]]


class Reading:
    """What the tables need of an OpenToM suite's records beyond the declared values, read
    in one pass (the records of a 100,000-record run lie far apart in memory): the records
    kept (not skipped, for the samples protocol), each perspective's (coarse, fine) location
    answers for the unfaithful rate, and the narrative versions."""

    def __init__(self, records: list[Record]) -> None:
        self.kept: list[Record] = []
        # (narrative, order, perspective) -> genre -> the answer's label
        self.location_pairs: LocationPairs = defaultdict(dict)
        self.versions: set[Any] = set()
        for rec, _, meta, scenario, state, error, _, parsed, _, _ in answer_rows(records):
            if state == SKIPPED:
                continue
            self.kept.append(rec)
            genre, role = meta["genre"], meta.get("role")
            if genre in ("loc_coarse", "loc_fine") and role in ROLE_NAMES:
                self.location_pairs[(scenario, meta["order"], role)][genre] = \
                    predicted_from(error, parsed)
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


def items_of(value: Value) -> int:
    """The items behind a declared F1: its (gold, predicted) pair counts summed."""
    return int(sum(value.total.values()))


def aggregate(records: list[Record], settings: Settings, declared: Declared) -> FamilyResult:
    """The figures of one OpenToM suite that are not declared metrics, and its tables, which
    show the `declared` values (a declared metric with no value here is reported as None)."""
    reading = Reading(records)
    values = {name: v.value for name, v in declared.items()}

    def value(name: str) -> float | None:
        return declared[name].value

    metrics: dict[str, float | int | None] = {
        name: None for name, v in values.items() if v is None}  # nothing to count here
    for key in KEYS:
        metrics[f"items.{key}"] = items_of(declared[f"f1.{key}"])
    for key in ROLE_KEYS:
        mover, observer = value(f"f1_mover.{key}"), value(f"f1_observer.{key}")
        metrics[f"role_gap.{key}"] = None if mover is None or observer is None else mover - observer
    faith = unfaithfulness(reading.location_pairs)
    for order, counts in faith.items():
        metrics[f"faithfulness_pairs.{order}"] = counts["parsed"]
        metrics[f"unfaithful.{order}"] = counts["unfaithful"]
        metrics[f"unfaithful_rate.{order}"] = ratio(counts["unfaithful"], counts["parsed"])

    opts = settings.options
    protocol = opts.get("opentom_protocol", "pool")
    info: dict[str, str] = {}
    sample_note = ""
    if protocol == "samples":
        recs = reading.kept
        count, size = int(opts.get("opentom_samples", 5)), int(opts.get("opentom_sample_size", 50))
        suite = RecordView(recs[0]).suite if recs else ""
        narratives = {scenario_of(r) for r in recs}
        samples = disjoint_samples(narratives, count, size,
                                   settings.rng("opentom-samples", suite))
        info["opentom protocol"] = (f"{count} disjoint samples of {size} narratives "
                                    f"(seed {settings.seed}), mean ± std")
        if samples is None:
            sample_note = (f"samples protocol: needs {count}×{size} = {count * size} narratives, "
                           f"the run has {len(narratives)}; sample figures are n/a")
        per_sample = sample_values(recs, samples or [], (*F1, *ACCURACY))
        for key in KEYS:
            for name in ("f1", "accuracy"):
                mean, std = mean_std(per_sample[f"{name}.{key}"])
                metrics[f"{name}_mean.{key}"] = mean
                metrics[f"{name}_std.{key}"] = std
    else:
        info["opentom protocol"] = "whole pool"
    versions = sorted(reading.versions)
    if versions:
        info["opentom narratives"] = ", ".join(versions)
    shown = {**metrics, **{name: v for name, v in values.items() if name not in metrics}}
    tables = [table2(shown, protocol, sample_note), faithfulness_table(faith), role_table(shown)]
    return FamilyResult(metrics=metrics, tables=tables, info=info)


def sample_values(records: list[Record], samples: Sequence[Sequence[Any]],
                  metrics: Sequence[Metric]) -> dict[str, list[float | None]]:
    """Each metric's value on each sample (the records of the sample's narratives), from its
    declaration: the samples protocol's figures come from the same definitions as the pool's."""
    out: dict[str, list[float | None]] = {m.name: [] for m in metrics}
    reads = frozenset(k for m in metrics for k in m.reads)
    for sample in samples:
        chosen = set(sample)
        table = RecordTable([r for r in records if scenario_of(r) in chosen], reads)
        for name, v in evaluate(metrics, table).items():
            out[name].append(v.value)
    return out


def _num(value: float | None) -> float | str:
    return "n/a" if value is None else round(value, 3)  # the JSON keeps the number


CAPTION = "F1 and accuracy on 0–1, as the paper's Table 2; unparseable in %"


def table2(metrics: Mapping[str, float | None], protocol: str, note: str) -> MetricTable:
    headers = ["question", "F1 (pool)", "accuracy", "items", "unparseable"]
    if protocol == "samples":
        headers += ["F1 mean ± std (samples)", "accuracy mean ± std"]
    rows = []
    for key, label in TABLE2_ROWS:
        if not metrics[f"items.{key}"]:
            continue
        rate = metrics.get(f"parse_failure.{key}")
        row: list[Any] = [label, _num(metrics.get(f"f1.{key}")),
                          _num(metrics.get(f"accuracy.{key}")),
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


def role_table(metrics: Mapping[str, float | None]) -> MetricTable:
    rows = []
    for key, label in TABLE2_ROWS:
        if key not in ROLE_KEYS or not metrics[f"items.{key}"]:
            continue
        gap = metrics[f"role_gap.{key}"]
        rows.append([label, _num(metrics.get(f"f1_mover.{key}")),
                     _num(metrics.get(f"f1_observer.{key}")),
                     signed_unit(gap)])
    return MetricTable(title="OpenToM mover − observer F1 gap (layout of the paper's Table 4)",
                       headers=["question", "mover F1", "observer F1", "gap"], rows=rows,
                       caption="F1 on 0–1, as the paper's Table 4")
