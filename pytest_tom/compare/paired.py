"""The comparison of several runs: per suite, every metric of the headline catalog as a row,
each run's value with its 95% interval, and for every run after the first the difference
to the first with a paired test on the items both runs judged:

* accuracies (proportions of items): the exact McNemar test on the shared items (the
  same test as the baseline gate) decides; the interval of the difference beside it is
  the usual normal approximation for paired proportions, for reading only;
* grouped and F1-type metrics: a paired bootstrap over the shared groups (the same draw
  of groups for both runs), percentile interval and two-sided bootstrap p-value;
* reasoning length (`engine.reasoning_length`, when the runs show reasoning): the mean reasoning
  length, overall and on each accuracy's items, is compared the grouped way, on the
  items both runs answered (the difference in tokens, or in characters: only between
  runs whose lengths count the same unit); a median or the accuracy of a quartile of
  reasoning length has no paired test (a quartile holds other items in each run): their
  values and intervals stand side by side.

Items judged in both runs with a different verdict are the flipped items, listed with
both answers. The result is a `compare.comparison.Comparison`: analysis only, which
`report/` renders (terminal, Markdown, HTML) and `to_dict` writes as JSON.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pytest_tom.compare.comparison import (
    Answer,
    Comparison,
    Flip,
    Flips,
    Row,
    RunInfo,
    SuiteComparison,
    TotalRow,
)
from pytest_tom.compare.runs import Run
from pytest_tom.core.outcome import status
from pytest_tom.core.record import Record
from pytest_tom.engine.headline import catalog, suite_intervals
from pytest_tom.metrics.accuracy import judged
from pytest_tom.metrics.declare import AMOUNT, GROUPED, MEDIAN, Metric
from pytest_tom.metrics.intervals import (
    RESAMPLES,
    PairedDiff,
    derive_seed,
    paired_bootstrap,
    wilson,
)
from pytest_tom.metrics.mcnemar import mcnemar_exact
from pytest_tom.metrics.numbers import PERCENT
from pytest_tom.metrics.record_table import RecordTable

ANSWER_LIMIT = 300


def key_of(rec: Record) -> tuple[str, str]:
    return rec["item"]["suite"], rec["item"]["id"]


def mcnemar_diff(spec: Metric, a: list[Record], b: list[Record]) -> PairedDiff:
    """Exact McNemar on the items `spec` selects that both runs judged."""
    after = {key_of(r): r for r in judged(b) if spec.select(r)}
    worse = better = both_right = n = 0
    a_right = b_right = 0
    for rec in judged(a):
        if not spec.select(rec):
            continue
        other = after.get(key_of(rec))
        if other is None:
            continue
        n += 1
        ra, rb = bool(rec["outcome"]["correct"]), bool(other["outcome"]["correct"])
        a_right += ra
        b_right += rb
        both_right += ra and rb
        worse += ra and not rb
        better += rb and not ra
    if n == 0:
        return PairedDiff(None, None, None, None, None, None, "mcnemar", 0)
    va, vb = a_right / n, b_right / n
    # interval of the paired difference: (better - worse) / n with the Wald-type variance
    # of paired proportions, clipped to [-1, 1] (reported for reading; the test is exact)
    d = vb - va
    var = ((better + worse) / n - d * d) / n
    half = 1.959963984540054 * max(var, 0.0) ** 0.5
    return PairedDiff(va, vb, d, max(-1.0, d - half), min(1.0, d + half),
                      mcnemar_exact(worse, better), "mcnemar", n, worse, better)


def grouped_diff(spec: Metric, a: list[Record], b: list[Record], seed: int,
                 resamples: int) -> PairedDiff:
    """Paired bootstrap over the groups both runs have, on their shared items (a mean of
    reasoning length: only when both count it in one unit)."""
    shared = {key_of(r) for r in a} & {key_of(r) for r in b}
    ta = RecordTable([r for r in a if key_of(r) in shared], None)
    tb = RecordTable([r for r in b if key_of(r) in shared], None)
    if spec.quantity and ta.reasoning.unit != tb.reasoning.unit:
        return PairedDiff(None, None, None, None, None, None, "paired bootstrap", 0)
    sa = spec.summaries(ta)
    sb = spec.summaries(tb)
    units = sorted(set(sa) & set(sb), key=str)
    assert spec.finish is not None
    return paired_bootstrap([(sa[u], sb[u]) for u in units], spec.finish, seed, resamples)


def answer_of(rec: Record) -> str:
    """What the run answered, short: the parsed answer, else the last response, else the error."""
    out = rec.get("outcome") or {}
    parsed = out.get("parsed")
    if parsed not in (None, "", []):
        text = parsed if isinstance(parsed, str) else str(parsed)
    elif rec.get("responses"):
        text = str(rec["responses"][-1])
    else:
        text = f"({out.get('error') or 'no answer'}: {out.get('detail') or ''})".strip()
    text = " ".join(text.split())
    return text if len(text) <= ANSWER_LIMIT else text[:ANSWER_LIMIT - 1] + "…"


def verdict(rec: Record) -> str:
    return status(rec.get("outcome") or {})


def flips(a: list[Record], b: list[Record]) -> list[Flip]:
    """Items judged in both runs whose verdict changed, worse ones first."""
    after = {key_of(r): r for r in judged(b)}
    out = []
    for rec in judged(a):
        other = after.get(key_of(rec))
        if other is None or bool(rec["outcome"]["correct"]) == bool(other["outcome"]["correct"]):
            continue
        item = rec["item"]
        out.append(Flip(suite=item["suite"], id=item["id"], kind=item.get("kind"),
                        question=item.get("question", ""), gold=item.get("gold"),
                        direction="worse" if rec["outcome"]["correct"] else "better",
                        before=Answer(verdict(rec), answer_of(rec)),
                        after=Answer(verdict(other), answer_of(other))))
    out.sort(key=lambda f: (f.direction != "worse", f.suite, f.id))
    return out


def run_intervals(run: Run, suite: str) -> dict[str, Any]:
    """A run's intervals of a suite: as its report keeps them, else computed from its
    records (a report of `--tom-samples` keeps none)."""
    data = run.results.suite(suite)
    if data is None:
        return {}
    if data.intervals:
        return data.intervals
    return suite_intervals(data.family, run.records(suite), dict(data.metrics), run.seed,
                           settings=run.settings)


def reasoning_unit(run: Run, suite: str) -> str:
    """What the run's reasoning lengths of a suite count ("tokens", "characters"; "": none)."""
    data = run.results.suite(suite)
    return data.reasoning.unit if data is not None else ""


