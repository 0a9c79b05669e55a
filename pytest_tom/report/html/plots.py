"""Static SVG plots for the HTML report, drawn with matplotlib (object API, Agg canvas: no
display, no global pyplot state, no network) and inlined into the page as text.

Every plot is a bar chart of one or more runs side by side with the 95% interval of
each bar as an error bar where the report has one: turn and goal accuracy, then the plots
a family declares with its metrics (`metrics.declare.Plot`), baselines drawn as dashed
lines. A suite whose records show reasoning also gets the turn accuracy of each quartile
of reasoning length against the quartile's median length, one line per run
(`reasoning_plot`). Each function takes the runs' suite results (`results.results.SuiteResult` per
run, None where a run lacks the suite) and returns SVG markup, or None when there is
nothing to draw.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

import matplotlib
from matplotlib.figure import Figure

from pytest_tom import families
from pytest_tom.metrics.declare import Metric, Plot
from pytest_tom.results.results import SuiteResult, SweepRow

SuiteData = SuiteResult | None
PALETTE = ("#3b6ea8", "#d08a2c", "#5a9e5a", "#b0504f", "#7d62a8", "#6d6d6d")
RC = {"svg.fonttype": "none", "font.size": 9, "axes.spines.top": False,
      "axes.spines.right": False, "svg.hashsalt": "pytest-tom"}



def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # drop the XML prolog and doctype: inline in HTML
    return re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)


def bars(title: str, labels: Sequence[str], series: Sequence[tuple[str, Sequence[Any]]],
         ylabel: str = "%", baselines: Sequence[tuple[str, float]] = (),
         ymax: float = 100.0) -> str | None:
    """Grouped bars: one group per label, one bar per series (run); each value is a
    (value, low, high) triple in 0..1 (low/high may be None) or None (no bar)."""
    if not labels or not series or all(v is None for _, vals in series for v in vals):
        return None
    with matplotlib.rc_context(RC):
        width = max(4.8, min(11.0, 0.9 + 0.32 * len(labels) * max(1, len(series))))
        fig = Figure(figsize=(width, 3.0))
        ax = fig.add_subplot()
        k = len(series)
        bar_w = 0.8 / k
        for s, (name, values) in enumerate(series):
            xs, hs, lo, hi = [], [], [], []
            for i, v in enumerate(values):
                if v is None or v[0] is None:
                    continue
                xs.append(i - 0.4 + bar_w * (s + 0.5))
                hs.append(100 * v[0])
                lo.append(100 * (v[0] - v[1]) if v[1] is not None else 0.0)
                hi.append(100 * (v[2] - v[0]) if v[2] is not None else 0.0)
            if not xs:
                continue
            ax.bar(xs, hs, width=bar_w * 0.92, color=PALETTE[s % len(PALETTE)], label=name,
                   yerr=[lo, hi], ecolor="#222222", capsize=2, error_kw={"elinewidth": 0.8})
        for name, y in baselines:
            ax.axhline(100 * y, color="#888888", linestyle="--", linewidth=0.9)
            ax.text(len(labels) - 0.5, 100 * y, f" {name}", va="bottom", ha="right",
                    fontsize=8, color="#555555")
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=30 if max(len(x) for x in labels) > 8 else 0,
                           ha="right" if max(len(x) for x in labels) > 8 else "center")
        ax.set_ylim(0, ymax)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=10, loc="left")
        ax.grid(axis="y", color="#e5e5e5", linewidth=0.6)
        ax.set_axisbelow(True)
        if k > 1:
            ax.legend(fontsize=8, frameon=False, ncols=min(k, 3), loc="upper right",
                      bbox_to_anchor=(1.0, 1.18))
        return _svg(fig)


def triple(data: SuiteData, name: str) -> tuple[float | None, float | None, float | None] | None:
    """(value, low, high) of a metric of one run's suite, None if the run lacks it."""
    if data is None:
        return None
    value = data.metric(name)
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    iv = data.interval(name)
    return float(value), iv.low if iv else None, iv.high if iv else None


def metric_bars(title: str, rows: Sequence[tuple[str, str]], runs: Sequence[str],
                per_run: Sequence[SuiteData], **kw: Any) -> str | None:
    """Bars of the named metrics (`rows`: (metric, label)) for every run."""
    present = [(m, lab) for m, lab in rows if any(triple(d, m) is not None for d in per_run)]
    if not present:
        return None
    series = [(run, [triple(d, m) for m, _ in present]) for run, d in zip(runs, per_run, strict=True)]
    return bars(title, [lab for _, lab in present], series, **kw)


