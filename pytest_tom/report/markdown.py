"""`--tom-markdown PATH`: a Markdown summary of the run, fit for a CI job summary
(GitHub's `$GITHUB_STEP_SUMMARY`, a merge-request comment ...).

Gates first (what decided the exit status), then scores per suite, then the
items that changed since the baseline. Written once, atomically.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_tom.core.record import Record
from pytest_tom.gates.evaluate import GateReport, ItemDiff, power_text
from pytest_tom.metrics.intervals import MetricInterval
from pytest_tom.metrics.numbers import PERCENT, figure, fmt_interval, pct, with_interval
from pytest_tom.report.atomic import write_atomic
from pytest_tom.report.gate_summary import tested, within_allowed_note
from pytest_tom.report.markdown_items import by_key, flipped_lines, weakest_lines
from pytest_tom.report.probe_table import not_applicable_lines, probe_tables
from pytest_tom.report.sweep_table import paired_lines, sweep_tables
from pytest_tom.results.results import OUTCOME_COUNTS, Results
from pytest_tom.results.run_report import ReportSettings, SettingsJSON
from pytest_tom.results.token_usage import EndpointUsage, usage_by_endpoint

LISTED = 200  # item ids listed per kind of change


def cell(value: Any) -> str:
    """A table cell: one line, pipes escaped."""
    text = "" if value is None else str(value)
    return " ".join(text.split()).replace("|", "\\|")


def table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(cell(h) for h in headers) + " |",
           "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return out


def num(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def code(text: str) -> str:
    return "`" + text.replace("`", "'") + "`"


def gate_rows(report: GateReport) -> list[list[Any]]:
    rows = []
    for r in sorted(report.results, key=lambda r: r.passed):
        if r.kind == "threshold":
            ref = f"{r.op} {num(r.threshold)}"
            allowed, p = "", "n/a"
        else:
            ref = num(r.baseline)
            allowed = num(r.allowed)
            p = "n/a" if r.p_value is None else f"{r.p_value:.4g}"
            p += f" ({tested(r)}: {r.newly_wrong} worse / {r.newly_right} better)"
        delta = "n/a" if r.delta is None else f"{r.delta:+.3f}"
        note = (r.reason or within_allowed_note(r, report.alpha)) + (
            f" [from {r.spec}]" if r.spec else "")
        power = power_text(r, report.alpha) if r.baseline is not None else ""
        if power:
            note = f"{note}; {power}" if note else power
        rows.append(["❌ fail" if not r.passed else "✅ pass", code(r.label), r.kind, ref,
                     num(r.current), delta, allowed, p, note])
    return rows


def gates_section(report: GateReport) -> list[str]:
    lines = ["### Gates", ""]
    for note in report.notes:
        lines.append(f"- **{note}**" if note.startswith("warning: ") else f"- note: {note}")
    if report.notes:
        lines.append("")
    if report.error:
        return [*lines, "**Usage error:**", "",
                *(f"- {cell(line)}" for line in report.error.splitlines()), ""]
    lines += table(["", "metric", "gate", "baseline / required", "current", "delta",
                    "allowed drop", "p-value (what it tested)", "note"], gate_rows(report))
    if report.results and any(r.kind == "baseline" for r in report.results):
        test = "off (alpha 1)" if report.alpha >= 1 else f"alpha {report.alpha:g}"
        lines += ["", f"A baseline gate fails when the metric dropped by more than allowed and "
                  f"the change of its items is significant ({test}): the exact McNemar test of "
                  f"the paired items' right/wrong, or for a declared grouped metric the paired "
                  f"bootstrap of the metric itself."]
    return [*lines, ""]


def intervals_table(intervals: dict[str, MetricInterval]) -> list[str]:
    rows = [[cell(iv.label), code(name), figure(iv.value, iv.display or PERCENT),
             fmt_interval(iv),
             iv.method + (f" ({iv.n} groups, {iv.resamples} resamples)"
                          if iv.method == "bootstrap" else
                          f" ({iv.n} {'groups' if 'groups' in iv.method else 'items'})")]
            for name, iv in intervals.items()]
    return table(["metric", "name", "value", "95% interval", "method"], rows) if rows else []


def endpoints_section(endpoints: Mapping[str, EndpointUsage]) -> list[str]:
    """Requests, failures and retries moved elsewhere per endpoint (several endpoints of
    one model, `--tom-base-url "URL URL"`); nothing otherwise. URLs are redacted."""
    if not endpoints:
        return []
    rows = [[code(name), c.requests, c.failures, c.moved]
            for name, c in endpoints.items()]
    return ["### Endpoints", ""] + table(["endpoint", "requests", "failures", "moved elsewhere"],
                                         rows) + ["", "moved elsewhere: failures whose retry "
                                                      "went to another endpoint", ""]


def suites_section(results: Results) -> list[str]:
    rows = []
    # answers cut off by the budget: a column of their own when the run has any
    cut = any(s.counts.cut_off for s in results.suites.values())
    for name, s in results.suites.items():
        m = s.counts
        rows.append([code(name), s.family, m.items,
                     with_interval(pct(m.turn), s.interval("turn")),
                     with_interval(f"{pct(m.goal)} ({m.groups_correct}/{m.groups})",
                                   s.interval("goal")),
                     m.errors, m.unparseable, *([m.cut_off] if cut else []),
                     pct(m.parse_failure_rate)])
    lines = ["### Suites", ""]
    lines += table(["suite", "family", "items", "turn acc [95% CI]", "goal acc [95% CI]",
                    "errors", "unparseable", *(["cut off"] if cut else []), "parse failures"],
                   rows)
    lines.append("")
    if any(s.intervals for s in results.suites.values()):
        lines += ["Intervals: Wilson for item accuracies, seeded bootstrap over groups "
                  "(scenarios, sets, sceneries) for grouped metrics; see docs/gating.md.", ""]
    for name, s in results.suites.items():
        lines += [f"<details><summary>{cell(name)}: every metric</summary>", ""]
        intervals = s.intervals
        if intervals:
            lines += ["**95% intervals**", ""] + intervals_table(intervals) + [""]
        lines += table(["metric", "value"], [[code(k), num(v)] for k, v in s.metrics.items()])
        for t in s.tables:
            lines += ["", f"**{cell(t.title)}**", ""]
            if t.caption:  # the scale of the numbers, stated once
                lines += [cell(t.caption), ""]
            lines += table(t.headers, [[num(c) for c in row] for row in t.rows])
            if t.note:
                lines += ["", cell(t.note)]
        lines += ["", "</details>", ""]
    return lines


def sweep_section(results: Results) -> list[str]:
    """--tom-sweep: each suite's values side by side, every declared metric with its
    interval, and the paired tests between adjacent values (none without a sweep)."""
    sweep = results.sweep
    if not sweep:
        return []
    lines = [f"### Sweep of {code(sweep.setting)}", ""]
    for block, t in zip(sweep.suites, sweep_tables(sweep), strict=True):
        lines += [f"**{cell(t.title)}**", ""]
        lines += table(t.headers, t.rows)
        pairs = paired_lines(block)
        if pairs:
            lines += ["", "Paired tests between adjacent values, on the items both asked:", ""]
            lines += [f"- {cell(p)}" for p in pairs]
        lines.append("")
    return lines


def probe_section(results: Results) -> list[str]:
    """--tom-probe: each suite's probes beside its base with the paired tests, the no-story
    test against chance and the shuffle's consistency and position bias (none without)."""
    block = results.probes
    if block is None:
        return []
    lines = ["### Shortcut probes", ""]
    for t, notes in probe_tables(block):
        lines += [f"**{cell(t.title)}**", ""]
        lines += table(t.headers, t.rows)
        if notes:
            lines += [""] + [f"- {cell(n)}" for n in notes]
        lines.append("")
    skipped = not_applicable_lines(block)
    if skipped:
        lines += ["Probes not taken (no copy of these items):", ""]
        lines += [f"- {cell(n)}" for n in skipped] + [""]
    return lines


