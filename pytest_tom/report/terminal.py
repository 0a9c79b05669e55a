"""The `tom scores` section of the terminal summary: a table per suite, then totals."""

from __future__ import annotations

import textwrap
from typing import Any

from tabulate import tabulate

from pytest_tom import families
from pytest_tom.families.base import MetricTable
from pytest_tom.metrics.intervals import MetricInterval
from pytest_tom.metrics.numbers import AMOUNT, amount, fmt_interval, pct, unit, with_interval
from pytest_tom.metrics.numbers import cell as fmt
from pytest_tom.pytest_compat import verbosity
from pytest_tom.report.probe_table import not_applicable_lines, probe_tables
from pytest_tom.report.sweep_table import paired_lines, sweep_tables
from pytest_tom.results.results import (
    OUTCOME_COUNTS,
    ConditionQuartile,
    Counts,
    CutOff,
    Level,
    Reasoning,
    Results,
    SuiteResult,
)

WIDTH = 120  # no line of the section is wider (tables are cut into column blocks)
# how a table's counts add up (the JSON report's `wrong` is the same)
COUNTS_NOTE = ("items = right + wrong + cut off + measured only + skipped; wrong includes the "
               "errors (no answer) and the unparseable answers, which count as not right")


def wrap_parts(head: str, parts: list[str], width: int = WIDTH, sep: str = " · ") -> list[str]:
    """`head` and the parts joined by `sep`, broken between parts into lines of at most
    `width` characters (continuation lines indented by two spaces). A part is cut only when
    it is wider than a line by itself (a long model path): into pieces of a line each."""
    lines: list[str] = []
    line = head
    tail = sep.rstrip()  # ends a line that is continued
    parts = [piece for part in parts for piece in cut_long(part, width - 2 - len(tail))]
    for i, part in enumerate(parts):
        joined = line + (sep if i else "") + part
        if i and len(joined) + (len(tail) if i < len(parts) - 1 else 0) > width:
            lines.append(line + tail)
            line = "  " + part
        else:
            line = joined
    return [*lines, line]


def cut_long(text: str, width: int) -> list[str]:
    """`text` in pieces of at most `width` characters (one piece when it fits)."""
    if len(text) <= width:
        return [text]
    return [text[i:i + width] for i in range(0, len(text), width)]


def interval_parts(intervals: dict[str, MetricInterval],
                   skip: tuple[str, ...] = ("turn", "goal"), family: str | None = None
                   ) -> list[str]:
    """`TB 68.0% [60.2, 74.9]`, one per headline metric beyond turn and goal; on 0–1
    (`F1 0.412 [0.301, 0.520]`) for a metric its family displays on that scale."""
    out = []
    for name, iv in intervals.items():
        if not iv.headline or name in skip or iv.display == AMOUNT:
            continue  # amounts (reasoning tokens) have lines of their own: `reasoning_lines`
        percent = families.in_percent(family, name)
        show = pct if percent else unit
        out.append(f"{iv.label} {show(iv.value)} {fmt_interval(iv, percent)}")
    return out


def spread_line(suite: SuiteResult, names: tuple[str, ...] = ("turn", "goal")) -> str:
    """`mean over 5 samples: turn 72.0% ± 3.1% · goal 40.0% ± 5.0%` (--tom-samples)."""
    sd = suite.spread
    parts = []
    for name in names:
        if suite.metric(name) is None:
            continue
        parts.append(f"{name} {pct(suite.metric(name))} ± {pct(sd.get(name, 0.0))}")
    return (f"mean over {suite.samples} samples (± standard deviation over samples): "
            + " · ".join(parts))


