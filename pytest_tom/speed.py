"""Keeping a 10,000-item run fast: the garbage collector and a large collected tree.

Collecting a big suite allocates hundreds of thousands of long-lived objects
(YAML values, item specs, pytest nodes). Python's cyclic garbage collector
keeps traversing all of them while they are built, which doubles the CPU time
of collection. So while pytest-tom is active the collector is paused during
collection, and what collection built is then frozen (`gc.freeze`: moved out of
the collector's sight, as it lives until the end of the session anyway), so
the collections during the run only look at what the run itself allocates.
Everything is given back at the end of the session.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_gc() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def release() -> None:
    """Give the frozen objects back to the collector (end of the session)."""
    gc.unfreeze()
