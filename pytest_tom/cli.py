"""The `pytest-tom` command: work that is not a test run.

    pytest-tom validate FILE...            check suites without running a model
    pytest-tom convert FAMILY INPUT -o DIR  turn upstream benchmark data into suites
    pytest-tom compare A.json B.json ...    compare saved runs with paired significance tests
    pytest-tom html REPORT.json... -o PATH  one self-contained HTML report of saved runs
    pytest-tom suites [--copy DIR]          the bundled and fetched suites (--tom-suite NAME)
    pytest-tom fetch NAME...                download a benchmark's official files as suites
    pytest-tom init [DIR]                   set up pytest-tom in a model repository
    pytest-tom serve [FILE.gguf] --port N   a GGUF model as an OpenAI-compatible endpoint
    pytest-tom hf-model DIR                 the embedded model as a transformers directory (hf:)
    pytest-tom merge PART.json... -o ALL.json  one report from the reports of CI shards
    pytest-tom gate REPORT.json [--tom-baseline B] [--tom-fail-under ...]  the gates of a run

This module only dispatches: each subcommand is a module of `pytest_tom/commands/`
with `NAME`, `HELP`, `add_arguments(parser)` and `run(args) -> int`.
"""

from __future__ import annotations

import argparse
import sys
from types import ModuleType

from pytest_tom.commands import (
    compare,
    convert,
    fetch,
    gate,
    hf_model,
    html,
    init,
    merge,
    serve,
    suites,
    validate,
)

COMMANDS: tuple[ModuleType, ...] = (validate, compare, html, suites, fetch, init, serve,
                                    hf_model, convert, merge, gate)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pytest-tom", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        p = sub.add_parser(module.NAME, help=module.HELP,
                           description=(module.__doc__ or module.HELP).split("\n\n")[0])
        module.add_arguments(p)
        p.set_defaults(command_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    run = getattr(args, "func", None) or args.command_module.run  # convert: its converter's
    return int(run(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
