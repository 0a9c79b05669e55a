"""`--tom-probe`: per suite of the files, each probe's accuracy beside the base's, paired.

The block (`results["probes"]`, the JSON report's `probes`) holds, per suite, the base
items' counts and, per probe copy (`probe=no-story`, `probe=no-options`,
`probe=shuffle-1` ...), its counts and the exact McNemar test against the base on the
items both judged (`metrics/mcnemar.py`). Besides:

- `no_story`: the story-free accuracy against chance (one over each item's number of
  options) with an exact two-sided binomial test, and the items answered right without
  the story. Items with different numbers of options make the count of right answers a
  sum of unequal Bernoulli trials; its exact distribution is computed (`right_count_pmf`),
  so the test is exact either way, without scipy.
- `shuffle`: consistency (the share of items right in every order, among those judged in
  every order) and accuracy by the place the gold option was shown at (position bias).

`not_applicable` names, per family of the run, each probe it does not take and why.

A record counts when judged (right, wrong or unparseable; not skipped, measured or cut
off: `metrics.accuracy.is_judged`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pytest_tom import families
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView
from pytest_tom.metrics.accuracy import is_judged
from pytest_tom.metrics.mcnemar import mcnemar_exact
from pytest_tom.results.results import (
    NoStoryJSON,
    ProbeCountsJSON,
    ProbePairedJSON,
    ProbesJSON,
    ProbeSuiteJSON,
    ShuffleJSON,
)


def right_count_pmf(chances: Iterable[float]) -> list[float]:
    """P(X = k), k = 0..n, for X the number right among independent items each right with
    its own chance (a Poisson binomial; the binomial when all chances are equal)."""
    pmf = [1.0]
    for p in chances:
        nxt = [0.0] * (len(pmf) + 1)
        for k, q in enumerate(pmf):
            nxt[k] += q * (1 - p)
            nxt[k + 1] += q * p
        pmf = nxt
    return pmf


def binomial_test(right: int, chances: list[float]) -> float:
    """Exact two-sided p-value of `right` right answers against guessing with `chances`:
    the probability of every count no more likely than the one seen (1.0 for no items)."""
    if not chances:
        return 1.0
    pmf = right_count_pmf(chances)
    seen = pmf[right]
    return min(1.0, sum(q for q in pmf if q <= seen * (1 + 1e-9)))


def _counts(records: list[Record]) -> ProbeCountsJSON:
    right = sum(1 for r in records if RecordView(r).correct)
    return {"n": len(records), "right": right,
            "accuracy": right / len(records) if records else None}


def _verdicts(records: list[Record]) -> dict[str, bool]:
    """Each record's id and whether it was right."""
    return {(v := RecordView(r)).id: bool(v.correct) for r in records}


def _paired(base: dict[str, bool], copy: dict[str, bool]) -> ProbePairedJSON:
    shared = sorted(set(base) & set(copy))
    newly_wrong = sum(1 for i in shared if base[i] and not copy[i])
    newly_right = sum(1 for i in shared if copy[i] and not base[i])
    return {"n": len(shared), "newly_right": newly_right, "newly_wrong": newly_wrong,
            "p_value": mcnemar_exact(newly_wrong, newly_right)}


def _no_story(records: list[Record]) -> NoStoryJSON:
    views = [RecordView(r) for r in records]
    chances = [1 / len(v.choices) if v.choices else 0.5 for v in views]
    right = sorted(v.id for v in views if v.correct)
    return {"n": len(records), "right": len(right),
            "chance": sum(chances) / len(chances) if chances else None,
            "p_value": binomial_test(len(right), chances), "right_items": right}


def _shuffle(copies: dict[str, list[Record]]) -> ShuffleJSON:
    per_item: dict[str, list[bool]] = defaultdict(list)
    places: dict[int, list[bool]] = defaultdict(list)
    for records in copies.values():
        for r in records:
            view = RecordView(r)
            per_item[view.id].append(bool(view.correct))
            places[view.gold_position].append(bool(view.correct))  # type: ignore[index]
    orders = len(copies)
    whole = [v for v in per_item.values() if len(v) == orders]
    consistent = sum(1 for v in whole if all(v))
    return {"orders": orders, "items": len(whole), "consistent": consistent,
            "consistency": consistent / len(whole) if whole else None,
            "by_position": [{"position": p + 1, "n": len(v), "right": sum(v),
                             "accuracy": sum(v) / len(v)} for p, v in sorted(places.items())]}


def probe_block(records: list[Record]) -> ProbesJSON | None:
    """The probes' block of a run's records; None when no record is a probe's copy."""
    if not any(RecordView(r).probe is not None for r in records):
        return None
    base: dict[str, list[Record]] = defaultdict(list)
    copies: dict[str, dict[str, list[Record]]] = defaultdict(lambda: defaultdict(list))
    kinds: dict[str, str] = {}
    for r in records:
        if not is_judged(r):
            continue
        view = RecordView(r)
        if view.probe is not None:
            copies[view.probe_suite][view.probe_label].append(r)
            kinds[view.probe_label] = view.probe_kind
        else:
            base[view.suite].append(r)
    suites = []
    for suite in sorted(copies):
        right = _verdicts(base[suite])
        rows = []
        for label, recs in sorted(copies[suite].items(), key=lambda kv: _order(kv[0])):
            copy = _verdicts(recs)
            rows.append({"label": label, "probe": kinds[label], **_counts(recs),
                         "paired": _paired(right, copy)})
        entry: ProbeSuiteJSON = {"suite": suite, "base": _counts(base[suite]), "probes": rows}
        story = copies[suite].get("probe=no-story")
        if story is not None:
            entry["no_story"] = _no_story(story)
        shuffled = {k: v for k, v in copies[suite].items() if kinds[k] == "shuffle"}
        if shuffled:
            entry["shuffle"] = _shuffle(shuffled)
        suites.append(entry)
    return {"suites": suites, "not_applicable": _not_applicable(records)}


def _not_applicable(records: list[Record]) -> list[dict[str, str]]:
    """The probes each family of the run does not take, with its family's one-line reason
    (its items have no such copy)."""
    names = sorted({RecordView(r).family for r in records})
    return [{"family": name, "probe": probe, "reason": reason}
            for name in names
            for probe, reason in families.get(name).probes_not_applicable.items()]


def _order(label: str) -> tuple[int, int]:
    """no-story, no-options, then shuffle-1, shuffle-2 ... (numerically)."""
    name = label.removeprefix("probe=")
    for n, start in enumerate(("no-story", "no-options", "shuffle-")):
        if name.startswith(start):
            rest = name[len(start):]
            return n, int(rest) if rest.isdigit() else 0
    return 3, 0
