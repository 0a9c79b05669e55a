"""CI gates: thresholds on metrics, comparison with a baseline report, the exit status.

Metrics are addressed by the names of the JSON report (`suites.<name>.metrics`
and `totals`):

- `turn`, `goal`, `errors` ... (a bare name) or `totals:turn`: the totals of the run;
- `<suite>:<metric>`: one suite, e.g. `classic-false-belief:tag.belief.turn`;
- `*:<metric>`: every suite that reports the metric;
- `<family>.<metric>`: every suite of that family, e.g. `fantom.all_star`.

A threshold `name=value` is a floor (the metric must be at least `value`),
except for the metrics where lower is better (the core errors, unparseable,
wrong, skipped, parse_failure_rate, and what the suite's family declares in
`Family.lower_is_better`), where it is a ceiling; `>=` and `<=` say it
explicitly. A baseline comparison fails a metric when it got worse by more
than the allowed drop *and* the exact McNemar test on the items both runs share
says the change is significant (p <= alpha) and goes the wrong way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_tom.asking.answer_length import sent_text
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView
from pytest_tom.families import declared
from pytest_tom.gates.spec import (
    TOTALS,
    TOTALS_METRICS,
    DropSpec,
    GateOptions,
    GateSpecError,
    MetricRef,
    Threshold,
    family_names,
    is_core,
    lower_is_better,
    name_list,
    parse_max_drop,
    parse_thresholds,
)
from pytest_tom.metrics.declare import GROUPED, Metric
from pytest_tom.metrics.intervals import RESAMPLES, derive_seed, paired_bootstrap
from pytest_tom.metrics.mcnemar import Comparison, Key, Pairing, pair_records, smallest_significant
from pytest_tom.results.asked import difference_text
from pytest_tom.results.asked import differences as asked_differences
from pytest_tom.results.results import Results
from pytest_tom.results.run_report import ReportSettings, RunReport, SettingsJSON
from pytest_tom.results.saved_report import SavedReportError, read_saved_report
from pytest_tom.suite.schema import did_you_mean

DEFAULT_COMPARED = ("turn", "goal")
EPS = 1e-9


# -- configuration -------------------------------------------------------------------------
@dataclass
class GateConfig:
    thresholds: list[Threshold] = field(default_factory=list)
    baseline_path: str | None = None
    baseline: RunReport | None = None
    drops: DropSpec = field(default_factory=DropSpec)
    alpha: float = 0.05
    save_baseline: str | None = None
    markdown: str | None = None
    items: str = "fail"

    @property
    def active(self) -> bool:
        """Is any gate configured (thresholds or a baseline)?"""
        return bool(self.thresholds) or self.baseline_path is not None

    @classmethod
    def from_options(cls, options: GateOptions, load: bool = True) -> GateConfig:
        """The gates of `options`, parsed and checked (GateSpecError if bad); the baseline
        read when `load`."""
        known = family_names()
        cfg = cls(
            thresholds=parse_thresholds(options.fail_under, known),
            baseline_path=options.baseline or None,
            drops=parse_max_drop(options.max_drop, known),
            alpha=float(options.alpha),
            save_baseline=options.save_baseline or None,
            markdown=options.markdown or None,
        )
        if not 0 < cfg.alpha <= 1:
            raise GateSpecError(f"--tom-alpha {cfg.alpha:g}: the significance level must be "
                                f"above 0 and at most 1 (1 turns the significance test off)")
        if options.max_drop and not cfg.baseline_path:
            raise GateSpecError("--tom-max-drop needs --tom-baseline REPORT.json to compare with")
        # saving a baseline is a success: its wrong answers are the baseline, not failures
        cfg.items = options.items or ("report" if cfg.active or cfg.save_baseline else "fail")
        if load and cfg.baseline_path:
            cfg.baseline = load_baseline(cfg.baseline_path)
        return cfg


def load_baseline(path: str) -> RunReport:
    """A previous JSON report (from --tom-report or --tom-save-baseline), checked."""
    where = f"--tom-baseline {path}"
    try:
        data = read_saved_report(path, label=where, how_to_write=(
            "--tom-save-baseline PATH (or --tom-report PATH) on a run of the reference model"))
    except SavedReportError as exc:
        raise GateSpecError(str(exc)) from None
    if not data.complete:
        raise GateSpecError(f"{where}: the report is of an {data.status} run "
                            f"({len(data.records)} items scored before it stopped): a baseline "
                            f"must be a complete run; run the reference model to the end with "
                            f"--tom-save-baseline PATH")
    if not data.records:
        raise GateSpecError(f"{where}: the report has no items (no tom item ran): nothing to "
                            f"compare with; save a baseline from a run of the suites")
    return data


# -- evaluation ----------------------------------------------------------------------------
@dataclass
class GateResult:
    """One gate on one concrete metric value (a family-wide spec gives one per suite)."""

    kind: str  # "threshold" | "baseline"
    suite: str | None  # None: the totals
    metric: str
    current: float | None
    passed: bool
    spec: str = ""  # the option entry it comes from, when it names several suites
    op: str = ">="
    threshold: float | None = None
    baseline: float | None = None
    allowed: float | None = None  # allowed worsening
    p_value: float | None = None
    newly_wrong: int = 0
    newly_right: int = 0
    paired: int = 0
    test: str = "McNemar"  # or "paired bootstrap" (a grouped metric its family declares)
    reason: str = ""  # why it failed, or a note
    # baseline gates: the fewest newly wrong shared items the paired test can flag at alpha
    # (None: none can), and that as a share of the shared items (the smallest detectable drop)
    detectable_items: int | None = None

    @property
    def detectable(self) -> float | None:
        if self.detectable_items is None or not self.paired:
            return None
        return self.detectable_items / self.paired

    @property
    def underpowered(self) -> bool:
        """The allowed drop is smaller than any drop the paired test could detect."""
        if (self.kind != "baseline" or self.test != "McNemar" or self.allowed is None
                or not self.paired):
            return False
        return self.detectable is None or self.detectable > self.allowed + EPS

    @property
    def label(self) -> str:
        return f"{self.suite or TOTALS}:{self.metric}"

    @property
    def reference(self) -> float | None:
        return self.threshold if self.kind == "threshold" else self.baseline

    @property
    def delta(self) -> float | None:
        ref = self.reference
        if ref is None or self.current is None:
            return None
        return self.current - ref


@dataclass
class ItemDiff:
    new: list[Key] = field(default_factory=list)
    removed: list[Key] = field(default_factory=list)
    newly_wrong: list[Key] = field(default_factory=list)
    newly_right: list[Key] = field(default_factory=list)
    incomparable: list[Key] = field(default_factory=list)  # judged in one run only
    paired: int = 0

    @property
    def empty(self) -> bool:
        return not (self.new or self.removed or self.newly_wrong or self.newly_right
                    or self.incomparable)


@dataclass
class GateReport:
    results: list[GateResult] = field(default_factory=list)
    error: str | None = None  # a usage error: an unknown metric ...
    notes: list[str] = field(default_factory=list)
    diff: ItemDiff | None = None
    alpha: float = 0.05

    @property
    def failed(self) -> list[GateResult]:
        return [r for r in self.results if not r.passed]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def valid_names(results: Results, ref: MetricRef) -> str:
    """The names a misspelt reference could have meant, for the usage error."""
    suites = results.suites
    if ref.is_totals:
        return f"totals: {', '.join(TOTALS_METRICS)}"
    if ref.family is not None:  # at most a dozen names, the closest first (no 6,000-char line)
        names = {m for s in suites.values() if s.family == ref.family for m in s.metrics}
        return f"suites of family {ref.family}: {name_list(names, ref.metric)}"
    if ref.suite == "*":
        names = {m for s in suites.values() for m in s.metrics}
        return f"suites: {name_list(names, ref.metric)}"
    return f"suite {ref.suite}: {name_list(suites[str(ref.suite)].metrics, ref.metric)}"


def resolve(ref: MetricRef, results: Results) -> list[str | None]:
    """The suites (None = totals) a reference names; GateSpecError listing valid names if none."""
    suites = results.suites
    if ref.is_totals:
        return [None]
    if ref.family is not None:
        members = [n for n, s in suites.items() if s.family == ref.family]
        if not members:
            ran = ", ".join(sorted({s.family for s in suites.values()})) or "none"
            raise GateSpecError(f"{ref.text!r}: no suite of family {ref.family} ran in this session "
                                f"(families that ran: {ran})")
    elif ref.suite == "*":
        members = list(suites)
    else:
        if ref.suite not in suites:
            raise GateSpecError(f"{ref.text!r}: no suite named {ref.suite!r} ran in this session"
                                f"{did_you_mean(str(ref.suite), suites)}; suites: "
                                f"{', '.join(sorted(suites)) or 'none'}")
        members = [ref.suite]
    have = [n for n in members if suites[n].has(ref.metric)]
    if not have:
        candidates = {m for n in members for m in suites[n].metrics}
        raise GateSpecError(f"unknown metric {ref.text!r}{did_you_mean(ref.metric, candidates)}; "
                            f"valid names for {valid_names(results, ref)}")
    return list(have)


def evaluate(cfg: GateConfig, results: Results, records: list[Record]) -> GateReport:
    report = GateReport(alpha=cfg.alpha)
    errors: list[str] = []
    resolved: list[tuple[Threshold, list[str | None]]] = []
    for th in cfg.thresholds:
        try:
            resolved.append((th, resolve(th.ref, results)))
        except GateSpecError as exc:
            errors.append(str(exc))
    drop_targets: list[tuple[str | None, str]] = []
    if cfg.baseline is not None:
        drop_targets = _compared_metrics(cfg, results, report, errors)
    if errors:
        report.error = "\n".join(dict.fromkeys(errors))  # one line per problem
        return report
    for th, targets in resolved:
        for suite in targets:
            report.results.append(_check_threshold(th, suite, results))
    if cfg.baseline is not None:
        _compare(cfg, results, records, drop_targets, report)
    return report


def _family(results: Results, suite: str | None) -> str | None:
    """The family of a suite of the run (None for the totals)."""
    found = None if suite is None else results.suite(suite)
    return None if found is None else found.family


def _check_threshold(th: Threshold, suite: str | None, results: Results) -> GateResult:
    value = _number(results.figure(suite, th.ref.metric))
    broad = th.ref.family is not None or th.ref.suite == "*"  # one spec, several suites
    op = th.op
    if op == "=":  # the direction the suite's family declares for the metric
        op = "<=" if lower_is_better(th.ref.metric, _family(results, suite)) else ">="
    res = GateResult("threshold", suite, th.ref.metric, value, True, spec=th.text if broad else "",
                     op=op, threshold=th.value)
    if value is None:
        res.passed, res.reason = False, "no value (n/a): nothing was measured"
    elif op == ">=" and value < th.value - EPS:
        res.passed, res.reason = False, f"below the required {th.value:g}"
    elif op == "<=" and value > th.value + EPS:
        res.passed, res.reason = False, f"above the allowed {th.value:g}"
    return res


def _compared_metrics(cfg: GateConfig, results: Results, report: GateReport,
                      errors: list[str]) -> list[tuple[str | None, str]]:
    """Default metrics (turn, goal of the totals and of each suite) plus those in --tom-max-drop."""
    base_suites = cfg.baseline.results.suite_names if cfg.baseline else []
    targets: list[tuple[str | None, str]] = [(None, m) for m in DEFAULT_COMPARED]
    for name in results.suite_names:
        if name in base_suites:
            targets += [(name, m) for m in DEFAULT_COMPARED]
        else:
            report.notes.append(f"suite {name} is not in the baseline: nothing to compare it with")
    for name in base_suites:
        if results.suite(name) is None:
            report.notes.append(f"suite {name} of the baseline did not run in this session")
    for ref, _value in cfg.drops.overrides:
        try:
            targets += [(suite, ref.metric) for suite in resolve(ref, results)]
        except GateSpecError as exc:
            errors.append(str(exc))
    return list(dict.fromkeys(targets))


def _scope(suite: str | None, metric: str, select: Any = None) -> Any:
    """Which current records a metric is about (for the paired test): those of its suite
    and tag, and those a declared metric selects."""
    tag = metric.split(".")[1] if metric.startswith("tag.") and metric.count(".") >= 2 else None

    def keep(rec: Record) -> bool:
        view = RecordView(rec)
        if suite is not None and view.suite != suite:
            return False
        if select is not None and not select(rec):
            return False
        return tag is None or tag in view.tags

    return keep


def _grouped_p(decl: Metric, before: list[Record], now: list[Record],
               suite: str) -> float | None:
    """A declared grouped metric's paired bootstrap p-value over the units both runs have,
    on their shared items (the test `pytest-tom compare` shows); None without shared units."""
    def key(rec: Record) -> tuple[str, str]:
        return RecordView(rec).key

    mine = [r for r in now if RecordView(r).suite == suite]
    theirs = [r for r in before if RecordView(r).suite == suite]
    shared = {key(r) for r in mine} & {key(r) for r in theirs}
    sa = decl.summaries([r for r in theirs if key(r) in shared])
    sb = decl.summaries([r for r in mine if key(r) in shared])
    units = sorted(set(sa) & set(sb), key=str)
    if not units or decl.finish is None:
        return None
    return paired_bootstrap([(sa[u], sb[u]) for u in units], decl.finish,
                            derive_seed(0, "gate", suite, decl.name), RESAMPLES).p_value


def _compare(cfg: GateConfig, results: Results, records: list[Record],
             targets: list[tuple[str | None, str]], report: GateReport) -> None:
    assert cfg.baseline is not None
    base = cfg.baseline
    before_results = base.results
    pairing: Pairing = pair_records(base.records, records)
    overall = pairing.changes()
    report.diff = ItemDiff(new=pairing.new, removed=pairing.removed, newly_wrong=overall.worse,
                           newly_right=overall.better, incomparable=overall.incomparable,
                           paired=overall.paired)
    _note_families(before_results, results, report)
    for suite, metric in targets:
        current = _number(results.figure(suite, metric))
        before = _number(before_results.figure(suite, metric))
        family = _family(results, suite)
        # a metric its family declares is tested on the items it selects; a grouped one by
        # the paired bootstrap over its units, as `pytest-tom compare` tests it
        decl = declared(family, metric)
        cmp: Comparison = pairing.changes(_scope(suite, metric, decl and decl.select),
                                          measured=not is_core(metric), suite=suite)
        p_value, test = cmp.p_value, "McNemar"
        if decl is not None and decl.kind == GROUPED and suite is not None:
            grouped = _grouped_p(decl, base.records, records, suite)
            if grouped is not None:
                p_value, test = grouped, "paired bootstrap"
        res = GateResult("baseline", suite, metric, current, True,
                         baseline=before, allowed=cfg.drops.allowed(suite, family, metric),
                         p_value=p_value, newly_wrong=len(cmp.worse),
                         newly_right=len(cmp.better), paired=cmp.paired, test=test,
                         detectable_items=smallest_significant(cmp.paired, cfg.alpha)
                         if test == "McNemar" else None)
        report.results.append(_judge_drop(res, cfg.alpha, family))
        # warn when the allowed drop (--tom-max-drop) is below what the gate can see; with
        # the default 0 (any significant drop fails) only when a material drop (5 points or
        # more) went unseen, or every default gate on a few hundred items would warn
        worse = _worsening(res, family) or 0.0
        unseen = worse >= MATERIAL_DROP and (res.detectable is None or worse < res.detectable)
        if res.underpowered and (res.allowed > EPS or unseen):
            report.notes.append(f"warning: {res.label}: {power_text(res, cfg.alpha)}, more than the allowed "
                                f"drop {res.allowed:.4g} (--tom-max-drop): a drop of that size "
                                f"passes this gate unnoticed; more shared items or a larger "
                                f"--tom-alpha make it detectable")


MATERIAL_DROP = 0.05  # a drop the default gate (allowed 0) warns about when it cannot see it


def power_text(res: GateResult, alpha: float) -> str:
    """`smallest detectable drop 0.857 (6 of 7 shared items newly wrong, none newly right,
    alpha 0.05)`: no drop smaller than that can be significant in the paired test. Empty for
    a gate tested by the paired bootstrap (its power is not a count of items)."""
    if res.kind != "baseline" or res.test != "McNemar":
        return ""
    if not res.paired:
        return "no shared items: the paired test cannot detect any drop"
    if res.detectable is None:
        return (f"no detectable drop: even all {res.paired} shared items newly wrong would not be "
                f"significant at alpha {alpha:g}")
    return (f"smallest detectable drop {res.detectable:.3g} ({res.detectable_items} of "
            f"{res.paired} shared items newly wrong, none newly right, alpha {alpha:g})")


def _worsening(res: GateResult, family: str | None) -> float | None:
    """How much worse the metric got (its direction taken into account); None when n/a."""
    if res.current is None or res.baseline is None:
        return None
    worsening = res.current - res.baseline
    return worsening if lower_is_better(res.metric, family) else -worsening


def _judge_drop(res: GateResult, alpha: float, family: str | None = None) -> GateResult:
    if res.baseline is None:
        res.reason = "the baseline has no value: nothing to compare"
        return res
    if res.current is None:
        res.passed, res.reason = False, "no value (n/a) in this run, the baseline has one"
        return res
    worsening = _worsening(res, family)
    assert worsening is not None
    assert res.allowed is not None and res.p_value is not None
    too_large = worsening > res.allowed + EPS
    # alpha 1 turns the test off; otherwise the change must be significant and for the worse
    significant = alpha >= 1 or (res.p_value <= alpha and res.newly_wrong > res.newly_right)
    if too_large and significant:
        res.passed = False
        res.reason = ("drop larger than allowed" if alpha >= 1
                      else "drop larger than allowed and significant")
    elif too_large and res.newly_wrong <= res.newly_right:
        res.reason = (f"worse by {worsening:.4g}, but the shared items did not get worse "
                      f"({res.newly_wrong} newly wrong, {res.newly_right} newly right)")
    elif too_large:
        res.reason = (f"worse by {worsening:.4g}, but not significant "
                      f"(p {res.p_value:.3g} > alpha {alpha:g})")
    return res


def _note_families(base: Results, results: Results, report: GateReport) -> None:
    for name, suite in results.suites.items():
        other = base.suite(name)
        if other and other.family != suite.family:
            report.notes.append(f"suite {name}: family {suite.family} here, "
                                f"{other.family} in the baseline")


def settings_notes(base: RunReport, settings: ReportSettings | SettingsJSON) -> list[str]:
    """Differences of method, seed, temperature ... between the baseline and this run."""
    before, now = base.settings, ReportSettings.of(settings)
    notes = []
    for key, then, here in before.scoring_differences(now):
        notes.append(f"the baseline used {key} {then!r}, this run {here!r}")
    length_noted = False
    if before.has("max_tokens") and sent_text(before.data) != sent_text(now.data) and (
            before.max_tokens != now.max_tokens
            or (before.has("answer_length") and now.has("answer_length"))):
        notes.append(f"the baseline used {sent_text(before.data)}, this run "
                     f"{sent_text(now.data)}")
        length_noted = True
    # what the model was asked, field by field (results/asked.py): the field is named
    for name, a, b in asked_differences(before.asked, now.asked):
        if length_noted and name.startswith(("settings.asked.max_tokens",
                                             "settings.asked.answer_tokens")):
            continue  # said above in words
        notes.append("the baseline was asked differently: "
                     + difference_text(name, a, b, "the baseline", "this run"))
    if base.model and base.model != now.model:
        notes.append(f"baseline model {base.model}, this run {now.model}")
    errors = int(base.results.totals.errors or 0)
    if errors:  # saved before baselines of errors were refused, or written by hand
        notes.append(f"warning: the baseline holds {errors} of {base.results.totals.items} "
                     f"item(s) that errored (no answer was scored): they count as wrong there, "
                     f"so this run is compared with less than the model's answers; save a "
                     f"baseline from a run without errors")
    return notes


# -- what the run's end found (kept by the session) ----------------------------------------
@dataclass
class GateState:
    """Kept by the session: the configuration, then what the end of the run found."""

    config: GateConfig
    report: GateReport | None = None
    not_evaluated: str = ""  # why the gates were not evaluated
    written: list[str] = field(default_factory=list)  # lines such as "baseline saved to X"
