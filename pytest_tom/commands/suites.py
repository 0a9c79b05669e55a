"""`pytest-tom suites [--copy DIR]`: the bundled suites, and a copy of them to edit.

They are listed by their `--tom-suite` name (the folder), with the suite's own name,
family, scenarios and items, and where they come from (an installed package or a
checkout). `--copy DIR` writes them out as `DIR/<name>/<file>.tom.yaml`; a file that
exists is left alone (and said), so a copy you edited is never overwritten.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from tabulate import tabulate

from pytest_tom.engine import bundled

NAME = "suites"
HELP = "list the bundled suites (run them with --tom-suite NAME) or copy them out to edit"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="bundled names to list or copy (default: all; `bundled`: all)")
    parser.add_argument("--copy", metavar="DIR",
                        help="write the suites out to DIR/<name>/ (existing files are kept)")


def run(args: argparse.Namespace) -> int:
    try:
        selected = bundled.resolve(",".join(args.names)) if args.names else bundled.names()
        rows = bundled.describe(selected)
        source = bundled.where()
    except (ValueError, bundled.BundledSuitesMissing) as exc:
        print(f"pytest-tom suites: {str(exc).removeprefix('--tom-suite: ')}", file=sys.stderr)
        return 2
    if args.copy:
        return copy_out(rows, Path(args.copy))
    table = [[r.name, r.path.name, r.suite, r.family, f"{r.scenarios:,}", f"{r.items:,}"]
             for r in rows]
    print(tabulate(table, headers=["--tom-suite", "file", "suite", "family", "scenarios",
                                   "items"], colalign=("left",) * 4 + ("right",) * 2))
    print(f"\n{len(rows)} suite files, {sum(r.items for r in rows):,} items, from {source}")
    print("run: pytest --tom-model=SPEC --tom-suite=NAME[,NAME...]  (bundled: all) · "
          "edit: pytest-tom suites --copy DIR")
    return 0


def copy_out(rows: list[bundled.BundledSuite], target: Path) -> int:
    written = kept = 0
    for row in rows:
        dest = target / row.name / row.path.name
        if dest.exists():
            print(f"kept {dest} (exists)")
            kept += 1
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(row.path, dest)
        written += 1
    print(f"{written} suite file(s) written to {target}" + (f", {kept} kept" if kept else "")
          + f"; run them with: pytest {target} --tom-model=SPEC")
    return 0
