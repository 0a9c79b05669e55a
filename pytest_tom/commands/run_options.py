"""What the commands that read saved runs (`compare`, `html`) share: their options and
the loading of the runs."""

from __future__ import annotations

import argparse
import sys

from pytest_tom.compare.runs import Run, load_runs


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Names of the runs and the bootstrap's settings."""
    parser.add_argument("--labels", metavar="A,B,...",
                        help="names of the runs, comma-separated (default: the model names)")
    parser.add_argument("--seed", type=int, default=0,
                        help="bootstrap seed of the comparison (default 0)")
    parser.add_argument("--resamples", type=int, default=1000,
                        help="bootstrap resamples of the comparison (default 1000)")


def load(paths: list[str], command: str, labels: str | None = None) -> list[Run] | None:
    """The runs, or None after printing why they cannot be read (a report that is not one,
    labels that do not match the reports: `SavedReportError` is a ValueError)."""
    try:
        return load_runs(list(paths), [x.strip() for x in labels.split(",")] if labels else None)
    except ValueError as exc:
        print(f"pytest-tom {command}: {exc}", file=sys.stderr)
        return None
