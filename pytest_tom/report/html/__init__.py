"""The self-contained HTML report (extra `html`: Jinja2 and matplotlib)."""

from __future__ import annotations

import importlib.util

NEEDS = ("jinja2", "matplotlib")


def missing() -> list[str]:
    """The packages of the `html` extra that are not installed."""
    return [name for name in NEEDS if importlib.util.find_spec(name) is None]


def usage_problem(path: str | None) -> str | None:
    """Why `--tom-html PATH` cannot work, checked before the run (None when it can)."""
    if path is None:
        return None
    if not str(path).strip():
        return "--tom-html: give a file path, e.g. --tom-html=tom-report.html"
    lacking = missing()
    if lacking:
        return (f"--tom-html needs {', '.join(lacking)}: pip install 'pytest-tom[html]'")
    return None
