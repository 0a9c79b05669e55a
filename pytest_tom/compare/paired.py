"""The comparison of several runs: per suite, every metric of the headline catalog as a row,
each run's value with its 95% interval, and for every run after the first the difference
to the first with a paired test on the items both runs judged:

* accuracies (proportions of items): the exact McNemar test on the shared items (the
  same test as the baseline gate) decides; the interval of the difference beside it is
  the usual normal approximation for paired proportions, for reading only;
* grouped and F1-type metrics: a paired bootstrap over the shared groups (the same draw
  of groups for both runs), percentile interval and two-sided bootstrap p-value;
* reasoning length (`results.reasoning.reasoning_length`, when the runs show reasoning): the mean reasoning
  length, overall and on each accuracy's items, is compared the grouped way, on the
  items both runs answered (the difference in tokens, or in characters: only between
  runs whose lengths count the same unit); a median or the accuracy of a quartile of
  reasoning length has no paired test (a quartile holds other items in each run): their
  values and intervals stand side by side. The label names the unit of the runs that
  have one (a run without a thought has none: it does not turn tokens into characters);
* cut off by the budget (a suite where some run has a cut-off item or any reasoning): each
  run's count and share of the suite's items (Wilson interval), and the paired
  difference in that share with the exact McNemar test on the shared items (newly cut
  off against no longer cut off), so that a small budget is never read as wrong answers.
  The totals carry the same row over every suite.

Items judged in both runs with a different verdict are the flipped items, listed with
both answers. Runs asked differently (method, seed, temperature, or a field of
`settings.asked`: the thinking budget, the answer lengths, the request fields ...) are
said so, field by field (`Comparison.asked`). The result is a `compare.comparison.Comparison`: analysis only, which
`report/` renders (terminal, Markdown, HTML) and `to_dict` writes as JSON.
"""

from __future__ import annotations

from typing import Any

from pytest_tom.compare.comparison import (
    Answer,
    AskedDifferently,
    Comparison,
    Flip,
    Flips,
    Row,
    RunInfo,
    SettingDifference,
    SuiteComparison,
    TotalRow,
)
from pytest_tom.compare.runs import Run
from pytest_tom.core.outcome import CUT_OFF, status
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView
from pytest_tom.metrics.accuracy import judged
from pytest_tom.metrics.declare import AMOUNT, GROUPED, MEDIAN, Metric
from pytest_tom.metrics.intervals import (
    RESAMPLES,
    Interval,
    MetricInterval,
    PairedDiff,
    derive_seed,
    paired_bootstrap,
    wilson,
)
from pytest_tom.metrics.mcnemar import mcnemar_exact
from pytest_tom.metrics.numbers import PERCENT
from pytest_tom.metrics.record_table import MEASURES, RecordTable
from pytest_tom.results.headline import catalog, suite_intervals

ANSWER_LIMIT = 300


def key_of(rec: Record) -> tuple[str, str]:
    return RecordView(rec).key


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
        ra, rb = bool(RecordView(rec).correct), bool(RecordView(other).correct)
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


def cut_off_counts(records: list[Record]) -> tuple[int, int]:
    """(cut-off items, items) of a run's records."""
    return sum(1 for r in records if RecordView(r).status == CUT_OFF), len(records)


def cut_off_diff(a: list[Record], b: list[Record]) -> PairedDiff:
    """The paired difference in the share of items cut off, on the items both runs have,
    with the exact McNemar test (`worse`: newly cut off; `better`: no longer cut off)."""
    after = {key_of(r): RecordView(r).status == CUT_OFF for r in b}
    n = ca = cb = newly = no_longer = 0
    for rec in a:
        other = after.get(key_of(rec))
        if other is None:
            continue
        mine = RecordView(rec).status == CUT_OFF
        n += 1
        ca += mine
        cb += other
        newly += other and not mine
        no_longer += mine and not other
    if n == 0:
        return PairedDiff(None, None, None, None, None, None, "mcnemar", 0)
    d = (cb - ca) / n
    var = ((newly + no_longer) / n - d * d) / n
    half = 1.959963984540054 * max(var, 0.0) ** 0.5
    return PairedDiff(ca / n, cb / n, d, max(-1.0, d - half), min(1.0, d + half),
                      mcnemar_exact(newly, no_longer), "mcnemar", n, newly, no_longer)


def cut_off_row(runs: list[Run], name: str) -> Row | None:
    """The suite's cut-off row (module docstring), or None when no run has a cut-off item
    and none shows reasoning in it."""
    present = [bool(r.results.suite(name)) for r in runs]
    counts = [cut_off_counts(r.records(name)) if here else None
              for r, here in zip(runs, present, strict=True)]
    if not any(c and c[0] for c in counts) and not any(reasoning_unit(r, name) for r in runs):
        return None
    values: list[Any] = [c[0] / c[1] if c and c[1] else None for c in counts]
    intervals: list[Interval | None] = []
    for c in counts:
        w = wilson(*c) if c and c[1] else None
        intervals.append(w if w is not None and w.low is not None else None)
    diffs: list[PairedDiff | None] = [None]
    for run in runs[1:]:
        a, b = runs[0].records(name), run.records(name)
        diffs.append(cut_off_diff(a, b) if a and b else None)
    return Row(metric=CUT_OFF, label="cut off by the budget (share of items)", kind="share",
               headline=True, values=values, intervals=intervals, diffs=diffs,
               counts=counts)


