"""A pytest run of the checkout's suites in this process, as a run of its own would see it.

A run in a new process loads again what this one has loaded: FANToM's embedding model
(6-9 s of CPU; an xdist worker of the test session loads it for other tests anyway), the
plugin and its dependencies (1-2 s). `run_here` makes the run with `pytest.main` instead,
in the given folder, with the given terminal width, no PYTEST_ADDOPTS and its output to a
file that is not a terminal; afterwards the modules named `conftest` (a run of the
checkout imports its root one, the tests import their own by that name), `sys.path`, the
current folder and the environment are what they were.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class RunOutput:
    """What an in-process run returned and printed."""

    code: int
    stdout: str
    stderr: str


def run_here(args: list[str], cwd: Path, columns: int | None = None) -> RunOutput:
    """`pytest <args>` in `cwd`, in this process. pytest-rerunfailures is left out (an old
    one starts a status server in every run, whose thread would outlive the run here)."""
    changed = {"PYTEST_ADDOPTS": None, "COLUMNS": str(columns) if columns else None}
    saved_env = {key: os.environ.get(key) for key in changed}
    saved_conftest, saved_path, saved_dir = sys.modules.get("conftest"), list(sys.path), \
        os.getcwd()
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        for key, value in changed.items():
            _set_env(key, value)
        os.chdir(cwd)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = int(pytest.main(["-p", "no:rerunfailures", *args]))
    finally:
        os.chdir(saved_dir)
        sys.path[:] = saved_path
        if saved_conftest is None:
            sys.modules.pop("conftest", None)
        else:
            sys.modules["conftest"] = saved_conftest
        for key, value in saved_env.items():
            _set_env(key, value)
    return RunOutput(code, stdout.getvalue(), stderr.getvalue())


def _set_env(key: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = value
