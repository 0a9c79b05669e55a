"""The figures of a `--tom-sweep` run side by side: the report's `sweep` block.

Each value of a sweep is aggregated as a suite of its own (`<suite>[<setting>=<value>]`,
core/sweep.py), so every figure of a value is that suite's, computed as any suite's.
This module lines them up per suite of the file, one row per value in the sweep's
order:

- the outcome counts: items, right, wrong (unparseable and errors included, as in every
  table), unparseable, cut off, errors;
- every declared metric with its 95% interval (the value's suite's `intervals`; the
  thought-length figures apart, below);
- **accuracy on the answered items**, a second figure named as such: right over the
  judged items that got an answer (neither cut off nor an error), with its Wilson
  interval. Turn accuracy counts a cut-off item as not right; this one leaves it out, so
  that a small budget's accuracy is read both ways;
- the thought length (mean and median over the answered items, in the suite's unit;
  cut-off items are never in them) and the reasoning tokens the server reported (summed).

Between adjacent values, on the items both asked (paired by item id):

- **McNemar's exact test** of turn accuracy (`metrics.mcnemar`): `worse` right at the
  first value and not at the second, `better` the other way;
- **a paired bootstrap** of the mean thought length (`metrics.intervals.paired_bootstrap`,
  resampling the item groups, the same draw for both values, seeded from the run's seed):
  over the items answered at both values with a known length.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView
from pytest_tom.core.sweep import value_text
from pytest_tom.metrics.intervals import (
    MetricInterval,
    derive_seed,
    paired_bootstrap,
    ratio_of,
    wilson,
)
from pytest_tom.metrics.mcnemar import mcnemar_exact, score_of
from pytest_tom.metrics.record_table import reasoning_tokens, thought_characters
from pytest_tom.results.results import (
    IntervalJSON,
    Results,
    SuiteResult,
    SweepJSON,
    SweepPairJSON,
    SweepRowJSON,
    SweepSuiteJSON,
    SweepThoughtJSON,
    SweepTurnJSON,
)

ANSWERED = "answered_accuracy"  # the key (and, with its label, the name) of the second figure
ANSWERED_LABEL = "accuracy on the answered items"
NO_ANSWER = ("cut_off", "unavailable")


def _answered(rec: Record) -> bool:
    """A judged item that got an answer: not cut off, not an error."""
    view = RecordView(rec)
    if view.outcome_or_none is None:
        return False
    error = view.error
    if view.correct is None or error in NO_ANSWER:
        return False
    return not (error and error != "unparseable")


def _length(rec: Record, unit: str) -> float | None:
    """The record's thought length in `unit` (None: unknown)."""
    n = reasoning_tokens(rec) if unit == "tokens" else thought_characters(rec)
    return None if n is None else float(n)


def _interval(iv: MetricInterval | None) -> IntervalJSON | None:
    """A metric's value and interval as the value's suite keeps it (label, headline,
    display and method included: the reports format it as the suite's tables do)."""
    return iv.to_dict() if iv is not None else None


def _row(point: tuple[Any, str], suite: SuiteResult | None, records: list[Record]
         ) -> SweepRowJSON:
    counts = suite.counts if suite is not None else None

    def metric(name: str) -> Any:
        return suite.metric(name) if suite is not None else None

    answered = [r for r in records if _answered(r)]
    right = sum(1 for r in answered if RecordView(r).correct is True)
    iv = wilson(right, len(answered)) if answered else None
    tokens = [t for t in map(reasoning_tokens, records) if t is not None]
    reasoning = suite.reasoning if suite is not None else None
    return {
        "value": point[0], "label": point[1],
        "suite": suite.name if suite is not None else None,
        "family": suite.family if suite is not None else None,
        "items": counts.items if counts else 0,
        "right": counts.correct if counts else 0,
        "wrong": counts.wrong if counts else 0,
        "unparseable": counts.unparseable if counts else 0,
        "cut_off": counts.cut_off if counts else 0,
        "errors": counts.errors if counts else 0,
        "turn": metric("turn"),
        "answered": len(answered),
        ANSWERED: {"value": iv.value if iv else None, "low": iv.low if iv else None,
                   "high": iv.high if iv else None, "label": ANSWERED_LABEL,
                   "method": "wilson", "n": len(answered)},
        "thought_mean": metric("reasoning.mean"),
        "thought_mean_interval": _interval(suite.interval("reasoning.mean")
                                           if suite is not None else None),
        "thought_median": metric("reasoning.median"),
        "thought_unit": reasoning.unit if reasoning else "",
        "reasoning_tokens": sum(tokens) if tokens else None,
        "metrics": {name: _interval(iv) for name, iv in
                    (suite.intervals if suite is not None else {}).items()
                    if not name.startswith("reasoning.")},
    }


