"""Writing a file atomically: a temporary file beside the target, renamed over it.

A reader (a CI step, a dashboard) never sees half a file, and a crash leaves the
previous file in place. The file gets the usual permissions (0666 less the
umask), not the 0600 that `tempfile.mkstemp` gives.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


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
