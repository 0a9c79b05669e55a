"""Expensive test inputs made once per test session, not once per xdist worker.

A session fixture runs once in each process: under `-n 2` an artifact such as the saved
reports of two whole bundled runs was made twice, each time at full cost. `shared_folder`
builds it once, in a folder every worker of the session sees (the parent of each worker's
own base temp folder), under an exclusive file lock: the first worker to ask builds it,
the other waits on the lock and then reuses it. A build that fails leaves no marker, so
the next worker to ask tries again and fails with its own error.

Only for inputs that tests read and never change: a test that writes to an artifact would
see what another test wrote.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

_DONE = ".built"


def session_root(factory: pytest.TempPathFactory) -> Path:
    """The folder this test session's processes share: under xdist the parent of each
    worker's base temp folder (`.../pytest-N/popen-gw0` → `.../pytest-N`), else the base
    temp folder itself."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared_folder(factory: pytest.TempPathFactory, name: str,
                  build: Callable[[Path], None]) -> Path:
    """The folder `name` of this session, filled by `build(folder)` exactly once across
    the session's processes."""
    root = session_root(factory) / "shared-artifacts"
    root.mkdir(parents=True, exist_ok=True)
    folder = root / name
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (folder / _DONE).exists():
                shutil.rmtree(folder, ignore_errors=True)  # a build that failed half-way
                folder.mkdir()
                build(folder)
                (folder / _DONE).touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder
