"""`pytest-tom convert FAMILY INPUT -o DIR`: upstream benchmark data into suites.

Each family declares its converters (`Family.converters`: subcommand -> module, built-in
ones in `families/<name>/convert.py`); a converter module exposes `add_arguments(parser)`
and `run(args) -> int`, like a command.
"""

from __future__ import annotations

import argparse
import importlib

from pytest_tom import families

NAME = "convert"
HELP = "convert upstream benchmark data into suites"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    csub = parser.add_subparsers(dest="family", required=True)
    for name, target in families.converters().items():
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError:
            continue
        p = csub.add_parser(name, help=(module.__doc__ or name).strip().split("\n")[0])
        module.add_arguments(p)
        p.set_defaults(func=module.run)


def run(args: argparse.Namespace) -> int:  # pragma: no cover - the converter's func runs
    raise SystemExit(2)
