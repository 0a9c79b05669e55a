"""What every family's `pytest-tom convert <name>` command shares; the kit exports these
names and the module itself (`from pytest_tom.families.kit import convert_kit`).

A converter declares the input file or folder and the output folder (`add_input_output`)
and, where it writes one suite, its name and a limit (`add_suite_limit`). Its `run(args)`
refuses those arguments before it reads anything (`arguments_refused`, exit 2), reads
the upstream release naming every problem of it at once (`ConvertError`), reports them
and writes nothing when there is one (`problems_reported`, exit 1), and writes each
suite file (`write_suite_in(folder, name, document)`). `run_converter` is that whole
shape, so a converter's `run(args)` names only what it converts, writes and prints. What
a family reads, checks and prints beyond these stays in its own `convert.py`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from pytest_tom.families.document import SuiteDocument
from pytest_tom.suite.schema import ITEM_ID
from pytest_tom.suite.yaml_out import dump_suite

T = TypeVar("T")
SUITE_SUFFIX = ".tom.yaml"
SUITE_FOLDER = "folder for the suite file (created if missing)"


def add_input_output(parser: argparse.ArgumentParser, input_help: str,
                     output_help: str = SUITE_FOLDER) -> None:
    """The upstream file or folder (`input`) and the folder written into (`-o DIR`)."""
    parser.add_argument("input", type=Path, help=input_help)
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="DIR",
                        help=output_help)


def add_suite_limit(parser: argparse.ArgumentParser, suite_help: str, limit_help: str,
                    suite_default: str | None = None) -> None:
    """`--suite NAME` (None: the converter's default) and `--limit N`, which
    `arguments_refused` checks."""
    parser.add_argument("--suite", metavar="NAME", default=suite_default, help=suite_help)
    parser.add_argument("--limit", type=int, metavar="N", help=limit_help)


class ConvertError(Exception):
    """Problems in the input; each line reads `file:line: message`."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def arguments_refused(prog: str, args: argparse.Namespace, *, folder: bool = False,
                      input_last: bool = False) -> bool:
    """Print the first problem of the shared arguments and say whether there was one: the
    input (`args.input`: a file, or a folder with `folder`) missing, a `--suite` that is no
    suite name (`args.suite`; None, the converter's default, passes), a `--limit` below 1.
    The input is checked first, or last with `input_last`."""
    checks = [_suite_problem, _limit_problem]
    checks = [*checks, _input_problem] if input_last else [_input_problem, *checks]
    for check in checks:
        problem = check(args, folder)
        if problem:
            print(f"{prog}: {problem}", file=sys.stderr)
            return True
    return False


def _input_problem(args: argparse.Namespace, folder: bool) -> str | None:
    path = Path(args.input)
    if folder:
        return None if path.is_dir() else f"no such folder: {path}"
    return None if path.is_file() else f"no such file: {path}"


def _suite_problem(args: argparse.Namespace, _folder: bool) -> str | None:
    suite = getattr(args, "suite", None)
    if suite is None or ITEM_ID.match(suite):
        return None
    return (f"--suite {suite!r}: use letters, digits, _, - and . (starting with a letter "
            f"or digit)")


def _limit_problem(args: argparse.Namespace, _folder: bool) -> str | None:
    limit = getattr(args, "limit", None)
    return "--limit must be at least 1" if limit is not None and limit < 1 else None


def problems_reported(prog: str, exc: ConvertError) -> int:
    """Print every problem of the release and that nothing was written; the exit status 1."""
    print("\n".join(exc.problems), file=sys.stderr)
    print(f"{prog}: {len(exc.problems)} problem(s); nothing written", file=sys.stderr)
    return 1


def suite_file(folder: Path, stem: str) -> Path:
    """The suite file `stem` in `folder`: `<folder>/<stem>.tom.yaml`."""
    return folder / f"{stem}{SUITE_SUFFIX}"


def write_suite(document: SuiteDocument, path: Path) -> Path:
    """Write the suite document as YAML at `path` (its folder created); `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_suite(document), encoding="utf-8")
    return path


def write_suite_in(folder: Path, stem: str, document: SuiteDocument) -> Path:
    """Write the suite document as `<folder>/<stem>.tom.yaml`; its path."""
    return write_suite(document, suite_file(folder, stem))


def run_converter(prog: str, args: argparse.Namespace, convert: Callable[[], T],
                  written: Callable[[T], Iterable[str]], *, folder: bool = False,
                  input_last: bool = False) -> int:
    """A converter's `run(args)`: the shared arguments refused with the first problem
    (`arguments_refused`, exit 2); `convert()` reads the release, and every problem it
    raises (`ConvertError`) is reported with nothing written (exit 1); else
    `written(result)` writes the suite files and gives the lines printed (exit 0)."""
    if arguments_refused(prog, args, folder=folder, input_last=input_last):
        return 2
    try:
        result = convert()
    except ConvertError as exc:
        return problems_reported(prog, exc)
    for line in written(result):
        print(line)
    return 0
