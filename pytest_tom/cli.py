"""The `pytest-tom` command: work that is not a test run.

    pytest-tom validate FILE...            check suites without running a model
    pytest-tom convert FAMILY INPUT -o DIR  turn upstream benchmark data into suites

Converters live in `pytest_tom.families.<family>/convert.py` and expose
`add_arguments(parser)` and `run(args) -> int`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

CONVERTERS = {  # subcommand -> module
    "fantom": "pytest_tom.families.fantom.convert",
    "opentom": "pytest_tom.families.opentom.convert",
    "bigtom": "pytest_tom.families.bigtom.convert",
    "tomi": "pytest_tom.families.generic.convert",
}


def cmd_validate(args: argparse.Namespace) -> int:
    from pytest_tom.engine.load import load_suite
    from pytest_tom.families.base import Settings
    from pytest_tom.suite import SuiteError

    settings = Settings(method=args.method, seed=args.seed)
    bad = 0
    paths: list[Path] = []
    for name in args.files:
        p = Path(name)
        paths.extend(sorted(p.rglob("*.tom.yaml")) if p.is_dir() else [p])
    if not paths:
        print("pytest-tom validate: no suite files given or found", file=sys.stderr)
        return 2
    for path in paths:
        if not path.exists():
            print(f"{path}: no such file", file=sys.stderr)
            bad += 1
            continue
        try:
            suite = load_suite(path, settings)
        except SuiteError as exc:
            print(exc.render(), file=sys.stderr)
            bad += 1
            continue
        print(f"{path}: ok — suite {suite.name!r} (family {suite.family}), "
              f"{suite.scenario_count} scenarios, {len(suite.items)} items")
    return 1 if bad else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pytest-tom", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="check suite files (no model is run)")
    v.add_argument("files", nargs="+", help="suite files or folders (searched for *.tom.yaml)")
    v.add_argument("--method", default="vanilla", help="check that the families offer this method")
    v.add_argument("--seed", type=int, default=0)
    v.set_defaults(func=cmd_validate)
    c = sub.add_parser("convert", help="convert upstream benchmark data into suites")
    csub = c.add_subparsers(dest="family", required=True)
    for name, target in CONVERTERS.items():
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError:
            continue
        p = csub.add_parser(name, help=(module.__doc__ or name).strip().split("\n")[0])
        module.add_arguments(p)
        p.set_defaults(func=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
