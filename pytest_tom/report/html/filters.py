"""Jinja2 filters of the HTML report: numbers as the other reports print them."""

from __future__ import annotations

from typing import Any

from pytest_tom.asking.answer_length import sent_text
from pytest_tom.metrics import numbers
from pytest_tom.metrics.intervals import Interval, MetricInterval, PairedDiff
from pytest_tom.report.compare_text import diff_cell, run_cell, significant, value_cell
from pytest_tom.report.terminal import cut_off_text
from pytest_tom.results.asked import shown
from pytest_tom.results.results import ConditionQuartile, Level
from pytest_tom.results.run_report import ReportSettings, SettingsJSON


def pct(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "n/a" if value is None else str(value)
    return numbers.pct(value)


def figure(iv: MetricInterval) -> str:
    """An interval's value as its metric is shown: percent, or an amount (reasoning tokens)."""
    value = iv.value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "n/a" if value is None else str(value)
    return numbers.figure(value, iv.display or numbers.PERCENT)


def num(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def interval(iv: Interval | None) -> str:
    return numbers.fmt_interval(iv)


def method(iv: Interval | None) -> str:
    if not iv:
        return ""
    if iv.method == "bootstrap":
        return f"bootstrap over {iv.n} groups ({iv.resamples} resamples)"
    unit = "groups" if "groups" in iv.method else "items"
    return f"{iv.method} ({iv.n} {unit})"


def p_value(d: PairedDiff | None) -> str:
    if not d or d.p_value is None:
        return ""
    p = d.p_value
    return f"{p:.2g}" if p >= 0.001 else "<0.001"


def settings_text(settings: ReportSettings | SettingsJSON) -> str:
    """`method vanilla · seed 0 · temperature 0.0 · max_tokens 64 per answer (...)`: the
    answer length as it was sent, not `max_tokens None`; every setting the report holds."""
    data = ReportSettings.of(settings).data
    parts = []
    for key, value in data.items():
        if key in ("model", "backend", "answer_length", "asked"):  # asked: the same, as fields
            continue
        parts.append(sent_text(data) if key == "max_tokens" else f"{key} {value}")
    return " · ".join(parts)


def times(value: Any) -> str:
    """A ratio of two means: `×2.30`."""
    return "n/a" if value is None else f"×{float(value):.2f}"


def ratio_interval(level: Level) -> str:
    low, high = level.low, level.high
    return "" if low is None or high is None else f"[{low:.2f}, {high:.2f}]"


def quartile_html(q: ConditionQuartile) -> str:
    """`100–111: 84.4% [78.0, 89.2] (160)`; an empty quartile: `—`."""
    if not q.judged:
        return "—"
    return (f"{numbers.amount(q.low)}–{numbers.amount(q.high)}: "
            f"{numbers.pct(q.accuracy)} {numbers.fmt_interval(q.interval)} ({q.judged})")


FILTERS = {"pct": pct, "figure": figure, "num": num, "interval": interval, "method": method,
           "value_cell": value_cell, "diff_cell": diff_cell, "p_value": p_value,
           "significant": significant, "settings_text": settings_text, "run_cell": run_cell,
           "asked_value": shown, "amount": numbers.amount, "times": times,
           "ratio_interval": ratio_interval, "quartile_html": quartile_html,
           "cut_off_text": cut_off_text}
