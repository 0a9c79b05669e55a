"""`pytest-tom compare A.json B.json ...`: saved runs side by side, paired tests."""

from __future__ import annotations

import argparse

from pytest_tom.commands.run_options import add_run_options
from pytest_tom.compare.main import run_compare

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
    return run_compare(args)
