"""`pytest-tom html REPORT.json... -o PATH`: one self-contained HTML report of saved runs."""

from __future__ import annotations

import argparse

from pytest_tom.commands.run_options import add_run_options
from pytest_tom.compare.main import run_html

NAME = "html"
HELP = "write one self-contained HTML report of saved JSON reports"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", nargs="+", metavar="REPORT.json",
                        help="JSON reports (--tom-report)")
    parser.add_argument("-o", "--output", required=True, metavar="PATH",
                        help="the HTML file to write")
    add_run_options(parser)


def run(args: argparse.Namespace) -> int:
    return run_html(args)
