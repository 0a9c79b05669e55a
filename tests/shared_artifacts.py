"""Expensive test artifacts made once per test session, shared by every xdist worker.

A session fixture runs once per process: under `-n 2` each worker would make its own
copy of a converted model directory (two minutes each on a loaded 2-core machine), or of
the saved reports of whole runs of the bundled suites. Here
the first worker to ask builds the artifact in the folder all workers of the session
share (`getbasetemp().parent` under xdist, as pytest-xdist's docs "Making session-scoped
fixtures execute only once" show), under an `fcntl.flock`; the others wait for the lock
and reuse what it built. A build that failed is not started again by the next worker:
it fails at once with the first one's error.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def session_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of this test session that every xdist worker sees (its own basetemp
    without xdist: never a folder that another session left)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` (made if absent) across processes, held while inside."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def shared_artifact(tmp_path_factory: pytest.TempPathFactory, name: str,
                    build: Callable[[Path], None]) -> Path:
    """The folder `name` of this session, filled by `build(folder)` the first time any
    process of the session asks for it (the folder exists and is empty when `build` runs).
    Raises (in every process) if `build` raised."""
    root = session_folder(tmp_path_factory) / "shared-artifacts"
    root.mkdir(exist_ok=True)
    folder, done, failed = root / name, root / f"{name}.done", root / f"{name}.failed"
    with file_lock(root / f"{name}.lock"):
        if failed.exists():
            pytest.fail(f"building the shared test artifact {name} failed in another "
                        f"process of this session:\n{failed.read_text()}", pytrace=False)
        if not done.exists():
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir()
            try:
                build(folder)
            except Exception:
                failed.write_text(traceback.format_exc())
                raise
            done.touch()
    return folder