def _paired(a: list[Record], b: list[Record], unit: str, seed: int, name: str
            ) -> SweepPairJSON:
    """McNemar on turn accuracy and the bootstrap of the mean thought length, between the
    records of two values of one suite (paired by item id)."""
    first = {RecordView(r).id: r for r in a}
    second = {RecordView(r).id: r for r in b}
    shared = [i for i in first if i in second]
    worse = better = n = 0
    hits = [0, 0]
    for i in shared:
        x, y = score_of(first[i]), score_of(second[i])
        if x is None or y is None:
            continue
        n += 1
        hits[0] += int(x)
        hits[1] += int(y)
        worse += int(x == 1 and y == 0)
        better += int(x == 0 and y == 1)
    turn: SweepTurnJSON = {"test": "mcnemar", "n": n, "a": hits[0] / n if n else None,
            "b": hits[1] / n if n else None,
            "delta": (hits[1] - hits[0]) / n if n else None, "worse": worse, "better": better,
            "p_value": mcnemar_exact(worse, better) if n else None}
    groups: dict[Any, tuple[Counter, Counter]] = defaultdict(lambda: (Counter(), Counter()))
    items = 0  # answered at both values, with a length
    for i in shared:
        la, lb = _length(first[i], unit), _length(second[i], unit)
        if la is None or lb is None or not (_answered(first[i]) and _answered(second[i])):
            continue
        group = RecordView(first[i]).group or i
        ca, cb = groups[group]
        ca.update(s=la, n=1)
        cb.update(s=lb, n=1)
        items += 1
    thought: SweepThoughtJSON | None = None
    if unit and groups:
        diff = paired_bootstrap(list(groups.values()), ratio_of("s", "n"),
                                derive_seed(seed, "sweep", name, "thought"))
        # the difference's figures (no McNemar counts), and the items it is over
        thought = {**diff.figures(), "items": items, "unit": unit}
    return {"turn": turn, "thought_mean": thought}


def _order(records: Iterable[Record]) -> list[tuple[Any, str]]:
    """The sweep's values in its order (each record says its place), with their labels."""
    points: dict[int, tuple[Any, str]] = {}
    for rec in records:
        view = RecordView(rec)
        index = view.sweep_index
        if index not in points:
            setting, value = view.sweep_setting, view.sweep_value
            points[index] = (value, f"{setting}={value_text(value)}")
    return [points[k] for k in sorted(points)]


def sweep_block(results: Results, records: list[Record], seed: int = 0
                ) -> SweepJSON | None:
    """The `sweep` block of a run's results (None: no record was asked in a sweep)."""
    swept = [r for r in records if RecordView(r).sweep]
    if not swept:
        return None
    setting = str(RecordView(swept[0]).sweep_setting)
    points = _order(swept)
    by_suite: dict[str, dict[str, list[Record]]] = defaultdict(lambda: defaultdict(list))
    for rec in swept:
        view = RecordView(rec)
        by_suite[str(view.sweep_suite)][view.suite].append(rec)
    suites: dict[str, SweepSuiteJSON] = {}
    for base in sorted(by_suite):
        values = by_suite[base]
        names = [f"{base}[{label}]" for _, label in points]
        found = [results.suite(name) for name in names]
        rows = [_row(point, suite, values.get(name, []))
                for point, name, suite in zip(points, names, found, strict=True)]
        units = {s.reasoning.unit for s in found if s is not None and s.reasoning.unit}
        unit = "tokens" if units == {"tokens"} else ("characters" if units else "")
        paired: list[SweepPairJSON] = []
        for i in range(len(points) - 1):
            one, two = (found[i], points[i]), (found[i + 1], points[i + 1])
            test = _paired(values.get(one[0].name, []) if one[0] is not None else [],
                           values.get(two[0].name, []) if two[0] is not None else [],
                           unit, seed, f"{base}:{one[1][1]}:{two[1][1]}")
            paired.append({"from": one[1][0], "to": two[1][0], **test})
        suites[base] = {"values": rows, "paired": paired}
    return {"setting": setting, "values": [value for value, _ in points], "suites": suites}
