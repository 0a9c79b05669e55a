"""`pytest-tom init [DIR]`: what a model repository needs to start, and nothing else.

- the ini keys (`INI_KEYS`) in the file pytest reads: the existing pytest configuration
  (pytest.ini, .pytest.ini, pyproject.toml, tox.ini, setup.cfg, in pytest's order), else
  `pyproject.toml` when there is one, else a new `pytest.ini`; a key already set is never
  changed;
- `tom/`: a small example suite of the repository's own and a placeholder answerer;
- `conftest.py`, only when the folder has none: the `pytest_tom_backend` hook answering
  `--tom-model=mymodel` with a placeholder model to replace by the repository's own;
- `.github/workflows/tom.yml`: a CI job that runs the suites in report mode, gates
  against the committed baseline `tom/baseline.json` (or saves one, the first time),
  writes the step summary and uploads the HTML and JSON reports.

Every file that exists is left as it is, so a second run changes nothing and says so.
"""

from __future__ import annotations

import argparse
import configparser
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from pytest_tom.commands import init_templates as templates

NAME = "init"
HELP = "set up pytest-tom in a repository: ini keys, tom/ with an example suite, a CI workflow"

# the keys written into the ini file, with the comment above each
INI_KEYS: tuple[tuple[str, str, str], ...] = (
    ("tom_items", "report",
     "wrong answers are xfails with their reason; the gates set the exit status"),
    ("tom_report", "tom-report.json", "every run's JSON report (scores and every item)"),
)

try:  # Python 3.11+: check a pyproject.toml edit before it is written
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    tomllib = None  # type: ignore[assignment]


@dataclass
class Changes:
    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", nargs="?", default=".",
                        help="the repository's root (default: the current folder)")


def run(args: argparse.Namespace) -> int:
    root = Path(args.directory)
    if not root.is_dir():
        print(f"pytest-tom init: {root}: no such folder", file=sys.stderr)
        return 2
    changes = Changes()
    try:
        write_ini_keys(root, changes)
    except IniEditError as exc:
        print(f"pytest-tom init: {exc}", file=sys.stderr)
        return 2
    files = {
        "tom/example.tom.yaml": templates.EXAMPLE_SUITE,
        "tom/answer.py": templates.ANSWERER,
        ".github/workflows/tom.yml": templates.WORKFLOW,
    }
    for rel, text in files.items():
        write_new(root, rel, text, changes)
    if (root / "conftest.py").exists():
        changes.kept.append("conftest.py (exists: nothing added)")
    else:
        write_new(root, "conftest.py", templates.CONFTEST, changes)
    for line in changes.written:
        print(f"wrote {line}")
    for line in changes.kept:
        print(f"kept  {line}")
    if not changes.written:
        print("nothing to do: pytest-tom init has set up this folder already (nothing changed)")
        return 0
    print("\nnext:\n"
          "  pytest tom --tom-model=mymodel                          # conftest.py's hook answers\n"
          "  pytest tom --tom-model=python:tom/answer.py:answer     # the example, end to end\n"
          "  pytest tom --tom-suite=fantom --tom-model=openai:MODEL --tom-base-url=URL\n"
          "  pytest tom --tom-suite=bundled --tom-model=SPEC --tom-save-baseline=tom/baseline.json"
          "   # then commit tom/baseline.json: CI gates against it")
    return 0


def write_new(root: Path, rel: str, text: str, changes: Changes) -> None:
    path = root / rel
    if path.exists():
        changes.kept.append(f"{rel} (exists)")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    changes.written.append(rel)


# -- the ini file ----------------------------------------------------------------------------
class IniEditError(ValueError):
    """A configuration file that cannot be edited safely (named, with the fix)."""


_TOML_TABLES = ("tool.pytest.ini_options", "tool.pytest")


def _toml_table(text: str) -> str | None:
    for table in _TOML_TABLES:
        if re.search(rf"^\[{re.escape(table)}\]\s*(#.*)?$", text, re.MULTILINE):
            return table
    return None


def _ini_section(path: Path, section: str) -> bool:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except configparser.Error as exc:
        raise IniEditError(f"{path}: not readable as an ini file ({exc}); add the keys by "
                           f"hand") from None
    return parser.has_section(section)


def config_file(root: Path) -> tuple[Path, str]:
    """The file and section/table to write to: the one pytest reads, in pytest's order,
    else pyproject.toml if there is one, else a new pytest.ini."""
    for name in ("pytest.ini", ".pytest.ini"):
        if (root / name).is_file():
            return root / name, "pytest"
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        table = _toml_table(pyproject.read_text(encoding="utf-8"))
        if table:
            return pyproject, table
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        if (root / name).is_file() and _ini_section(root / name, section):
            return root / name, section
    if pyproject.is_file():
        return pyproject, "tool.pytest.ini_options"
    return root / "pytest.ini", "pytest"


def write_ini_keys(root: Path, changes: Changes) -> None:
    path, section = config_file(root)
    rel = path.name
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    toml = path.suffix == ".toml"
    header = f"[{section}]"
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines)
                  if line.split("#")[0].strip() == header), None)
    if start is None:
        end = len(lines)
        existing: set[str] = set()
    else:
        end = next((i for i in range(start + 1, len(lines))
                    if lines[i].lstrip().startswith("[")), len(lines))
        key = re.compile(r"^\s*([A-Za-z0-9_.\-\"']+)\s*[=:]")
        existing = {m.group(1).strip("\"'") for line in lines[start + 1:end]
                    if (m := key.match(line))}
    missing = [(k, v, why) for k, v, why in INI_KEYS if k not in existing]
    for k, _v, _why in INI_KEYS:
        if k in existing:
            changes.kept.append(f"{rel} [{section}] {k} (set already)")
    if not missing:
        return
    block = ["# pytest-tom (pytest-tom init); the model is given with --tom-model"]
    for k, v, why in missing:
        block.append(f"# {why}")
        block.append(f'{k} = "{v}"' if toml else f"{k} = {v}")
    if start is None:
        if lines and lines[-1].strip():
            lines.append("")
        lines += [header, *block]
    else:
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1  # after the table's last line, before the blank lines that close it
        lines[end:end] = block
    new = "\n".join(lines) + "\n"
    if toml and tomllib is not None:
        try:
            tomllib.loads(new)
        except tomllib.TOMLDecodeError as exc:
            raise IniEditError(f"{path}: adding the keys would not give valid TOML ({exc}); "
                               f"add them to [{section}] by hand: "
                               + ", ".join(f'{k} = "{v}"' for k, v, _ in missing)) from None
    path.write_text(new, encoding="utf-8")
    changes.written.append(f"{rel} [{section}]: " + ", ".join(k for k, _v, _w in missing))