def unit_label(label: str, units: list[str]) -> str:
    """A reasoning-length row's label in the unit of the runs that count one (the catalog
    is built over every run's records together, where a run without a thought makes
    "every record has a token count" false); both units: said, and not compared."""
    named = sorted({u for u in units if u})
    if len(named) > 1:  # each run's value in its own unit: the label names neither alone
        for measure in MEASURES.values():
            label = label.replace(measure, "reasoning length")
        return label + f" ({' / '.join(u or 'none' for u in units)}: not compared)"
    if named:
        for measure in MEASURES.values():
            if measure in label:
                return label.replace(measure, MEASURES[named[0]])
    return label


def answer_of(rec: Record) -> str:
    """What the run answered, short: the parsed answer, else the last response, else the error."""
    view = RecordView(rec)
    parsed = view.parsed
    if parsed not in (None, "", []):
        text = parsed if isinstance(parsed, str) else str(parsed)
    elif view.responses:
        text = str(view.responses[-1])
    else:
        text = f"({view.error or 'no answer'}: {view.detail})".strip()
    text = " ".join(text.split())
    return text if len(text) <= ANSWER_LIMIT else text[:ANSWER_LIMIT - 1] + "…"


def verdict(rec: Record) -> str:
    return status(RecordView(rec).outcome_or_none or {})


def flips(a: list[Record], b: list[Record]) -> list[Flip]:
    """Items judged in both runs whose verdict changed, worse ones first."""
    after = {key_of(r): r for r in judged(b)}
    out = []
    for rec in judged(a):
        other = after.get(key_of(rec))
        view = RecordView(rec)
        if other is None or bool(view.correct) == bool(RecordView(other).correct):
            continue
        out.append(Flip(suite=view.suite, id=view.id, kind=view.kind_or_none,
                        question=view.question, gold=view.gold,
                        direction="worse" if view.correct else "better",
                        before=Answer(verdict(rec), answer_of(rec)),
                        after=Answer(verdict(other), answer_of(other))))
    out.sort(key=lambda f: (f.direction != "worse", f.suite, f.id))
    return out


def run_intervals(run: Run, suite: str) -> dict[str, MetricInterval]:
    """A run's intervals of a suite: as its report keeps them, else computed from its
    records (a report of `--tom-samples` keeps none)."""
    data = run.results.suite(suite)
    if data is None:
        return {}
    kept = data.intervals
    if kept:
        return kept
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
            label = unit_label(spec.label, units) if spec.quantity else spec.label
            intervals: list[Interval | None] = [by_name.get(spec.name) for by_name in ivs]
            for i, (v, iv) in enumerate(zip(values, intervals, strict=True)):
                if iv is None and v is not None and spec.kind == MEDIAN:
                    m = spec.interval(runs[i].records(name), seed, name)
                    if m.low is not None:
                        intervals[i] = m
                elif iv is None and v is not None and spec.kind != GROUPED and not spec.band:
                    right, n = spec.counts(runs[i].records(name))
                    w = wilson(right, n)
                    if w.low is not None:
                        intervals[i] = w
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
        cut = cut_off_row(runs, name)
        if cut is not None:  # after the headline accuracies, before the reasoning figures
            at = next((i for i, r in enumerate(rows) if r.display == AMOUNT), len(rows))
            rows.insert(at, cut)
        counts = [len(r.records(name)) for r in runs]
        suites.append(SuiteComparison(name=name, family=family, items=counts, rows=rows))
    totals = [TotalRow(metric=key, label=label,
                       values=[res.totals.get(key) for res in results],
                       intervals=[res.total_interval(key) for res in results])
              for key, label in (("turn", "turn accuracy"), ("goal", "goal accuracy"))]
    if any(r.metric == CUT_OFF for s in suites for r in s.rows):
        cut_counts: list[tuple[int, int] | None] = [
            (int(res.totals.cut_off or 0), int(res.totals.items or 0)) for res in results]
        pairs = [(c, n) for c, n in (x for x in cut_counts if x is not None)]
        shares: list[Any] = [c / n if n else None for c, n in pairs]
        cut_ivs: list[Interval | None] = []
        for c, n in pairs:
            w = wilson(c, n) if n else None
            cut_ivs.append(w if w is not None and w.low is not None else None)
        totals.append(TotalRow(metric=CUT_OFF, label="cut off by the budget (share of items)",
                               values=shares, intervals=cut_ivs, counts=cut_counts))
    flipped = []
    for run in runs[1:]:
        items = flips([x for n in names for x in first.records(n)],
                      [x for n in names for x in run.records(n)])
        worse = sum(1 for f in items if f.direction == "worse")
        flipped.append(Flips(against=run.label, worse=worse, better=len(items) - worse,
                             items=items))
    asked = [AskedDifferently(against=run.label, fields=[
        SettingDifference(name, a, b)
        for name, a, b in first.report.settings.differences(run.report.settings)])
        for run in runs[1:]]
    return Comparison(
        seed=seed, resamples=resamples, asked=asked,
        runs=[RunInfo(label=r.label, model=r.model, path=str(r.path),
                      settings=r.report.settings.data, finished=r.report.finished,
                      items=len(r.report.records)) for r in runs],
        suites=suites, totals=totals, flips=flipped)
