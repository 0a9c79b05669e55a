"""Keeping a 10,000-item run fast: the garbage collector and a large collected tree.

Collecting a big suite allocates hundreds of thousands of long-lived objects
(YAML values, item specs, pytest nodes). Python's cyclic garbage collector
keeps traversing all of them while they are built, which doubles the CPU time
of collection. So while pytest-tom is active the collector is paused during
collection, and what collection built is then frozen (`gc.freeze`: moved out of
the collector's sight, as it lives until the end of the session anyway), so
the collections during the run only look at what the run itself allocates.

The tree stays frozen to the end of the process. Giving it back at the end of
the session cost more than the whole test loop: every full collection after
that traverses it again, and pytest makes five of them at unconfigure (to
report exceptions raised in finalizers), then the interpreter one more at exit
(about 2 s at 5,000 items). The collections at unconfigure are still made,
over what the run allocated: the garbage they look for is the run's. When a
second pytest-tom session starts collecting in the same process (pytester's
in-process runs, an IDE calling `pytest.main` again), the previous session's
tree is given back first, so repeated runs do not accumulate frozen objects.
What the request phase built (the answers, the HTTP client's modules) is frozen
the same way when it ends (`freeze_more`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_frozen_by_us = False  # the permanent generation holds a tree this module froze


@contextmanager
def collection_gc() -> Iterator[None]:
    """No cyclic GC while collecting; freeze what collection built afterwards."""
    global _frozen_by_us
    release()
    others_froze = gc.get_freeze_count() > 0  # someone else's freeze: never undone here
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        _frozen_by_us = not others_froze
        if was_enabled:
            gc.enable()


def freeze_more() -> None:
    """After the request phase: freeze what it built too (every completion, and the modules
    of the HTTP client, imported at the first request: openai alone is tens of thousands of
    objects). They live to the end of the session; left in sight, every full collection of
    the test loop and the five at unconfigure traverse them again. Only while the collected
    tree is frozen by this module (so `release` gives everything back at once)."""
    if _frozen_by_us:
        gc.freeze()


def release() -> None:
    """Give a tree frozen by an earlier session of this process back to the collector."""
    global _frozen_by_us
    if _frozen_by_us:
        gc.unfreeze()
        _frozen_by_us = False


@contextmanager
def paused_gc() -> Iterator[None]:
    """The collector paused while one suite is loaded (`pytest-tom validate`): loading
    allocates hundreds of thousands of long-lived objects and the collector would traverse
    them again and again (a 50 MB suite: 6 s instead of 50). Nothing is frozen: the suite
    is dropped right after, and reference counting frees it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