def diff_section(diff: ItemDiff, listed: int = LISTED, records: list[Record] | None = None,
                 baseline_items: list[Record] | None = None) -> list[str]:
    lines = ["### Items changed since the baseline", "",
             f"{diff.paired} paired · {len(diff.newly_wrong)} newly wrong · "
             f"{len(diff.newly_right)} newly right · {len(diff.new)} new · "
             f"{len(diff.removed)} removed"
             + (f" · {len(diff.incomparable)} judged in one run only" if diff.incomparable else ""),
             ""]
    flips: tuple[tuple[str, list[Any]], ...] = ()
    if records is not None and baseline_items is not None:  # told with question and answers

        before, now = by_key(baseline_items), by_key(records)
        for title, keys in (("newly wrong", diff.newly_wrong), ("newly right", diff.newly_right)):
            lines += flipped_lines(title, keys, before, now, cell, table)
        flips = (("newly wrong", diff.newly_wrong), ("newly right", diff.newly_right))
    for title, keys in (("newly wrong", diff.newly_wrong), ("newly right", diff.newly_right),
                        ("new", diff.new), ("removed", diff.removed),
                        ("judged in one run only", diff.incomparable)):
        if not keys or (title, keys) in flips:
            continue
        lines += [f"<details><summary>{title} ({len(keys)})</summary>", ""]
        lines += [f"- {code(f'{suite}::{item}')}" for suite, item in keys[:listed]]
        if len(keys) > listed:
            lines.append(f"- ... and {len(keys) - listed} more (see the JSON report)")
        lines += ["", "</details>", ""]
    return lines


