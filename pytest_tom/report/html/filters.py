"""Jinja2 filters of the HTML report: numbers as the other reports print them."""

from __future__ import annotations

from typing import Any

from pytest_tom.compare.render import diff_cell, value_cell
from pytest_tom.engine.answer_length import sent_text
from pytest_tom.engine.headline import fmt_interval
from pytest_tom.metrics import numbers


def pct(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "n/a" if value is None else str(value)
    return numbers.pct(value)


def num(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def interval(iv: dict[str, Any] | None) -> str:
    return fmt_interval(iv)


def method(iv: dict[str, Any] | None) -> str:
    if not iv:
        return ""
    if iv.get("method") == "bootstrap":
        return f"bootstrap over {iv.get('n')} groups ({iv.get('resamples')} resamples)"
    unit = "groups" if "groups" in str(iv.get("method")) else "items"
    return f"{iv.get('method')} ({iv.get('n')} {unit})"


def p_value(d: dict[str, Any] | None) -> str:
    if not d or d.get("p_value") is None:
        return ""
    p = d["p_value"]
    return f"{p:.2g}" if p >= 0.001 else "<0.001"


def significant(d: dict[str, Any] | None) -> bool:
    return bool(d and d.get("p_value") is not None and d["p_value"] < 0.05)


def settings_text(settings: dict[str, Any]) -> str:
    """`method vanilla · seed 0 · temperature 0.0 · max_tokens 64 per answer (...)`: the
    answer length as it was sent, not `max_tokens None`."""
    parts = []
    for key, value in settings.items():
        if key in ("model", "backend", "answer_length"):
            continue
        parts.append(sent_text(settings) if key == "max_tokens" else f"{key} {value}")
    return " · ".join(parts)


FILTERS = {"pct": pct, "num": num, "interval": interval, "method": method,
           "value_cell": value_cell, "diff_cell": diff_cell, "p_value": p_value,
           "significant": significant, "settings_text": settings_text}
