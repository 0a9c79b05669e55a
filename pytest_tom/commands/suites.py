"""`pytest-tom suites [--copy DIR]`: the bundled suites and the fetched ones, and a copy of
them to edit.

They are listed by their `--tom-suite` name (the folder), with the suite's own name,
family, scenarios and items, whether the suite is bundled (in the installed package or a
checkout) or fetched (`pytest-tom fetch`, in the fetch folder: `--dir`, default as fetch's),
and where they come from. `--copy DIR` writes them out as `DIR/<name>/<file>.tom.yaml`; a
file that exists is left alone (and said), so a copy you edited is never overwritten.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from tabulate import tabulate

from pytest_tom.catalogue import bundled
from pytest_tom.catalogue import fetch_folder as fetched
from pytest_tom.catalogue.named_suites import NamedSuites, resolve

NAME = "suites"
HELP = ("list the bundled and fetched suites (run them with --tom-suite NAME) or copy them "
        "out to edit")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="names to list or copy (default: all; `bundled`: every bundled "
                             "one)")
    parser.add_argument("--copy", metavar="DIR",
                        help="write the suites out to DIR/<name>/ (existing files are kept)")
    parser.add_argument("--dir", metavar="DIR",
                        help="the fetch folder to list (default: as pytest-tom fetch's)")


def run(args: argparse.Namespace) -> int:
    root = fetched.root_of(args.dir)
    have = fetched.fetched(root)
    try:
        if args.names:
            named = resolve(",".join(args.names), root)
        else:
            named = NamedSuites(bundled.names(), list(have), root)
        rows = bundled.describe(named.bundled) if named.bundled else []
        source = bundled.where()
    except (ValueError, bundled.BundledSuitesMissing) as exc:
        print(f"pytest-tom suites: {str(exc).removeprefix('--tom-suite: ')}", file=sys.stderr)
        return 2
    kinds = ["bundled"] * len(rows)
    for name in named.fetched:
        for row in have[name].suites():
            rows.append(bundled.BundledSuite(name, row["suite"], row["family"],
                                             row["scenarios"], row["items"],
                                             have[name].folder / row["file"]))
            licence = have[name].licence
            kinds.append("fetched" if licence.get("commercial", True)
                         else f"fetched ({licence.get('name')}: non-commercial)")
    if args.copy:
        return copy_out(rows, Path(args.copy))
    table = [[r.name, r.path.name, r.suite, r.family, f"{r.scenarios:,}", f"{r.items:,}", kind]
             for r, kind in zip(rows, kinds, strict=True)]
    print(tabulate(table, headers=["--tom-suite", "file", "suite", "family", "scenarios",
                                   "items", "from"],
                   colalign=("left",) * 4 + ("right",) * 2 + ("left",)))
    print(f"\n{len(rows)} suite files, {sum(r.items for r in rows):,} items; bundled from "
          f"{source}")
    fetched_here = named.fetched if args.names else list(have)
    if fetched_here:
        print(f"fetched ({', '.join(fetched_here)}) in {root}")
    else:
        print(f"fetched: none in {root} (pytest-tom fetch lists what can be fetched)")
    print("run: pytest --tom-model=SPEC --tom-suite=NAME[,NAME...]  (bundled: all bundled)"
          f"{fetched.dir_option(root, '--tom-fetch-dir')} · edit: pytest-tom suites --copy DIR")
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
