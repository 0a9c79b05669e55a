"""Options shared by the commands that read saved runs (`compare`, `html`)."""

from __future__ import annotations

import argparse


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Names of the runs and the bootstrap's settings."""
    parser.add_argument("--labels", metavar="A,B,...",
                        help="names of the runs, comma-separated (default: the model names)")
    parser.add_argument("--seed", type=int, default=0,
                        help="bootstrap seed of the comparison (default 0)")
    parser.add_argument("--resamples", type=int, default=1000,
                        help="bootstrap resamples of the comparison (default 1000)")
