"""`pytest --markers`: the family markers always, and with `--tom-model` the tags and item
markers of the suites named on the command line.

During a run markers are registered as items are collected; `--markers` collects
nothing, so without this it would list only `tom`.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

from pytest_tom import families
from pytest_tom.catalogue.load import load_suite
from pytest_tom.core.option_table import TomOptions
from pytest_tom.families.base import Settings
from pytest_tom.suite import SuiteError

_MARKER_OK = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def suite_files(args: list[str], patterns: list[str], limit: int = 500) -> list[Path]:
    found: list[Path] = []
    for arg in args:
        path = Path(str(arg).split("::")[0])
        candidates = [path] if path.is_file() else sorted(path.rglob("*")) if path.is_dir() else []
        for p in candidates:
            if p.is_file() and any(fnmatch.fnmatch(p.name, pat) for pat in patterns):
                found.append(p)
            if len(found) >= limit:
                return found
    return found


def register_markers(config: pytest.Config, options: TomOptions) -> None:
    for name in families.available():
        config.addinivalue_line("markers", f"tom_{name}: every item of the {name} family (pytest-tom)")
    config.addinivalue_line("markers", "<tag>: every tag of a pytest-tom suite is a marker of "
                            "its items (e.g. -m false_belief); with --tom-model, pytest "
                            "--markers SUITES lists them")
    if not options.model:
        return

    settings = Settings(method=options.method or "vanilla", seed=options.seed or 0,
                        options=options.as_dict())
    seen: dict[str, set[str]] = {}
    kinds: dict[str, str] = {}
    for path in suite_files(list(config.args), str(options.files or "*.tom.yaml").split()):
        try:
            suite = load_suite(path, settings)
        except SuiteError:
            continue
        for spec in suite.items:
            for tag in spec.tags:
                seen.setdefault(tag, set()).add(suite.name)
            for m in spec.markers:
                kinds.setdefault(m, suite.family)
    for tag in sorted(seen):
        if _MARKER_OK.match(tag):
            config.addinivalue_line("markers", f"{tag}: pytest-tom tag ({', '.join(sorted(seen[tag]))})")
    for m in sorted(set(kinds) - set(seen)):
        if _MARKER_OK.match(m):
            config.addinivalue_line("markers", f"{m}: pytest-tom {kinds[m]} item marker")
