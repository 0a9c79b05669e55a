"""The `tom gates` section of the terminal summary: one line per gate (red when it
failed), the items that changed since the baseline, and the files written."""

from __future__ import annotations

from typing import Any

from pytest_tom.gates.evaluate import GateReport, GateResult, GateState, ItemDiff, power_text
from pytest_tom.pytest_compat import count_in_last_line

SHOWN = 10  # item ids listed per kind of change in the terminal


def num(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return f"{value:.3f}"


def signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.3f}"


def p_text(p: float | None) -> str:
    return "n/a" if p is None else f"{p:.4g}"


def tested(r: GateResult) -> str:
    """What the p-value of a baseline gate tests: the McNemar test is of the paired items'
    right/wrong (not of the metric's value: a goal accuracy can stay put while many items
    flip); the paired bootstrap is of the metric itself, over its units."""
    if r.test == "McNemar":
        return f"McNemar test of the {r.paired} paired items' right/wrong"
    return f"{r.test} of {r.metric} over its units ({r.paired} paired items)"


def within_allowed_note(r: GateResult, alpha: float) -> str:
    """For a baseline gate that passed although its items got significantly worse: why."""
    worse = r.p_value is not None and r.p_value <= alpha < 1 and r.newly_wrong > r.newly_right
    if r.kind != "baseline" or not r.passed or not worse or r.reason:
        return ""
    return f"the items got significantly worse, but {r.metric} did not drop by more than allowed"


def gate_line(r: GateResult, alpha: float) -> str:
    """`FAILED totals:goal  baseline 0.950  current 0.850  delta -0.100 ...  McNemar test of
    the 500 paired items' right/wrong: p 0.002 ...`"""
    head = "passed" if r.passed else "FAILED"
    reason = r.reason
    if r.kind == "threshold":
        text = (f"{head} {r.label}  required {r.op} {r.threshold:g}  current {num(r.current)}  "
                f"delta {signed(r.delta)}  p n/a (threshold)")
        if r.spec:
            text += f"  [from {r.spec}]"
    else:
        test = "test off (alpha 1)" if alpha >= 1 else f"alpha {alpha:g}"
        text = (f"{head} {r.label}  baseline {num(r.baseline)}  current {num(r.current)}  "
                f"delta {signed(r.delta)} (allowed drop {num(r.allowed)})  "
                f"{tested(r)}: p {p_text(r.p_value)} ({r.newly_wrong} newly wrong / "
                f"{r.newly_right} newly right, {test})")
        power = power_text(r, alpha)
        if power:
            text += f"  {power}"
        reason = reason or within_allowed_note(r, alpha)
    if reason:
        text += f"  -- {reason}"
    return text


def diff_lines(diff: ItemDiff, shown: int = SHOWN) -> list[str]:
    lines = [f"items since the baseline: {diff.paired} paired, {len(diff.newly_wrong)} newly wrong, "
             f"{len(diff.newly_right)} newly right, {len(diff.new)} new, {len(diff.removed)} removed"
             + (f", {len(diff.incomparable)} judged in one run only" if diff.incomparable else "")]
    for title, keys in (("newly wrong", diff.newly_wrong), ("newly right", diff.newly_right),
                        ("new", diff.new), ("removed", diff.removed),
                        ("judged in one run only", diff.incomparable)):
        for suite, item in keys[:shown]:
            lines.append(f"  {title}: {suite}::{item}")
        if len(keys) > shown:
            lines.append(f"  ... and {len(keys) - shown} more {title} (all of them: --tom-markdown)")
    return lines


def write_gates(tr: Any, state: GateState) -> None:
    report: GateReport | None = state.report
    if report is None and not state.not_evaluated and not state.written:
        return
    if report is not None or state.not_evaluated:
        tr.write_sep("=", "tom gates")
    if state.not_evaluated:
        tr.write_line(f"tom gates: {state.not_evaluated}", yellow=True)
    if report is not None:
        for note in report.notes:
            warning = note.startswith("warning: ")
            tr.write_line(note if warning else f"note: {note}",
                          yellow=warning or note.startswith("the gates judged a subset"))
        if report.error:
            for line in report.error.splitlines():
                tr.write_line(f"tom gates: usage error: {line}", red=True, bold=True)
            count_in_last_line(tr, "tom gate usage error", [report])
        else:
            if report.diff is not None:
                for line in diff_lines(report.diff):
                    tr.write_line(line)
            for r in sorted(report.results, key=lambda r: not r.passed):
                tr.write_line(gate_line(r, report.alpha), red=not r.passed, green=r.passed)
            failed, total = len(report.failed), len(report.results)
            if failed:
                tr.write_line(f"tom gates: {failed} of {total} failed", red=True, bold=True)
                # and in pytest's last line: "490 passed, 10 xfailed, 2 tom gates failed"
                key = "tom gate failed" if failed == 1 else "tom gates failed"
                count_in_last_line(tr, key, report.failed)
            else:
                tr.write_line(f"tom gates: all {total} passed", green=True, bold=True)
    for line in state.written:
        tr.write_line(line)
