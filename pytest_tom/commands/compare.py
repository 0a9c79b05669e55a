"""`pytest-tom compare A.json B.json ...`: saved runs side by side, paired tests.

The runs are read by the one reader (`compare.runs.load_runs`), compared by
`compare.paired.compare_runs` (analysis only) and written by `report/`: the terminal
table and Markdown (`report/compare_text.py`), the HTML page (`report/html`), the JSON
form of the comparison.
"""

from __future__ import annotations

import argparse
import json
import sys

from pytest_tom.commands.run_options import add_run_options, load
from pytest_tom.compare.paired import compare_runs
from pytest_tom.report.atomic import write_atomic
from pytest_tom.report.compare_text import render_markdown, render_text
from pytest_tom.report.html.build import write_html

NAME = "compare"
HELP = "compare saved JSON reports (models as columns, paired significance tests, flipped items)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", nargs="+", metavar="REPORT.json",
                        help="JSON reports (--tom-report); the first is the reference")
    parser.add_argument("--markdown", metavar="PATH", help="also write the comparison as Markdown")
    parser.add_argument("--html", metavar="PATH", help="also write the HTML report of these runs")
    parser.add_argument("--json", metavar="PATH", help="also write the comparison as JSON")
    parser.add_argument("--all", action="store_true",
                        help="print every row (tags, conditions, classes), not only the headline")
    add_run_options(parser)


def run(args: argparse.Namespace) -> int:
    if len(args.reports) < 2:
        print("pytest-tom compare: give at least two JSON reports (the first is the reference); "
              "for one run use `pytest-tom html REPORT.json -o report.html`", file=sys.stderr)
        return 2
    if args.resamples < 100:
        print("pytest-tom compare: --resamples must be at least 100", file=sys.stderr)
        return 2
    runs = load(args.reports, "compare", args.labels)
    if runs is None:
        return 2
    cmp = compare_runs(runs, seed=args.seed, resamples=args.resamples)
    sys.stdout.write(render_text(cmp, all_rows=args.all))
    if args.markdown:
        write_atomic(args.markdown, render_markdown(cmp))
        print(f"markdown: {args.markdown}")
    if args.json:
        write_atomic(args.json, json.dumps(cmp.to_dict(), indent=1, ensure_ascii=False) + "\n")
        print(f"json: {args.json}")
    if args.html:
        write_html(args.html, runs, comparison=cmp)
        print(f"html: {args.html}")
    return 0
