"""How a number is shown in a table: one format across families.

Shares (accuracies, rates) are shown as percent with one decimal (`37.5%`). A family
whose paper reports another scale keeps it (OpenToM's macro-F1 on 0–1 with three
decimals, FANToM's scores as bare percent points) and says so once per table, in the
table's caption. The numbers themselves (metrics, JSON report) are never rounded here:
these functions only make the text of the terminal and Markdown summaries.

Families build their table cells with these functions (this module sits below the
families), and the report layer uses them for its own tables.
"""

from __future__ import annotations

from typing import Any

from pytest_tom.metrics.intervals import MIN_GROUPS, Interval, MetricInterval

NA = "n/a"
# how a metric is shown (`metrics.declare.Metric.display`): a share in percent, a score on
# 0–1, or an amount (a mean or median of a count, e.g. reasoning tokens, one decimal)
PERCENT = "percent"
UNIT_SCALE = "0-1"
AMOUNT = "amount"


def pct(value: float | None, na: str = NA) -> str:
    """A share as percent with one decimal: `37.5%`."""
    return na if value is None else f"{100 * value:.1f}%"


def pct_of(right: int, n: int, na: str = NA) -> str:
    """A share with its counts: `37.5% (3/8)`."""
    return na if n == 0 else f"{pct(right / n)} ({right}/{n})"


def tiny_pct(value: float | None, na: str = NA) -> str:
    """A share that may be far below 0.05% (a chance level such as 2^-16): one decimal
    still, `<0.1%`, with the exact value beside it, `<0.1% (1.5e-05)`."""
    if value is None:
        return na
    if 0 < value < 0.0005:
        return f"<0.1% ({value:.1e})"
    return pct(value)


def points(value: float | None, na: str = NA) -> str:
    """Percent points without the sign (a table whose caption says "in %"): `37.5`."""
    return na if value is None else f"{100 * value:.1f}"


def unit(value: float | None, na: str = NA) -> str:
    """A score on 0–1 with three decimals (a paper's own scale, e.g. macro-F1): `0.375`."""
    return na if value is None else f"{value:.3f}"


def signed_unit(value: float | None, na: str = NA) -> str:
    """A difference of two 0–1 scores: `+0.125`."""
    return na if value is None else f"{value:+.3f}"


def amount(value: float | None, na: str = NA) -> str:
    """A mean or median of a count (reasoning tokens, thought characters): `412.5`, and a
    whole number without decimals (`412`)."""
    if value is None:
        return na
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def signed_amount(value: float | None, na: str = NA) -> str:
    """A difference of two amounts: `+312.0`."""
    return na if value is None else f"{value:+.1f}"


def figure(value: float | None, display: str = PERCENT, na: str = NA) -> str:
    """A metric's value as its declaration shows it (`display`: percent, 0-1, amount)."""
    if display == AMOUNT:
        return amount(value, na)
    return unit(value, na) if display == UNIT_SCALE else pct(value, na)


def cell(value: Any) -> str:
    """A table cell as given by a family: text as is, a float on 0–1 (`unit`), a count."""
    if value is None:
        return NA
    if isinstance(value, float):
        return unit(value)
    return str(value)


def fmt_interval(iv: Interval | None, percent: bool = True, as_amount: bool = False) -> str:
    """A 95% interval: `[80.1, 86.2]` (percent points) or `[0.801, 0.862]`, or
    `[380.0, 450.5]` for an amount (`as_amount`, or a metric interval whose `display` is
    AMOUNT, as the report marks a mean of reasoning tokens); empty when there is none, and
    `(no interval: 1 group)` for a bootstrap over fewer than 2 groups."""
    if iv is None:
        return ""
    if iv.low is None and iv.method == "bootstrap" and iv.value is not None \
            and iv.n < MIN_GROUPS:
        return f"(no interval: {iv.n} group{'' if iv.n == 1 else 's'})"
    if iv.low is None or iv.high is None:
        return ""
    if as_amount or (isinstance(iv, MetricInterval) and iv.display == AMOUNT):
        return f"[{amount(iv.low)}, {amount(iv.high)}]"
    if percent:
        return f"[{points(iv.low)}, {points(iv.high)}]"
    return f"[{unit(iv.low)}, {unit(iv.high)}]"


def with_interval(text: str, iv: Interval | None) -> str:
    """`text [80.1, 86.2]`, or `text` alone when there is no interval."""
    bounds = fmt_interval(iv)
    return f"{text} {bounds}" if bounds else text
