"""`pytest-tom init [DIR]`: what a model repository needs to start, and nothing else.

- the ini keys (`INI_KEYS`) in the file pytest reads: the existing pytest configuration
  (pytest.ini, .pytest.ini, pyproject.toml, tox.ini, setup.cfg, in pytest's order), else
  `pyproject.toml` when there is one, else a new `pytest.ini`; a key already set is never
  changed;
- `tom/`: a small example suite of the repository's own and a placeholder answerer;
- the `pytest_tom_backend` hook answering `--tom-model=mymodel` with a placeholder model
  to replace by the repository's own: in `conftest.py` when the folder has none; when it
  has one (init never edits it) in `tom/conftest.py`, which pytest loads for `pytest tom
  ...`; nothing when a conftest already implements the hook;
- `.github/workflows/tom.yml`: a CI job that installs the repository (so a conftest that
  imports the model works), runs the suites in report mode, gates against the committed
  baseline `tom/baseline.json` (or saves one, the first time), writes the step summary and
  uploads the HTML and JSON reports;
- `.gitignore`: the JSON report every run writes (`tom_report`), added when missing.

Every file that exists is left as it is (`.gitignore` and the ini file only gain the lines
they lack), so a second run changes nothing and says so. The "next:" lines it prints run
as printed; the lines after them need the user's model (their capitals are placeholders).
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
    hook = write_hook(root, changes)
    write_gitignore(root, report_path(root), changes)
    for line in changes.written:
        print(f"wrote {line}")
    for line in changes.kept:
        print(f"kept  {line}")
    if not changes.written:
        print("nothing to do: pytest-tom init has set up this folder already (nothing changed)")
        return 0
    print("\n" + next_steps(hook))
    return 0


HOOK_TEMPLATE_MARK = 'if spec == "mymodel":'  # in templates.CONFTEST: the placeholder hook
_HOOK_DEF = re.compile(r"^\s*def\s+pytest_tom_backend\s*\(", re.MULTILINE)


@dataclass(frozen=True)
class Hook:
    """Where the `pytest_tom_backend` hook is after init: the file, and whether it is the
    placeholder that answers `--tom-model=mymodel` (else the repository's own)."""

    path: str
    mymodel: bool


def _hook_in(root: Path, rel: str) -> Hook | None:
    path = root / rel
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    if not _HOOK_DEF.search(text):
        return None
    return Hook(rel, HOOK_TEMPLATE_MARK in text)


def write_hook(root: Path, changes: Changes) -> Hook | None:
    """The placeholder hook where pytest finds it, never in a conftest.py of the user's."""
    for rel in ("conftest.py", "tom/conftest.py"):
        hook = _hook_in(root, rel)
        if hook is not None:
            changes.kept.append(f"{rel} (exists, with a pytest_tom_backend hook)")
            return hook
    if not (root / "conftest.py").exists():
        write_new(root, "conftest.py", templates.CONFTEST, changes)
        return Hook("conftest.py", True)
    changes.kept.append("conftest.py (exists: nothing added; the hook goes to tom/conftest.py)")
    if (root / "tom/conftest.py").exists():
        changes.kept.append("tom/conftest.py (exists, without a pytest_tom_backend hook)")
        return None
    write_new(root, "tom/conftest.py", templates.TOM_CONFTEST, changes)
    return Hook("tom/conftest.py", True)


def next_steps(hook: Hook | None) -> str:
    """The commands to try: the first block runs as printed (tested), the second needs the
    user's model or server (its capitals are placeholders)."""
    now = ["  pytest tom --tom-model=python:tom/answer.py:answer     # the example, end to end"]
    later = ["  pytest tom --tom-suite=fantom --tom-model=openai:MODEL --tom-base-url=URL",
             "  pytest tom --tom-suite=bundled --tom-model=SPEC --tom-save-baseline=tom/baseline.json"
             "   # then commit tom/baseline.json: CI gates against it"]
    if hook is not None and hook.mymodel:
        now.append(f"  pytest tom --tom-model=mymodel                          # {hook.path}'s "
                   f"hook answers: put your model in its MyModel")
    elif hook is not None:
        later.insert(0, f"  pytest tom --tom-model=SPEC      # a spec the pytest_tom_backend hook "
                        f"of {hook.path} answers")
    return "\n".join(["next (runs as printed):", *now,
                      "then, with your model (replace the capitals):", *later])


def report_path(root: Path) -> str:
    """The `tom_report` in effect in the pytest configuration init writes to."""
    path, section = config_file(root)
    if path.exists():
        value = _section_values(path.read_text(encoding="utf-8"), f"[{section}]").get("tom_report")
        if value:
            return value
    return dict((k, v) for k, v, _ in INI_KEYS)["tom_report"]


def write_gitignore(root: Path, entry: str, changes: Changes) -> None:
    """`entry` (the JSON report path) in .gitignore: added when no line ignores it already."""
    path = root / ".gitignore"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = {line.strip() for line in text.splitlines()}
    if entry in lines or f"/{entry}" in lines:
        changes.kept.append(f".gitignore ({entry} ignored already)")
        return
    block = f"# pytest-tom (pytest-tom init): the JSON report every run writes\n{entry}\n"
    if text and not text.endswith("\n"):
        text += "\n"
    if text.strip():
        text += "\n"  # a blank line between the user's lines and ours
    path.write_text(text + block, encoding="utf-8")
    changes.written.append(f".gitignore: {entry}")


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


_KEY = re.compile(r"^\s*([A-Za-z0-9_.\-\"']+)\s*[=:]\s*(.*?)\s*$")


def _section_values(text: str, header: str) -> dict[str, str]:
    """The `key = value` lines of one section or table (values unquoted, comments kept out)."""
    values: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        bare = line.split("#")[0].strip()
        if bare.startswith("["):
            inside = bare == header
        elif inside and (m := _KEY.match(line.split(" #")[0])):
            values[m.group(1).strip("\"'")] = m.group(2).strip().strip("\"'")
    return values


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
