"""Writing a file atomically: a temporary file beside the target, renamed over it.

A reader (a CI step, a dashboard) never sees half a file, and a crash leaves the
previous file in place. The file gets the usual permissions (0666 less the
umask), not the 0600 that `tempfile.mkstemp` gives.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def try_write(errors: list[str], what: str, path: str | Path, write: Callable[[], None]) -> bool:
    """Run `write()`; when the disk refuses (full, read-only, the path is a directory ...),
    add one line naming `what`, the path and the reason to `errors` instead of raising,
    so that the run's summary is still printed. True when written."""
    try:
        write()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        if Path(path).is_dir():
            reason = f"{reason}: the path is a directory, give a file name"
        errors.append(f"tom {what} NOT written to {path}: {reason}")
        return False
    return True


def write_atomic(path: str | Path, chunks: str | Iterable[str]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            if isinstance(chunks, str):
                fh.write(chunks)
            else:
                for chunk in chunks:
                    fh.write(chunk)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
