"""Without `--tom-model` the plugin is inert; say so when the user clearly meant a tom run.

`pytest suites/x.tom.yaml` without a model would otherwise end in pytest's
"not found" or "no tests ran", which does not say why. A suite file named on
the command line is a usage error that says how to activate the plugin; a
folder holding suite files gets a note at the end of the run. Only the
command-line arguments are looked at, and a folder is scanned only a little.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Any

import pytest

HOW = ("pytest-tom is inactive: pass --tom-model=SPEC to run the suites, e.g. "
       "--tom-model=local (the bundled small model), --tom-model=openai:MODEL "
       "[--tom-base-url=URL] or --tom-model=python:MODULE:FUNCTION; or set tom_model in the "
       "ini file")
SCAN_LIMIT = 2000  # directory entries looked at per folder argument


def _matches(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, p) for p in patterns)


def _suites_under(folder: Path, patterns: list[str]) -> int:
    seen = found = 0
    for _root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            seen += 1
            found += _matches(name, patterns)
        seen += len(dirs)
        if seen > SCAN_LIMIT:
            break
    return found


def check_inactive(config: pytest.Config, patterns: list[str]) -> None:
    """UsageError for a suite file named without a model; a note for folders with suites."""
    files, folders = [], 0
    for arg in config.args:
        path = Path(str(arg).split("::")[0])
        if _matches(path.name, patterns) and path.is_file():
            files.append(str(path))
        elif path.is_dir():
            folders += _suites_under(path, patterns)
    if files:
        raise pytest.UsageError(f"{', '.join(files)}: a pytest-tom suite, but {HOW}")
    if folders:
        config.pluginmanager.register(InactiveNote(folders), "tom-inactive-note")


class InactiveNote:
    def __init__(self, count: int):
        self.count = count

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminalreporter.write_line(
            f"note: {self.count} pytest-tom suite file(s) (*.tom.yaml) were not collected: {HOW}",
            yellow=True)
