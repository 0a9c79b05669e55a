"""A comparison of saved runs (`compare.comparison.Comparison`) as text: a terminal table
per suite (tabulate) and a Markdown document.

Cells: `66.7% [62.9, 70.3]` is a run's value and 95% interval; the difference column
of a later run reads `+12.3 pp [8.1, 16.0] p=0.0003 M` (M: exact McNemar on the
shared items, B: paired bootstrap over the shared groups), with `*` when p < 0.05. An
amount (mean reasoning tokens) reads `412.5 [380, 450]`, its difference
`+312.0 [+250.1, +380.2] ×1.76 p<0.001 B` (×: the later run's mean over the first's, on
the shared items).
"""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from pytest_tom.compare.comparison import Comparison, Row, TotalRow
from pytest_tom.metrics.intervals import Interval, PairedDiff
from pytest_tom.metrics.numbers import AMOUNT, PERCENT, figure, fmt_interval
from pytest_tom.metrics.numbers import signed_amount as signed
from pytest_tom.report.markdown import cell, code, table
from pytest_tom.results.asked import difference_text
from pytest_tom.results.run_report import ReportSettings

LISTED = 20  # flipped items printed per run in the terminal
LISTED_MD = 200
TESTS = {"mcnemar": "M", "paired bootstrap": "B"}
SIGNIFICANT = 0.05


def value_cell(value: float | None, iv: Interval | None, display: str = PERCENT) -> str:
    if value is None:
        return "n/a"
    if iv is None or iv.low is None:
        return figure(value, display)
    return f"{figure(value, display)} {fmt_interval(iv, as_amount=display == AMOUNT)}"


def p_text(p: float | None) -> str:
    if p is None:
        return "p n/a"
    return f"p={p:.2g}" if p >= 0.001 else "p<0.001"


def significant(d: PairedDiff | None) -> bool:
    return bool(d and d.p_value is not None and d.p_value < SIGNIFICANT)


def diff_cell(d: PairedDiff | None, display: str = PERCENT) -> str:
    if not d or d.delta is None:
        return "n/a"
    if display == AMOUNT:  # a difference of means of reasoning length, and their ratio
        text = signed(d.delta)
        if d.low is not None and d.high is not None:
            text += f" [{signed(d.low)}, {signed(d.high)}]"
        if d.a:
            text += f" ×{d.b / d.a:.2f}" if d.b is not None else ""
    else:
        text = f"{100 * d.delta:+.1f} pp"
        if d.low is not None and d.high is not None:
            text += f" [{100 * d.low:+.1f}, {100 * d.high:+.1f}]"
    text += f" {p_text(d.p_value)} {TESTS.get(d.test, d.test)}"
    if significant(d):
        text += " *"
    return text


def headers(cmp: Comparison) -> list[str]:
    labels = cmp.labels
    out = ["metric", labels[0]]
    for i, label in enumerate(labels[1:], start=2):
        out += [label, f"Δ run {i} − run 1"]
    return out


def run_cell(row: Row | TotalRow, i: int) -> str:
    """Run `i`'s cell of a row: its value and interval; a share of items (cut off) also
    gives its count, `3/20 15.0% [5.2, 36.0]`."""
    display = getattr(row, "display", PERCENT)
    text = value_cell(row.values[i], row.intervals[i], display)
    counts = row.counts[i] if row.counts is not None and i < len(row.counts) else None
    return f"{counts[0]}/{counts[1]} {text}" if counts is not None else text


def row_cells(row: Row) -> list[str]:
    cells = [row.label, run_cell(row, 0)]
    for i, d in enumerate(row.diffs[1:], start=1):
        cells += [run_cell(row, i), diff_cell(d, row.display)]
    return cells


def legend(cmp: Comparison) -> str:
    text = ("value [95% interval]; Δ = later run − first run on the items both judged, "
            "[95% interval of Δ], p: M = exact McNemar (accuracies), B = paired bootstrap over "
            f"groups ({cmp.resamples} resamples, seed {cmp.seed}); * p < 0.05")
    if any(r.counts is not None for s in cmp.suites for r in s.rows):
        text += ("; cut off: items whose budget ran out (count/items, share), never right nor "
                 "wrong, Δ of the share with M on the items both have")
    if any(r.display == AMOUNT for s in cmp.suites for r in s.rows):
        text += ("; reasoning length: Δ in its unit on the items both answered, × the later "
                 "run's mean over the first's (medians and quartiles: no paired test)")
    return text