def render(results: Results, report: GateReport | None,
           settings: ReportSettings | SettingsJSON, exitstatus: int | None = None,
           records: list[Record] | None = None,
           baseline_items: list[Record] | None = None,
           endpoints: Mapping[str, EndpointUsage] | None = None) -> str:
    """The Markdown summary. `endpoints`: the run's counts per endpoint when the caller
    has them (`token_usage.request_usage`, made once at the end of a run), else read
    from `records`."""
    s = ReportSettings.of(settings)
    t = results.totals
    lines = [f"## pytest-tom: {cell(s.model)}", ""]
    if report is None:
        verdict = "no gates configured"
    elif report.error:
        verdict = "❌ **gate usage error**"
    elif report.failed:
        verdict = f"❌ **{len(report.failed)} of {len(report.results)} gates failed**"
    else:
        verdict = f"✅ all {len(report.results)} gates passed"
    if exitstatus is not None:
        verdict += f" · exit status {exitstatus}"
    lines += [verdict, "",
              f"method {code(s.method)} · seed {s.seed} · "
              f"temperature {s.temperature} · {t.items} items · "
              + with_interval(f"turn {pct(t.turn)}", results.total_interval("turn")) + " · "
              + with_interval(f"goal {pct(t.goal)} ({t.groups_correct}/{t.groups})",
                              results.total_interval("goal")) + " · "
              + " · ".join(f"{t.get(key)} {label}" for key, label, always in OUTCOME_COUNTS
                           if always or t.get(key)), ""]
    if report is not None:
        lines += gates_section(report)
    lines += suites_section(results)
    lines += sweep_section(results)
    lines += probe_section(results)
    lines += endpoints_section(usage_by_endpoint(records or []) if endpoints is None
                               else endpoints)
    if report is not None and report.diff is not None and not report.error:
        lines += diff_section(report.diff, records=records, baseline_items=baseline_items)
    elif records:  # no baseline: where the model is weakest
        lines += weakest_lines(records, table)
    return "\n".join(lines).rstrip() + "\n"


def write_markdown(path: str | Path, results: Results, report: GateReport | None,
                   settings: ReportSettings | SettingsJSON, exitstatus: int | None = None,
                   records: list[Record] | None = None,
                   baseline_items: list[Record] | None = None,
                   endpoints: Mapping[str, EndpointUsage] | None = None) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = render(results, report, settings, exitstatus, records, baseline_items, endpoints)
    write_atomic(path, text)