def paired_test(spec: Metric) -> bool:
    """Has the metric a paired test between runs (not a median, nor a band of reasoning
    length, which holds other items in each run)?"""
    return spec.kind != MEDIAN and spec.band is None


def compare_runs(runs: list[Run], seed: int = 0, resamples: int = RESAMPLES) -> Comparison:
    """The comparison (see the module docstring)."""
    if len(runs) < 2:
        raise ValueError("compare needs at least two reports")
    first = runs[0]
    results = [r.results for r in runs]
    names = list(dict.fromkeys(n for res in results for n in res.suite_names))
    suites = []
    for name in names:
        holders = [r for r, res in zip(runs, results, strict=True) if res.suite(name) is not None]
        found = holders[0].results.suite(name)
        assert found is not None
        family = found.family
        specs = catalog(family, [rec for r in holders for rec in r.records(name)],
                        holders[0].settings).specs
        ivs = [run_intervals(r, name) for r in runs]
        units = [reasoning_unit(r, name) for r in runs]
        rows = []
        for spec in specs:
            values = [res.figure(name, spec.name) for res in results]
            if all(v is None for v in values):
                continue
            label = spec.label
            if spec.quantity and len({u for u in units if u}) > 1:  # tokens vs characters
                label += f" ({' / '.join(u or 'none' for u in units)}: not compared)"
            intervals = [iv.get(spec.name) for iv in ivs]
            intervals = [None if i is None else {"low": i["low"], "high": i["high"],
                                                 "method": i["method"]} for i in intervals]
            for i, (v, iv) in enumerate(zip(values, intervals, strict=True)):
                if iv is None and v is not None and spec.kind == MEDIAN:
                    m = spec.interval(runs[i].records(name), seed, name)
                    if m.low is not None:
                        intervals[i] = {"low": m.low, "high": m.high, "method": m.method}
                elif iv is None and v is not None and spec.kind != GROUPED and not spec.band:
                    right, n = spec.counts(runs[i].records(name))
                    w = wilson(right, n)
                    if w.low is not None:
                        intervals[i] = {"low": w.low, "high": w.high, "method": "wilson"}
            diffs: list[PairedDiff | None] = [None]
            for i, run in enumerate(runs[1:], start=1):
                a, b = first.records(name), run.records(name)
                if (not a or not b or values[0] is None or values[i] is None
                        or not paired_test(spec)
                        or (spec.quantity and units[0] != units[i])):
                    diffs.append(None)
                    continue
                if spec.kind == GROUPED:
                    d = grouped_diff(spec, a, b, derive_seed(seed, "compare", name, spec.name),
                                     resamples)
                else:
                    d = mcnemar_diff(spec, a, b)
                diffs.append(d)
            rows.append(Row(metric=spec.name, label=label, kind=spec.kind,
                            headline=spec.headline, values=values, intervals=intervals,
                            diffs=diffs,
                            display=AMOUNT if spec.display == AMOUNT else PERCENT))
        counts = [len(r.records(name)) for r in runs]
        suites.append(SuiteComparison(name=name, family=family, items=counts, rows=rows))
    totals = [TotalRow(metric=key, label=label,
                       values=[res.totals.get(key) for res in results],
                       intervals=[res.totals_intervals.get(key) for res in results])
              for key, label in (("turn", "turn accuracy"), ("goal", "goal accuracy"))]
    flipped = []
    for run in runs[1:]:
        items = flips([x for n in names for x in first.records(n)],
                      [x for n in names for x in run.records(n)])
        tally = Counter(f.direction for f in items)
        flipped.append(Flips(against=run.label, worse=tally["worse"], better=tally["better"],
                             items=items))
    return Comparison(
        seed=seed, resamples=resamples,
        runs=[RunInfo(label=r.label, model=r.model, path=str(r.path),
                      settings=r.report.settings.data, finished=r.report.finished,
                      items=len(r.report.records)) for r in runs],
        suites=suites, totals=totals, flips=flipped)