def count(value: Any) -> str:
    """A count; a mean of counts over samples (--tom-samples) with one decimal."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.1f}"
    if isinstance(value, float):
        return str(int(value))
    return "n/a" if value is None else str(value)


def suite_table(counts: Counts, turn: MetricInterval | None = None,
                goal: MetricInterval | None = None) -> str:
    """The core table; turn and goal accuracy carry their 95% interval when known. Wider
    than `WIDTH`, it is cut into blocks of columns as a family table is (`render_table`)."""
    iv = turn is not None or goal is not None
    shown = [(key, label) for key, label, always in OUTCOME_COUNTS
             if always or counts.get(key)]
    headers = ["", "items", "right", "wrong", *(label for _, label in shown),
               *(["turn acc [95% CI]", "goal acc [95% CI]"] if iv else ["turn acc", "goal acc"])]
    c = count
    rows = [["all", c(counts.items), c(counts.correct), c(counts.wrong),
             *(c(counts.get(key)) for key, _ in shown),
             with_interval(pct(counts.turn), turn),
             with_interval(f"{pct(counts.goal)} ({c(counts.groups_correct)}/"
                           f"{c(counts.groups)})", goal)]]
    for tag in counts.tag_names():
        rows.append([f"tag {tag}", c(counts.get(f"tag.{tag}.items")), "", "",
                     *("" for _ in shown), pct(counts.get(f"tag.{tag}.turn")),
                     pct(counts.get(f"tag.{tag}.goal"))])
    # wider than WIDTH (a cut-off column beside long tag names): cut into column blocks
    return render_table(MetricTable(title="", headers=headers, rows=rows))


def _tab(headers: list[str], rows: list[list[str]], cols: list[int]) -> str:
    return tabulate([[r[i] if i < len(r) else "" for i in cols] for r in rows],
                    headers=[headers[i] for i in cols], tablefmt="simple", disable_numparse=True)


def _width(text: str) -> int:
    return max(map(len, text.splitlines()), default=0)


def render_table(table: MetricTable, width: int = WIDTH) -> str:
    """A family table; wider than `width`, it is wrapped into blocks of columns, each
    repeating the columns that tell the rows apart (`label_columns`), one after the other."""
    rows = [[fmt(c) for c in row] for row in table.rows]
    headers = list(table.headers)
    text = _tab(headers, rows, list(range(len(headers))))
    labels = label_columns(rows, len(headers))
    if _width(text) <= width or len(headers) < labels + 2:
        return text
    return "\n\n".join(_tab(headers, rows, [*range(labels), *cols])
                        for cols in column_blocks(headers, rows, width, labels))


def label_columns(rows: list[list[str]], ncols: int) -> int:
    """How many leading columns a block repeats: the fewest that tell every row apart (a
    FANToM row is its accessibility and its question), at most half the columns."""
    for k in range(1, max(1, ncols // 2) + 1):
        keys = [tuple(r[:k]) for r in rows]
        if len(set(keys)) == len(keys):
            return k
    return 1


def column_blocks(headers: list[str], rows: list[list[str]], width: int,
                  labels: int = 1) -> list[list[int]]:
    """Indices of the columns after the `labels` first, in blocks that fit `width` beside
    them (a single column wider than that gets a block of its own)."""
    fixed = list(range(labels))
    blocks: list[list[int]] = [[]]
    for i in range(labels, len(headers)):
        if blocks[-1] and _width(_tab(headers, rows, [*fixed, *blocks[-1], i])) > width:
            blocks.append([])
        blocks[-1].append(i)
    return blocks


def note_lines(text: str, width: int = WIDTH) -> list[str]:
    """A table's note, wrapped to `width`."""
    return textwrap.wrap(text, width) or [""]


def reasoning_lines(suite: SuiteResult, verbose: bool = False, width: int = WIDTH) -> list[str]:
    """How long the model reasoned (nothing when the suite's records show no reasoning):
    the mean and median with their intervals, the turn accuracy of each quartile of
    reasoning length, and a table of the mean length on each accuracy's items (the
    headline accuracies; every one with `-v`)."""
    r = suite.reasoning
    if not r:
        return []

    def amount_of(name: str) -> str:
        return with_interval(amount(suite.metric(name)), suite.interval(name))

    parts = [f"mean {amount_of('reasoning.mean')}", f"median {amount_of('reasoning.median')}"]
    if r.unit != "tokens":  # say what is counted when it is not tokens
        parts.append(f"({r.source})")
    lines = wrap_parts(f"reasoning, {r.measure} of {r.items} answered items: ", parts, width)
    quartiles = []
    for k, q in enumerate(r.quartiles, start=1):
        if not q.judged:
            quartiles.append(f"Q{k} (no items: tied lengths)")
            continue
        accuracy = with_interval(pct(suite.metric(q.metric)), suite.interval(q.metric))
        quartiles.append(f"Q{k} {amount(q.low)}–{amount(q.high)}, {q.judged} items: {accuracy}")
    if quartiles:
        lines += wrap_parts(f"turn accuracy by quartile of {r.measure}: ", quartiles, width)
    rows = [[label, pct(suite.metric(of)), str(items),
             amount_of(name), ratio(suite.metric(name), suite.metric("reasoning.mean"))]
            for name, of, label, items, headline in r.selections
            if (verbose or headline) and suite.metric(name) is not None]
    hidden = sum(1 for s in r.selections if not (verbose or s[4]))
    if rows:
        table = MetricTable(title="", headers=["selection", "accuracy", "items",
                                               f"mean {r.measure} [95% CI]", "× suite mean"],
                            rows=rows)
        lines += render_table(table, width).splitlines()
    if hidden:
        lines.append(f"(-v: the mean {r.measure} of {hidden} more accuracies; each is "
                     f"reasoning.mean.<metric> in the JSON report)")
    return lines + thought_stat_lines(r, verbose, width)


