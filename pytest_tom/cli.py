"""The `pytest-tom` command: work that is not a test run.

    pytest-tom validate FILE...            check suites without running a model
    pytest-tom convert FAMILY INPUT -o DIR  turn upstream benchmark data into suites
    pytest-tom compare A.json B.json ...    compare saved runs with paired significance tests
    pytest-tom html REPORT.json... -o PATH  one self-contained HTML report of saved runs
    pytest-tom suites [--copy DIR]          the bundled suites (run them with --tom-suite)
    pytest-tom init [DIR]                   set up pytest-tom in a model repository
    pytest-tom serve [FILE.gguf] --port N   a GGUF model as an OpenAI-compatible endpoint

Each family declares its converters (`Family.converters`: subcommand -> module,
built-in ones in `families/<name>/convert.py`); a converter module exposes
`add_arguments(parser)` and `run(args) -> int`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from pytest_tom import families
from pytest_tom.commands import init, serve, suites
from pytest_tom.compare.main import run_compare, run_html
from pytest_tom.engine.load import load_suite
from pytest_tom.engine.suite_names import SuiteNames
from pytest_tom.families.base import Settings
from pytest_tom.plugin.speed import paused_gc
from pytest_tom.suite import SuiteError


def plural(n: int, word: str) -> str:
    """`1 scenario`, `2 scenarios`, `1,088 items`."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def cmd_validate(args: argparse.Namespace) -> int:
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


def cmd_compare(args: argparse.Namespace) -> int:
    return run_compare(args)


def cmd_html(args: argparse.Namespace) -> int:
    return run_html(args)


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options `compare` and `html` share: names of the runs and the bootstrap's settings."""
    parser.add_argument("--labels", metavar="A,B,...",
                        help="names of the runs, comma-separated (default: the model names)")
    parser.add_argument("--seed", type=int, default=0,
                        help="bootstrap seed of the comparison (default 0)")
    parser.add_argument("--resamples", type=int, default=1000,
                        help="bootstrap resamples of the comparison (default 1000)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pytest-tom", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="check suite files (no model is run)")
    v.add_argument("files", nargs="+", help="suite files or folders (searched for *.tom.yaml)")
    v.add_argument("--method", default="vanilla", help="check that the families offer this method")
    v.add_argument("--seed", type=int, default=0)
    v.set_defaults(func=cmd_validate)
    cmp = sub.add_parser("compare", help="compare saved JSON reports (models as columns, "
                         "paired significance tests, flipped items)")
    cmp.add_argument("reports", nargs="+", metavar="REPORT.json",
                     help="JSON reports (--tom-report); the first is the reference")
    cmp.add_argument("--markdown", metavar="PATH", help="also write the comparison as Markdown")
    cmp.add_argument("--html", metavar="PATH", help="also write the HTML report of these runs")
    cmp.add_argument("--json", metavar="PATH", help="also write the comparison as JSON")
    cmp.add_argument("--all", action="store_true",
                     help="print every row (tags, conditions, classes), not only the headline")
    _add_run_options(cmp)
    cmp.set_defaults(func=cmd_compare)
    h = sub.add_parser("html", help="write one self-contained HTML report of saved JSON reports")
    h.add_argument("reports", nargs="+", metavar="REPORT.json", help="JSON reports (--tom-report)")
    h.add_argument("-o", "--output", required=True, metavar="PATH", help="the HTML file to write")
    _add_run_options(h)
    h.set_defaults(func=cmd_html)
    for command in (suites, init, serve):  # a module per subcommand (pytest_tom/commands/)
        p = sub.add_parser(command.NAME, help=command.HELP,
                           description=(command.__doc__ or "").split("\n\n")[0])
        command.add_arguments(p)
        p.set_defaults(func=command.run)
    c = sub.add_parser("convert", help="convert upstream benchmark data into suites")
    csub = c.add_subparsers(dest="family", required=True)

    for name, target in families.converters().items():
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