def render_text(cmp: Comparison, all_rows: bool = False) -> str:
    lines = ["pytest-tom compare: " + "  vs  ".join(cmp.labels), ""]
    for i, r in enumerate(cmp.runs):
        lines.append(f"  run {i + 1}: {r.label}  ({r.path}, {r.items} items)")
    lines += asked_lines(cmp)
    for suite in cmp.suites:
        rows = [row_cells(r) for r in suite.rows if all_rows or r.headline]
        if not rows:
            continue
        lines += ["", f"{suite.name}  (family {suite.family}, items "
                  f"{' / '.join(str(n) for n in suite.items)})"]
        lines.append(tabulate(rows, headers=headers(cmp), tablefmt="simple",
                              disable_numparse=True))
    lines += ["", legend(cmp)]
    for fl in cmp.flips:
        lines += ["", f"flipped items, {cmp.runs[0].label} → {fl.against}: "
                  f"{fl.worse} newly wrong, {fl.better} newly right"]
        for f in fl.items[:LISTED]:
            lines.append(f"  {'-' if f.direction == 'worse' else '+'} {f.suite}::{f.id}: "
                         f"{short(f.before.answer)!r} ({f.before.verdict}) → "
                         f"{short(f.after.answer)!r} ({f.after.verdict}); "
                         f"gold {short(str(f.gold))!r}")
        if len(fl.items) > LISTED:
            lines.append(f"  ... and {len(fl.items) - LISTED} more (--markdown or --html "
                         f"lists them all)")
    if not all_rows:
        lines += ["", "(headline rows; --all shows every row: tags, conditions, classes)"]
    return "\n".join(lines) + "\n"


def asked_lines(cmp: Comparison) -> list[str]:
    """One line per setting a later run was asked differently from the first, by field."""
    lines: list[str] = []
    first = cmp.runs[0].label
    for a in cmp.asked:
        if a.fields:
            lines.append(f"  asked differently ({a.against} against {first}):")
            lines += [f"    {difference_text(d.field, d.first, d.later, first, a.against)}"
                      for d in a.fields]
    return lines


def short(text: str, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _method_seed(s: ReportSettings) -> list[Any]:
    """A run's method and seed as its report gives them (empty when it gives none)."""
    return [s.method if s.has("method") else "", s.seed if s.has("seed") else ""]


def render_markdown(cmp: Comparison) -> str:
    labels = cmp.labels
    lines = ["## pytest-tom compare: " + " vs ".join(cell(lab) for lab in labels), ""]
    lines += table(["run", "model", "report", "items", "method", "seed"],
                   [[str(i + 1), cell(r.label), code(r.path), r.items,
                     *_method_seed(ReportSettings(r.settings))]
                    for i, r in enumerate(cmp.runs)])
    for a in cmp.asked:
        if a.fields:
            lines += ["", f"{cell(a.against)} was asked differently from {cell(labels[0])}:",
                      ""]
            lines += [f"- {cell(difference_text(d.field, d.first, d.later, labels[0], a.against))}"
                      for d in a.fields]
    lines += ["", cell(legend(cmp)), ""]
    totals = [[t.label, *(run_cell(t, i) for i in range(len(t.values)))] for t in cmp.totals]
    lines += ["### Totals", ""] + table(["metric", *labels], totals) + [""]
    for suite in cmp.suites:
        head, rest = suite.headline_rows, suite.other_rows
        lines += [f"### {cell(suite.name)} ({suite.family})", ""]
        lines += table(headers(cmp), [row_cells(r) for r in head]) + [""]
        if rest:
            lines += [f"<details><summary>{len(rest)} more rows (tags, conditions, classes)"
                      "</summary>", ""]
            lines += table(headers(cmp), [row_cells(r) for r in rest]) + ["", "</details>", ""]
    for fl in cmp.flips:
        lines += [f"### Flipped items: {cell(labels[0])} → {cell(fl.against)}", "",
                  f"{fl.worse} newly wrong · {fl.better} newly right", ""]
        if fl.items:
            rows = [["worse" if f.direction == "worse" else "better",
                     code(f"{f.suite}::{f.id}"), cell(short(f.question, 120)),
                     cell(short(str(f.gold), 80)),
                     cell(f"{short(f.before.answer, 80)} ({f.before.verdict})"),
                     cell(f"{short(f.after.answer, 80)} ({f.after.verdict})")]
                    for f in fl.items[:LISTED_MD]]
            lines += table(["", "item", "question", "gold", labels[0], fl.against], rows)
            if len(fl.items) > LISTED_MD:
                lines.append(f"\n... and {len(fl.items) - LISTED_MD} more (see --html)")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
