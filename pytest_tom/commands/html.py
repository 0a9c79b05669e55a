"""`pytest-tom html REPORT.json... -o PATH`: one self-contained HTML report of saved runs."""

from __future__ import annotations

import argparse
import sys

from pytest_tom.commands.run_options import add_run_options, load
from pytest_tom.compare.paired import compare_runs
from pytest_tom.report.html import missing
from pytest_tom.report.html.build import write_html

NAME = "html"
HELP = "write one self-contained HTML report of saved JSON reports"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", nargs="+", metavar="REPORT.json",
                        help="JSON reports (--tom-report)")
    parser.add_argument("-o", "--output", required=True, metavar="PATH",
                        help="the HTML file to write")
    add_run_options(parser)


def run(args: argparse.Namespace) -> int:
    runs = load(args.reports, "html", args.labels)
    if runs is None:
        return 2
    lacking = missing()
    if lacking:
        print(f"pytest-tom html: {', '.join(lacking)} missing: pip install 'pytest-tom[html]'",
              file=sys.stderr)
        return 2
    cmp = None
    if len(runs) > 1:
        cmp = compare_runs(runs, seed=args.seed, resamples=args.resamples)
    write_html(args.output, runs, comparison=cmp)
    print(f"html: {args.output}")
    return 0