def cut_off_text(block: CutOff, measure: str) -> str:
    """`12 items, thought ≥ 64–300 reasoning tokens (lower bounds, median ≥ 290)`."""
    if block.low is None or block.high is None:
        return f"{block.items} items (no length known)"
    span = (amount(block.low) if block.low == block.high
            else f"{amount(block.low)}–{amount(block.high)}")
    return (f"{block.items} items, thought ≥ {span} {measure} (lower bounds, median ≥ "
            f"{amount(block.median)})")


def level_text(level: Level) -> str:
    """`FB accuracy ×2.30 [2.21, 2.39] (230 vs 100, 25 groups)`."""
    if level.ratio is None:
        return f"{level.label} n/a"
    iv = (f" [{level.low:.2f}, {level.high:.2f}]" if level.low is not None
          and level.high is not None else "")
    return (f"{level.label} ×{level.ratio:.2f}{iv} ({amount(level.mean)} vs "
            f"{amount(level.reference_mean)}, {level.groups} groups)")


def quartile_cell(q: ConditionQuartile) -> str:
    if not q.judged:
        return "—"
    return f"{pct(q.accuracy)} ({q.judged})"


def thought_stat_lines(r: Reasoning, verbose: bool, width: int = WIDTH) -> list[str]:
    """The cut-off items' lower bounds, each declared contrast's ratios of mean thought
    length, and the accuracy by quartile within each condition (`results.reasoning.thought_stats`).
    A contrast against the suite's other items (one level per ability) and its
    conditions: with `-v`."""
    lines: list[str] = []
    cut = r.cut_off
    if cut is not None:
        lines += wrap_parts("cut off, never answered (in no mean): ",
                            [cut_off_text(cut, r.measure)], width)
    shown_conditions: set[str] = set()
    hidden = 0
    for c in r.contrasts:
        if c.reference is None and not verbose:
            hidden += len(c.levels)
            continue
        how = ", paired by scenario" if c.paired else ""
        head = f"mean {r.measure}, {c.label} (ratio to {c.reference_label}{how}):"
        levels = [level_text(level) for level in c.levels]
        if levels and len(head) + 1 + len(levels[0]) <= width:
            lines += wrap_parts(head + " ", levels, width)
        else:
            lines += [head, *wrap_parts("  ", levels, width)]
        shown_conditions.update(level.name for level in c.levels)
        if c.reference:
            shown_conditions.add(c.reference)
    rows = [[cond.label, *(quartile_cell(q) for q in cond.quartiles), str(cond.cut_off.items)]
            for cond in r.conditions if cond.name in shown_conditions
            and len(cond.quartiles) == 4]
    if rows:
        table = MetricTable(title="", headers=[f"turn accuracy by quartile of {r.measure}",
                                               "Q1 (judged)", "Q2", "Q3", "Q4", "cut off"],
                            rows=rows)
        lines += render_table(table, width).splitlines()
    if hidden:
        lines.append(f"(-v: the mean {r.measure} of {hidden} more conditions against the "
                     f"suite's other items; reasoning.contrasts in the JSON report)")
    return lines


def ratio(value: float | None, of: float | None) -> str:
    """`×1.42`: `value` as a multiple of `of`."""
    if value is None or not of:
        return "n/a"
    return f"×{value / of:.2f}"


