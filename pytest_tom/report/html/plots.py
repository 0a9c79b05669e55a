"""Static SVG plots for the HTML report, drawn with matplotlib (object API, Agg canvas: no
display, no global pyplot state, no network) and inlined into the page as text.

Every plot is a bar chart of one or more runs side by side with the 95% interval of
each bar as an error bar where the report has one; robustness plots draw the coin-toss
line. Each function takes the runs' suite data (`{"metrics", "intervals"}` per run,
None where a run lacks the suite) and returns SVG markup, or None when there is
nothing to draw.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

import matplotlib
from matplotlib.figure import Figure

SuiteData = dict[str, Any] | None
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
    value = data["metrics"].get(name)
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    iv = (data.get("intervals") or {}).get(name) or {}
    return float(value), iv.get("low"), iv.get("high")


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


def bigtom_plots(runs: Sequence[str], per_run: Sequence[SuiteData]) -> list[str]:
    rows = [("true_belief", "TB"), ("false_belief", "FB"), ("true_control", "TC"),
            ("false_control", "FC"), ("tb_and_fb", "TB ∧ FB"), ("tc_and_fc", "TC ∧ FC")]
    out = [metric_bars("BigToM accuracy per condition", rows, runs, per_run)]
    from pytest_tom.families.bigtom.conditions import INFERENCES

    for variant, label in (("with_init", "with initial belief"), ("no_init", "without initial belief")):
        cond_rows = [(f"{inf}.{b}.{variant}", f"{inf.replace('_', ' ')} {lab}")
                     for inf in INFERENCES
                     for b, lab in (("true_belief", "TB"), ("false_belief", "FB"))]
        out.append(metric_bars(f"BigToM TB / FB per inference, {label}", cond_rows, runs,
                               per_run))
    return [p for p in out if p]


def fantom_plots(runs: Sequence[str], per_run: Sequence[SuiteData]) -> list[str]:
    from pytest_tom.families.fantom.metrics import COLUMNS

    rows = [(c, lab.replace("\n", " ")) for c, lab in COLUMNS]
    p = metric_bars("FANToM scores (the paper's Table 9 columns)", rows, runs, per_run)
    return [p] if p else []


def robustness_plots(runs: Sequence[str], per_run: Sequence[SuiteData]) -> list[str]:
    from pytest_tom.families.robustness.schema import CLASSES

    present = [c for c in CLASSES if any(d and f"class.{c}.turn" in d["metrics"] for d in per_run)]
    out = []
    turn = metric_bars("Turn accuracy per complexity class",
                       [(f"class.{c}.turn", CLASSES[c]) for c in present] + [("turn", "overall")],
                       runs, per_run, baselines=[("coin toss 50%", 0.5)])
    goal = metric_bars("Goal accuracy per complexity class",
                       [(f"class.{c}.goal", CLASSES[c]) for c in present] + [("goal", "overall")],
                       runs, per_run, baselines=[("coin toss ≈ 0% (2^-16)", 2 ** -16)])
    out += [p for p in (turn, goal) if p]
    return out


def opentom_plots(runs: Sequence[str], per_run: Sequence[SuiteData]) -> list[str]:
    from pytest_tom.families.opentom.metrics import ROLE_KEYS, TABLE2_ROWS

    out = [metric_bars("OpenToM macro-F1 per genre and order",
                       [(f"f1.{k}", lab) for k, lab in TABLE2_ROWS], runs, per_run,
                       ylabel="macro-F1 (%)")]
    labels = dict(TABLE2_ROWS)
    for run, data in zip(runs, per_run, strict=True):
        if data is None:
            continue
        keys = [k for k in ROLE_KEYS if triple(data, f"f1_mover.{k}") or triple(data, f"f1_observer.{k}")]
        if not keys:
            continue
        series = [(role, [triple(data, f"f1_{role}.{k}") for k in keys])
                  for role in ("mover", "observer")]
        title = "OpenToM macro-F1, mover vs observer" + (f" — {run}" if len(runs) > 1 else "")
        out.append(bars(title, [labels[k] for k in keys], series, ylabel="macro-F1 (%)"))
    return [p for p in out if p]


FAMILY_PLOTS = {"bigtom": bigtom_plots, "fantom": fantom_plots, "robustness": robustness_plots,
                "opentom": opentom_plots}


def suite_plots(family: str, runs: Sequence[str], per_run: Sequence[SuiteData]) -> list[str]:
    """Every plot of one suite: turn/goal, then the family's own."""
    out = [p for p in [headline_plot(runs, per_run)] if p]
    extra = FAMILY_PLOTS.get(family)
    if extra is not None:
        out += extra(runs, per_run)
    return out
