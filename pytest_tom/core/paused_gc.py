"""The cyclic garbage collector paused around building many long-lived objects at once.

Loading a large suite (`pytest-tom validate`) or making the openai client (`import openai`:
tens of thousands of API types) allocates objects that all live on; the collector, run by
allocation counts, traverses them again and again while they are built (a 50 MB suite: 6 s
instead of 50 s of loading; `import openai`: 0.40 -> 0.34 s). Reference counting still frees
whatever is dropped meanwhile; a collection runs as usual once the collector is back on.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """The collector off inside, back on after if it was on (left off if it was off)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
