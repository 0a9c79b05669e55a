"""A `--tom-probe` run's figures for the terminal and the Markdown: per suite of the files,
a table with the base and each probe side by side (items, right, accuracy, and the paired
McNemar test against the base), then the no-story test against chance with the items
answered right without the story, and the shuffle's consistency and accuracy by the gold
option's position. The figures are those of the report's `probes` block
(`results.reasoning.probe_results`); this module only formats them."""

from __future__ import annotations

from pytest_tom.families.base import MetricTable
from pytest_tom.metrics.numbers import pct
from pytest_tom.results.results import ProbeSuite, ProbesView

LISTED = 10  # items answered right without the story, named before "and N more"


def _p(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def probe_tables(block: ProbesView) -> list[tuple[MetricTable, list[str]]]:
    """Per suite: its table (a row per probe) and the lines under it."""
    out = []
    for suite in block.suites:
        base = suite.base
        rows = [["base", base.n, base.right, pct(base.accuracy), "", ""]]
        for row in suite.probes:
            change = (f"{row.newly_right} newly right, {row.newly_wrong} newly wrong "
                      f"of {row.paired}")
            rows.append([row.label.removeprefix("probe="), row.counts.n, row.counts.right,
                         pct(row.counts.accuracy), change, _p(row.p_value)])
        table = MetricTable(title=f"{suite.suite}: shortcut probes beside the base",
                            headers=["asked", "items", "right", "accuracy",
                                     "paired with the base", "McNemar p"], rows=rows)
        out.append((table, _notes(suite)))
    return out


def _notes(suite: ProbeSuite) -> list[str]:
    lines = []
    story = suite.no_story
    if story is not None and story.n:
        right = story.right_items
        named = ", ".join(right[:LISTED]) + (f" and {len(right) - LISTED} more"
                                             if len(right) > LISTED else "")
        lines.append(f"no-story: {pct(story.right / story.n)} right without the story "
                     f"against {pct(story.chance)} by chance (exact binomial test "
                     f"p={_p(story.p_value)}); right without the story: {named or 'none'}")
    shuffle = suite.shuffle
    if shuffle is not None:
        consistency = (f"{pct(shuffle.consistency)} ({shuffle.consistent} of "
                       f"{shuffle.items})" if shuffle.items else "n/a")
        places = "; ".join(f"{row.position}: {pct(row.accuracy)} of {row.n}"
                           for row in shuffle.by_position)
        lines.append(f"shuffle: right in all {shuffle.orders} orders: {consistency}; "
                     f"accuracy by the gold option's position: {places}")
    return lines


def not_applicable_lines(block: ProbesView) -> list[str]:
    """One line per family and probe it does not take (its items got no such copy)."""
    return [f"{row.family}: no {row.probe} probe ({row.reason})"
            for row in block.not_applicable]
