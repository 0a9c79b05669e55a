"""Writing a file atomically: a temporary file beside the target, renamed over it.

A reader (a CI step, a dashboard) never sees half a file, and a crash leaves the
previous file in place. The file gets the usual permissions (0666 less the
umask), not the 0600 that `tempfile.mkstemp` gives.

`unwritable` checks a path at the start of a run, before anything is asked: a
directory, a folder that cannot be created or written (read-only, a file in the
way, a read-only file system) is found then, not after hours of requests. A
missing folder is created then (as the write itself would).
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


def unwritable(path: str | Path, atomic: bool = True) -> str | None:
    """Why `path` cannot be written (one phrase), or None when it can.

    Proven, not guessed from permission bits (root ignores them): the folder is
    created when missing and a probe file is made in it and removed. `atomic`:
    written by `write_atomic` (the folder must take a new file); otherwise
    opened in place (`--junitxml`), so an existing file must open for writing and
    a device or pipe (`/dev/stdout`) is left alone.
    """
    target = Path(path).expanduser()
    if target.is_dir():
        return "is a directory: give a file name"
    if not atomic and target.exists():
        if not target.is_file():
            return None  # a device or a pipe: written as the user means it
        try:
            os.close(os.open(target, os.O_WRONLY | os.O_APPEND))
        except OSError as exc:
            return f"cannot be opened for writing ({exc.strerror or exc})"
        return None
    folder = target.parent if str(target.parent) else Path(".")
    above = next((f for f in (folder, *folder.parents) if f.exists()), None)
    if above is not None and not above.is_dir():
        return f"{above} is a file, not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"its folder {folder} cannot be created ({exc.strerror or exc})"
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".probe", dir=folder)
    except OSError as exc:
        return f"its folder {folder} cannot be written ({exc.strerror or exc})"
    os.close(fd)
    Path(probe).unlink(missing_ok=True)
    return None


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