def sweep_lines(results: Results, verbose: bool = False, width: int = WIDTH) -> list[str]:
    """--tom-sweep: each suite's values side by side (its headline metrics; -v: every
    metric) and the paired tests between adjacent values (report/sweep_table.py)."""
    sweep = results.sweep
    if not sweep:
        return []
    out: list[str] = []
    for block, table in zip(sweep.suites, sweep_tables(sweep, every=verbose), strict=True):
        out += ["", table.title, render_table(table, width)]
        if not verbose:
            out.append("(-v: every declared metric per value; all of them are in the JSON and "
                       "Markdown reports)")
        pairs = paired_lines(block)
        if pairs:
            out.append("paired tests between adjacent values, on the items both asked:")
            for line in pairs:
                out += textwrap.wrap(line, width, initial_indent="  ", subsequent_indent="    ")
    return out


def probe_lines(results: Results, width: int = WIDTH) -> list[str]:
    """--tom-probe: each suite's probes beside its base, paired (report/probe_table.py)."""
    block = results.probes
    if block is None:
        return []
    out: list[str] = []
    for table, notes in probe_tables(block):
        out += ["", table.title, render_table(table, width)]
        for line in notes:
            out += textwrap.wrap(line, width, subsequent_indent="  ")
    skipped = not_applicable_lines(block)
    if skipped:
        out += ["", "probes not taken (no copy of these items):"]
        out += [f"  {line}" for line in skipped]
    return out


def write_summary(tr: Any, results: Results, model: str, report_path: str | None) -> None:
    verbose = verbosity(tr.config) > 0 if hasattr(tr, "config") else False
    tr.write_sep("=", "tom scores")
    for name, suite in results.suites.items():
        counts = suite.counts
        tr.write_line("")
        tr.write_line(f"{name}  (family {suite.family}, {counts.items} items)", bold=True)
        intervals = suite.intervals
        tr.write_line(suite_table(counts, suite.interval("turn"), suite.interval("goal")))
        parts = interval_parts(intervals, family=suite.family)
        if parts:
            for line in wrap_parts("95% intervals: ", parts):
                tr.write_line(line)
        if suite.samples:  # --tom-samples: the numbers above are means over samples
            tr.write_line(spread_line(suite))
        thought = reasoning_lines(suite, verbose)
        for line in thought:
            tr.write_line(line)
        if thought:  # the reasoning figures end here: a blank line before the next part
            tr.write_line("")
        for key, value in suite.info.items():
            tr.write_line(f"{key}: {value}")
        for table in suite.tables:
            tr.write_line("")
            tr.write_line(table.title, bold=True)
            if table.caption:  # the scale of the numbers, stated once
                for line in note_lines(table.caption):
                    tr.write_line(line)
            tr.write_line(render_table(table))
            if table.note:
                for line in note_lines(table.note):
                    tr.write_line(line)
    for line in sweep_lines(results, verbose):
        tr.write_line(line)
    for line in probe_lines(results):
        tr.write_line(line)
    t = results.totals
    tr.write_line("")
    if any(t.get(key) for key in ("errors", "unparseable", "cut_off", "skipped", "measured")):
        for line in note_lines(COUNTS_NOTE):  # how the counts add up, once
            tr.write_line(line)
    sd = results.totals_spread

    def spread(name: str) -> str:  # --tom-samples: ± the standard deviation over samples
        return f" ± {pct(sd[name])}" if name in sd else ""

    c = count
    turn, goal = results.total_interval("turn"), results.total_interval("goal")
    parts = [f"{c(t.items)} items",
             with_interval(f"turn {pct(t.turn)}{spread('turn')}", turn),
             with_interval(f"goal {pct(t.goal)}{spread('goal')} ({c(t.groups_correct)}/"
                           f"{c(t.groups)})", goal),
             *(f"{c(t.get(key))} {label}" for key, label, always in OUTCOME_COUNTS
               if always or t.get(key))]
    if results.samples:
        parts.append(f"mean over {results.samples} samples")
    for line in wrap_parts("tom totals: ", [*parts, f"model {model}"]):
        tr.write_line(line, bold=True)
    if report_path:
        tr.write_line(f"tom report: {report_path}")