def headline_plot(runs: Sequence[str], per_run: Sequence[SuiteData]) -> str | None:
    return metric_bars("Turn and goal accuracy (95% intervals)",
                       [("turn", "turn"), ("goal", "goal")], runs, per_run)


def declared_plot(plot: Plot, metrics: Sequence[Metric], runs: Sequence[str],
                  per_run: Sequence[SuiteData]) -> list[str]:
    """The charts of one declared plot: its metrics' bars (and its `also` rows) for every
    run, or with `series` one chart per run (see `metrics.declare.Plot`)."""
    baselines = list(plot.baselines)
    if not plot.series:
        rows = [(m.name, m.short or m.label) for m in metrics if m.plot == plot.id]
        chart = metric_bars(plot.title, [*rows, *plot.also], runs, per_run, ylabel=plot.ylabel,
                            baselines=baselines)
        return [chart] if chart else []
    out = []
    for run, data in zip(runs, per_run, strict=True):
        if data is None:
            continue
        keys = [(k, lab) for k, lab in plot.also
                if any(triple(data, t.format(k)) for _, t in plot.series)]
        if not keys:
            continue
        series = [(name, [triple(data, t.format(k)) for k, _ in keys]) for name, t in plot.series]
        title = plot.title + (f" — {run}" if len(runs) > 1 else "")
        chart = bars(title, [lab for _, lab in keys], series, ylabel=plot.ylabel,
                     baselines=baselines)
        if chart:
            out.append(chart)
    return out


def reasoning_plot(runs: Sequence[str], per_run: Sequence[SuiteData]) -> list[str]:
    """Turn accuracy against reasoning length: a point per quartile of reasoning length
    (at the median length of its judged items), its 95% interval as an error bar, a line
    per run; one chart per unit (tokens, characters) the runs count in. None without
    reasoning."""
    by_unit: dict[str, list[tuple[int, str, list[tuple[float, float, float, float]]]]] = {}
    measures: dict[str, str] = {}
    for index, (run, data) in enumerate(zip(runs, per_run, strict=True)):
        if data is None or not data.reasoning:
            continue
        points = []
        for q in data.reasoning.quartiles:
            value = triple(data, q.metric)
            if value is None or q.median is None:
                continue
            v, low, high = value
            assert v is not None
            points.append((q.median, 100 * v, 100 * (v - (low if low is not None else v)),
                           100 * ((high if high is not None else v) - v)))
        if points:
            by_unit.setdefault(data.reasoning.unit, []).append((index, run, points))
            measures[data.reasoning.unit] = data.reasoning.measure
    out = []
    for unit_name, lines in by_unit.items():
        with matplotlib.rc_context(RC):
            fig = Figure(figsize=(6.4, 3.0))
            ax = fig.add_subplot()
            for index, run, points in lines:
                xs, ys, lo, hi = (list(col) for col in zip(*points, strict=True))
                ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", markersize=4, capsize=2,
                            linewidth=1.2, elinewidth=0.8, color=PALETTE[index % len(PALETTE)],
                            label=run)
            ax.set_ylim(0, 100)
            ax.set_xlim(left=0)
            ax.set_ylabel("turn accuracy (%)")
            ax.set_xlabel(f"{measures[unit_name]} (median of each quartile)")
            ax.set_title(f"Turn accuracy by quartile of {measures[unit_name]} (95% intervals)",
                         fontsize=10, loc="left")
            ax.grid(color="#e5e5e5", linewidth=0.6)
            ax.set_axisbelow(True)
            if len(lines) > 1:
                ax.legend(fontsize=8, frameon=False, loc="lower right")
            out.append(_svg(fig))
    return out


def suite_plots(family: str, runs: Sequence[str], per_run: Sequence[SuiteData]) -> list[str]:
    """Every plot of one suite: turn/goal, accuracy against reasoning length (when the
    records show reasoning), then those its family declares."""
    out = [p for p in [headline_plot(runs, per_run)] if p]
    out += reasoning_plot(runs, per_run)
    try:
        fam = families.get(family)
    except KeyError:
        return out
    for plot in fam.plots:
        out += declared_plot(plot, fam.headline_metrics, runs, per_run)
    return out


