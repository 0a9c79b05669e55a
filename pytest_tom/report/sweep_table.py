"""A `--tom-sweep` run's figures per value, side by side, for the terminal, the Markdown
and the HTML: one table per suite of the file (a row per figure, a column per value) and
one line per pair of adjacent values with its paired tests. The figures are those of the
report's `sweep` block (`results.reasoning.sweep_results`); this module only formats them."""

from __future__ import annotations

from typing import Any

from pytest_tom import families
from pytest_tom.families.base import MetricTable
from pytest_tom.metrics.intervals import MetricInterval
from pytest_tom.metrics.numbers import (
    AMOUNT,
    amount,
    fmt_interval,
    pct,
    signed_amount,
    unit,
    with_interval,
)
from pytest_tom.results.reasoning.sweep_results import ANSWERED_LABEL
from pytest_tom.results.results import SweepSuite, SweepView

COUNTS = (("items", "items"), ("right", "right"), ("wrong", "wrong"),
          ("unparseable", "unparseable"), ("cut_off", "cut off"), ("errors", "errors"))


def metric_cell(iv: MetricInterval | None, family: str | None, name: str) -> str:
    """A metric with its interval, on the scale its suite's tables show it."""
    if not iv:
        return "—"
    if iv.display == AMOUNT:
        return f"{amount(iv.value)} {fmt_interval(iv)}".strip()
    percent = families.in_percent(family, name)
    show = pct if percent else unit
    return f"{show(iv.value)} {fmt_interval(iv, percent)}".strip()


def _value(iv: MetricInterval | None) -> float | None:
    return iv.value if iv is not None else None


def _count(value: Any) -> str:
    return "n/a" if value is None else str(value)


def sweep_tables(sweep: SweepView, every: bool = True) -> list[MetricTable]:
    """One table per suite: the counts, turn accuracy, the accuracy on the answered items,
    the thought length and reasoning tokens, then every declared metric (`every`; else
    the headline ones) with its interval."""
    out = []
    setting = sweep.setting
    for block in sweep.suites:
        rows_of = block.rows
        headers = ["", *(f"{setting}={r.shown_value}" for r in rows_of)]
        family = next((r.family for r in rows_of if r.family), None)
        rows: list[list[str]] = [[label, *(_count(r.get(key)) for r in rows_of)]
                                 for key, label in COUNTS]
        rows.append(["turn accuracy [95% CI]",
                     *(metric_cell(r.interval("turn"), family, "turn")
                       if r.interval("turn") else pct(r.turn) for r in rows_of)])
        rows.append([f"{ANSWERED_LABEL} [95% CI] (answered)",
                     *(with_interval(pct(_value(r.answered_accuracy)), r.answered_accuracy)
                       + f" ({r.answered})" for r in rows_of)])
        unit_name = next((r.thought_unit for r in rows_of if r.thought_unit), "")
        if unit_name:
            rows.append([f"thought length, mean ({unit_name})",
                         *(amount(r.thought_mean) for r in rows_of)])
            rows.append([f"thought length, median ({unit_name})",
                         *(amount(r.thought_median) for r in rows_of)])
        if any(r.reasoning_tokens is not None for r in rows_of):
            rows.append(["reasoning tokens (reported, all items)",
                         *(_count(r.reasoning_tokens) for r in rows_of)])
        names: list[str] = []
        for r in rows_of:
            for name, iv in r.intervals.items():
                if name not in names and name != "turn" and (every or iv.headline):
                    names.append(name)
        for name in names:
            label = next((iv.label for iv in (r.interval(name) for r in rows_of) if iv),
                         None) or name
            rows.append([f"{label} [95% CI]",
                         *(metric_cell(r.interval(name), family, name) for r in rows_of)])
        out.append(MetricTable(title=f"{block.name} · sweep of {setting}", headers=headers,
                               rows=rows))
    return out


def paired_lines(block: SweepSuite) -> list[str]:
    """`16 → 4096: turn +36.0 points (9 better, 0 worse of 25; McNemar p 0.0039) · mean
    thought +120 tokens [80, 160] (p 0.001, 20 items)`, one per pair of adjacent values."""
    out = []
    for pair in block.paired:
        turn = pair.turn
        head = f"{pair.first} → {pair.second}: "
        if turn is not None and turn.n and turn.delta is not None:
            text = (f"turn {100 * turn.delta:+.1f} points ({turn.better} better, "
                    f"{turn.worse} worse of {turn.n} paired items; McNemar p "
                    f"{_p(turn.p_value)})")
        else:
            text = "no item asked at both values"
        thought = pair.thought_mean
        if thought is not None and thought.delta is not None:
            bounds = (f" [{signed_amount(thought.low)}, {signed_amount(thought.high)}]"
                      if thought.low is not None else "")
            text += (f" · mean thought {signed_amount(thought.delta)} {thought.unit}"
                     f"{bounds} (paired bootstrap p {_p(thought.p_value)}, "
                     f"{thought.items} items answered at both)")
        elif thought is not None or (turn is not None and turn.n):
            text += " · mean thought: no item answered at both values"
        out.append(head + text)
    return out


def _p(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.2g}" if value >= 0.001 else f"{value:.1e}"
