"""`pytest-tom validate FILE...`: check suites without running a model."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pytest_tom import families
from pytest_tom.catalogue.load import load_suite
from pytest_tom.catalogue.suite_files import SuiteNames
from pytest_tom.core.paused_gc import paused_gc
from pytest_tom.families.base import Settings
from pytest_tom.suite import SuiteError

NAME = "validate"
HELP = "check suite files (no model is run)"


def plural(n: int, word: str) -> str:
    """`1 scenario`, `2 scenarios`, `1,088 items`."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", help="suite files or folders (searched for *.tom.yaml)")
    parser.add_argument("--method", default="vanilla",
                        help="check that the families offer this method")
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    settings = Settings(method=args.method, seed=args.seed)
    if args.method not in families.all_methods():
        print(f"pytest-tom validate: --method {args.method!r}: no installed family offers it; "
              f"methods: {', '.join(families.all_methods())}", file=sys.stderr)
        return 2
    names = SuiteNames()  # files sharing a suite name: distinct ids, one family
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
            with paused_gc():  # the same pause as collection: large suites load 5-10x faster
                suite = load_suite(path, settings)
            names.add(suite)
        except SuiteError as exc:
            print(exc.render(), file=sys.stderr)
            bad += 1
            continue
        fam = families.get(suite.family)
        runs = "" if args.method in fam.methods else f"; method {args.method} not offered: vanilla"
        print(f"{path}: ok — suite {suite.name!r} (family {suite.family}), "
              f"{plural(suite.scenario_count, 'scenario')}, {plural(len(suite.items), 'item')}"
              f"{runs}")
    return 1 if bad else 0