def sweep_plots(setting: str, rows: Sequence[SweepRow]) -> list[str]:
    """--tom-sweep, one suite (`rows`: its values, `results.reasoning.sweep_results`): the items'
    outcomes against the value as stacked bars (right, wrong, cut off, in % of the items),
    turn accuracy and the accuracy on the answered items as points with their 95%
    intervals; and the thought length against the value (mean with its interval, median),
    when the records show one. Values are placed in the sweep's order, evenly."""
    if not rows:
        return []
    labels = [r.shown_value for r in rows]
    xs = list(range(len(rows)))
    out = []
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(max(4.8, 1.2 + 1.1 * len(rows)), 3.2))
        ax = fig.add_subplot()
        bottom = [0.0] * len(rows)
        for key, name, color in (("right", "right", PALETTE[2]), ("wrong", "wrong", PALETTE[3]),
                                 ("cut_off", "cut off", "#bbbbbb")):
            share = [100 * (r.get(key) or 0) / r.items if r.items else 0.0 for r in rows]
            ax.bar(xs, share, bottom=bottom, width=0.6, color=color, label=name)
            bottom = [b + v for b, v in zip(bottom, share, strict=True)]
        for key, name, shift, color in (("turn", "turn accuracy", -0.12, "#222222"),
                                        ("answered_accuracy", "accuracy on the answered items",
                                         0.12, PALETTE[0])):
            px, py, lo, hi = [], [], [], []
            for x, r in zip(xs, rows, strict=True):
                iv = r.interval("turn") if key == "turn" else r.answered_accuracy
                if iv is None or iv.value is None:
                    continue
                v = iv.value
                px.append(x + shift)
                py.append(100 * v)
                lo.append(100 * (v - iv.low) if iv.low is not None else 0.0)
                hi.append(100 * (iv.high - v) if iv.high is not None else 0.0)
            if px:
                ax.errorbar(px, py, yerr=[lo, hi], fmt="o", markersize=4, capsize=2,
                            elinewidth=0.8, color=color, label=name)
        ax.set_xticks(xs)
        ax.set_xticklabels(labels)
        ax.set_xlabel(setting)
        ax.set_ylim(0, 100)
        ax.set_ylabel("% of the items")
        ax.set_title(f"Outcomes and accuracy by {setting} (95% intervals)", fontsize=10,
                     loc="left")
        ax.grid(axis="y", color="#e5e5e5", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        out.append(_svg(fig))
    unit_name = next((r.thought_unit for r in rows if r.thought_unit), "")
    means = [(x, r.thought_mean, r) for x, r in zip(xs, rows, strict=True)
             if r.thought_mean is not None]
    if unit_name and means:
        with matplotlib.rc_context(RC):
            fig = Figure(figsize=(max(4.8, 1.2 + 1.1 * len(rows)), 3.0))
            ax = fig.add_subplot()
            px = [x for x, _, _ in means]
            py = [float(mean) for _, mean, _ in means]
            lo, hi = [], []
            for (_, _, r), v in zip(means, py, strict=True):
                iv = r.thought_mean_interval
                lo.append(v - iv.low if iv is not None and iv.low is not None else 0.0)
                hi.append(iv.high - v if iv is not None and iv.high is not None else 0.0)
            ax.errorbar(px, py, yerr=[lo, hi], marker="o", markersize=4, capsize=2,
                        linewidth=1.2, elinewidth=0.8, color=PALETTE[0], label="mean")
            med = [(x, float(r.thought_median)) for x, _, r in means
                   if r.thought_median is not None]
            if med:
                ax.plot([x for x, _ in med], [y for _, y in med], marker="s", markersize=3,
                        linewidth=0.8, linestyle="--", color=PALETTE[1], label="median")
            ax.set_xticks(xs)
            ax.set_xticklabels(labels)
            ax.set_xlim(-0.5, len(rows) - 0.5)
            ax.set_ylim(bottom=0)
            ax.set_xlabel(setting)
            ax.set_ylabel(f"thought length ({unit_name})")
            ax.set_title(f"Thought length of the answered items by {setting}", fontsize=10,
                         loc="left")
            ax.grid(color="#e5e5e5", linewidth=0.6)
            ax.set_axisbelow(True)
            ax.legend(fontsize=8, frameon=False, loc="lower right")
            out.append(_svg(fig))
    return out

