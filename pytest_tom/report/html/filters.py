"""Jinja2 filters of the HTML report: numbers as the other reports print them."""

from __future__ import annotations

from typing import Any

from pytest_tom.asking.answer_length import sent_text
from pytest_tom.metrics import numbers
from pytest_tom.metrics.intervals import PairedDiff
from pytest_tom.report.compare_text import diff_cell, run_cell, significant, value_cell
from pytest_tom.report.terminal import cut_off_text
from pytest_tom.results.asked import shown
from pytest_tom.results.run_report import ReportSettings


def pct(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "n/a" if value is None else str(value)
    return numbers.pct(value)


def figure(iv: dict[str, Any]) -> str:
    """An interval's value as its metric is shown: percent, or an amount (reasoning tokens)."""
    value = iv.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "n/a" if value is None else str(value)
    return numbers.figure(value, str(iv.get("display") or numbers.PERCENT))


def num(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def interval(iv: dict[str, Any] | None) -> str:
    return numbers.fmt_interval(iv)


def method(iv: dict[str, Any] | None) -> str:
    if not iv:
        return ""
    if iv.get("method") == "bootstrap":
        return f"bootstrap over {iv.get('n')} groups ({iv.get('resamples')} resamples)"
    unit = "groups" if "groups" in str(iv.get("method")) else "items"
    return f"{iv.get('method')} ({iv.get('n')} {unit})"


def p_value(d: PairedDiff | None) -> str:
    if not d or d.p_value is None:
        return ""
    p = d.p_value
    return f"{p:.2g}" if p >= 0.001 else "<0.001"


def settings_text(settings: ReportSettings | dict[str, Any]) -> str:
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


def ratio_interval(level: dict[str, Any]) -> str:
    low, high = level.get("low"), level.get("high")
    return "" if low is None or high is None else f"[{low:.2f}, {high:.2f}]"


def quartile_html(q: dict[str, Any]) -> str:
    """`100–111: 84.4% [78.0, 89.2] (160)`; an empty quartile: `—`."""
    if not q.get("judged"):
        return "—"
    iv = numbers.fmt_interval({"low": q.get("ci_low"), "high": q.get("ci_high")})
    return (f"{numbers.amount(q.get('low'))}–{numbers.amount(q.get('high'))}: "
            f"{numbers.pct(q.get('accuracy'))} {iv} ({q['judged']})")


FILTERS = {"pct": pct, "figure": figure, "num": num, "interval": interval, "method": method,
           "value_cell": value_cell, "diff_cell": diff_cell, "p_value": p_value,
           "significant": significant, "settings_text": settings_text, "run_cell": run_cell,
           "asked_value": shown, "amount": numbers.amount, "times": times,
           "ratio_interval": ratio_interval, "quartile_html": quartile_html,
           "cut_off_text": cut_off_text}
