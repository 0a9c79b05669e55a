"""`pytest-tom merge PART.json... -o ALL.json`: one report from the reports of the parts of
a run (the CI jobs of `--tom-shard K/N`), scored by the same code as a live run.

The parts' item records go through `results/aggregate.aggregate` with the run's settings
and are written by the report writers of a live run (`report/json_report`, the HTML
page, the Markdown summary), so every metric, interval, table and total is the one an
unsharded run of the same items gives. Parts that are not one run are refused with one
line (exit status 4); see `results/merge.py` for what is checked.
"""

from __future__ import annotations

import argparse
import sys

from pytest_tom.metrics.numbers import pct
from pytest_tom.report.html import missing as html_missing
from pytest_tom.report.html.build import write_report_html
from pytest_tom.report.json_report import write_report
from pytest_tom.report.markdown import write_markdown
from pytest_tom.results.aggregate import aggregate
from pytest_tom.results.merge import MergeError, Part, merge_parts
from pytest_tom.results.run_report import RunReport
from pytest_tom.results.saved_report import SavedReportError, read_saved_report

NAME = "merge"
HELP = "merge the JSON reports of a run's shards (--tom-shard K/N) into one report"
USAGE_ERROR = 4  # as pytest's usage errors


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("parts", nargs="+", metavar="PART.json",
                        help="the shards' JSON reports (--tom-report of each job)")
    parser.add_argument("-o", "--output", required=True, metavar="ALL.json",
                        help="the merged JSON report to write")
    parser.add_argument("--html", metavar="PATH", help="also write the HTML report")
    parser.add_argument("--markdown", metavar="PATH",
                        help="also write the Markdown summary (no gates: see pytest-tom gate)")
    parser.add_argument("--partial", action="store_true",
                        help="merge even when shards or items are missing; the report is "
                             "marked incomplete (never a baseline)")


def fail(message: str) -> int:
    print(f"pytest-tom merge: {message}", file=sys.stderr)
    return USAGE_ERROR


def run(args: argparse.Namespace) -> int:
    if args.html and html_missing():
        return fail(f"--html needs {', '.join(html_missing())}: pip install 'pytest-tom[html]'")
    try:
        parts = [Part(p, read_saved_report(p, label=p, how_to_write=f"--tom-report={p}"))
                 for p in args.parts]
        merged = merge_parts(parts, partial=args.partial)
    except (SavedReportError, MergeError) as exc:
        return fail(str(exc))
    # the same figures as a live run: scored with the settings the run scored with
    results = aggregate(merged.records, merged.settings.to_settings())
    report = RunReport.build(results, merged.records, merged.settings, merged.started,
                             merged.finished, merged.status,
                             versions=merged.versions)  # the runs', not the merging machine's
    write_report(args.output, report)
    if args.html:
        write_report_html(args.html, report, args.output)
    if args.markdown:
        write_markdown(args.markdown, results, None, merged.settings, records=merged.records)
    t = results.totals
    print(f"pytest-tom merge: {len(parts)} part(s), {t.items} items, "
          f"{len(results.suites)} suite(s): turn {pct(t.turn)}, goal {pct(t.goal)} "
          f"-> {args.output}" + (f", {args.html}" if args.html else "")
          + (f", {args.markdown}" if args.markdown else ""))
    for line in merged.missing:
        print(f"pytest-tom merge: incomplete: {line}", file=sys.stderr)
    return 0
