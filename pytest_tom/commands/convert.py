"""`pytest-tom convert FAMILY INPUT -o DIR`: upstream benchmark data into suites.

Each family declares its converters (`Family.converters`: subcommand -> module, built-in
ones in `families/<name>/convert.py`); a converter module exposes `add_arguments(parser)`
and `run(args) -> int`, like a command.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from pytest_tom import families
from pytest_tom.core.registry import BrokenTarget

NAME = "convert"
HELP = "convert upstream benchmark data into suites"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    csub = parser.add_subparsers(dest="family", required=True)
    for name in families.converters():
        try:
            module = families.converter(name)
        except BrokenTarget as exc:  # the others still work; this one says why it does not
            broken = csub.add_parser(name, help=f"(cannot be loaded: {exc})")
            broken.add_argument("rest", nargs=argparse.REMAINDER)
            broken.set_defaults(func=_refused(str(exc)))
            continue
        p = csub.add_parser(name, help=(module.__doc__ or name).strip().split("\n")[0])
        module.add_arguments(p)
        p.set_defaults(func=module.run)


def _refused(message: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        print(f"pytest-tom convert: {message}", file=sys.stderr)
        return 2

    return run


def run(args: argparse.Namespace) -> int:  # pragma: no cover - the converter's func runs
    raise SystemExit(2)
