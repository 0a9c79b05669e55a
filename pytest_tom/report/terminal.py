"""The `tom scores` section of the terminal summary: a table per suite, then totals."""

from __future__ import annotations

import textwrap
from typing import Any

from tabulate import tabulate

from pytest_tom.engine.headline import fmt_interval, interval_parts
from pytest_tom.metrics.numbers import cell as fmt
from pytest_tom.metrics.numbers import pct
from pytest_tom.metrics.sample_spread import spread_line

WIDTH = 120  # no line of the section is wider (tables are cut into column blocks)


def wrap_parts(head: str, parts: list[str], width: int = WIDTH, sep: str = " · ") -> list[str]:
    """`head` and the parts joined by `sep`, broken between parts into lines of at most
    `width` characters (continuation lines indented by two spaces). A part is never cut,
    so a single part wider than `width` (a long model name) stays whole on its own line."""
    lines: list[str] = []
    line = head
    tail = sep.rstrip()  # ends a line that is continued
    for i, part in enumerate(parts):
        joined = line + (sep if i else "") + part
        if i and len(joined) + (len(tail) if i < len(parts) - 1 else 0) > width:
            lines.append(line + tail)
            line = "  " + part
        else:
            line = joined
    return [*lines, line]


def with_interval(text: str, iv: dict[str, Any] | None) -> str:
    bounds = fmt_interval(iv)
    return f"{text} {bounds}" if bounds else text


def count(value: Any) -> str:
    """A count; a mean of counts over samples (--tom-samples) with one decimal."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.1f}"
    if isinstance(value, float):
        return str(int(value))
    return "n/a" if value is None else str(value)


def suite_table(metrics: dict[str, Any], intervals: dict[str, Any] | None = None) -> str:
    """The core table; turn and goal accuracy carry their 95% interval when known."""
    iv = intervals or {}
    headers = ["", "items", "right", "wrong", "errors", "unparseable", "turn acc [95% CI]",
               "goal acc [95% CI]"] if iv else ["", "items", "right", "wrong", "errors",
                                                 "unparseable", "turn acc", "goal acc"]
    c = count
    rows = [["all", c(metrics["items"]), c(metrics["correct"]), c(metrics["wrong"]),
             c(metrics["errors"]), c(metrics["unparseable"]),
             with_interval(pct(metrics["turn"]), iv.get("turn")),
             with_interval(f"{pct(metrics['goal'])} ({c(metrics['groups_correct'])}/"
                           f"{c(metrics['groups'])})", iv.get("goal"))]]
    tags = sorted({k.split(".")[1] for k in metrics if k.startswith("tag.")})
    for tag in tags:
        rows.append([f"tag {tag}", c(metrics[f"tag.{tag}.items"]), "", "", "", "",
                     pct(metrics[f"tag.{tag}.turn"]), pct(metrics[f"tag.{tag}.goal"])])
    return tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)


def _tab(headers: list[str], rows: list[list[str]], cols: list[int]) -> str:
    return tabulate([[r[i] if i < len(r) else "" for i in cols] for r in rows],
                    headers=[headers[i] for i in cols], tablefmt="simple", disable_numparse=True)


def _width(text: str) -> int:
    return max(map(len, text.splitlines()), default=0)


def render_table(table: dict[str, Any], width: int = WIDTH) -> str:
    """A family table; wider than `width`, it is wrapped into blocks of columns, each
    repeating the first column (the row label), one after the other."""
    rows = [[fmt(c) for c in row] for row in table["rows"]]
    headers = list(table["headers"])
    text = _tab(headers, rows, list(range(len(headers))))
    if _width(text) <= width or len(headers) < 3:
        return text
    return "\n\n".join(_tab(headers, rows, [0, *cols])
                        for cols in column_blocks(headers, rows, width))


def column_blocks(headers: list[str], rows: list[list[str]], width: int) -> list[list[int]]:
    """Indices of the columns after the first, in blocks that fit `width` beside column 0
    (a single column wider than that gets a block of its own)."""
    blocks: list[list[int]] = [[]]
    for i in range(1, len(headers)):
        if blocks[-1] and _width(_tab(headers, rows, [0, *blocks[-1], i])) > width:
            blocks.append([])
        blocks[-1].append(i)
    return blocks


def note_lines(text: str, width: int = WIDTH) -> list[str]:
    """A table's note, wrapped to `width`."""
    return textwrap.wrap(text, width) or [""]


def write_summary(tr: Any, results: dict[str, Any], model: str, report_path: str | None) -> None:
    tr.write_sep("=", "tom scores")
    for name, suite in results["suites"].items():
        m = suite["metrics"]
        tr.write_line("")
        tr.write_line(f"{name}  (family {suite['family']}, {m['items']} items)", bold=True)
        tr.write_line(suite_table(m, suite.get("intervals")))
        parts = interval_parts(suite.get("intervals") or {}, family=suite["family"])
        if parts:
            for line in wrap_parts("95% intervals: ", parts):
                tr.write_line(line)
        if suite.get("samples"):  # --tom-samples: the numbers above are means over samples

            tr.write_line(spread_line(suite))
        for key, value in suite.get("info", {}).items():
            tr.write_line(f"{key}: {value}")
        for table in suite["tables"]:
            tr.write_line("")
            tr.write_line(table["title"], bold=True)
            if table.get("caption"):  # the scale of the numbers, stated once
                for line in note_lines(table["caption"]):
                    tr.write_line(line)
            tr.write_line(render_table(table))
            if table.get("note"):
                for line in note_lines(table["note"]):
                    tr.write_line(line)
    t = results["totals"]
    tr.write_line("")
    tiv = results.get("totals_intervals") or {}
    sd = results.get("totals_spread") or {}

    def spread(name: str) -> str:  # --tom-samples: ± the standard deviation over samples
        return f" ± {pct(sd[name])}" if name in sd else ""

    c = count
    parts = [f"{c(t['items'])} items",
             with_interval(f"turn {pct(t['turn'])}{spread('turn')}", tiv.get("turn")),
             with_interval(f"goal {pct(t['goal'])}{spread('goal')} ({c(t['groups_correct'])}/"
                           f"{c(t['groups'])})", tiv.get("goal")),
             f"{c(t['errors'])} errors", f"{c(t['unparseable'])} unparseable"]
    if t.get("skipped"):
        parts.append(f"{c(t['skipped'])} skipped")
    if results.get("samples"):
        parts.append(f"mean over {results['samples']} samples")
    for line in wrap_parts("tom totals: ", [*parts, f"model {model}"]):
        tr.write_line(line, bold=True)
    if report_path:
        tr.write_line(f"tom report: {report_path}")
