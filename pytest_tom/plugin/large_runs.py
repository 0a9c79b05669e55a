"""What keeps a large run fast in the pytest layer: the garbage collector paused and
frozen around collection, and a suite item's phases run without pytest's capture.

## The garbage collector

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
the same way when it ends (`freeze_more`), and in the test loop what the items leave behind
(records, pytest's reports) every thousand items, after a collection of the garbage made
since the last time (`settle_loop`).

Submitting every item's requests at the start of the test loop (`submission_gc`) is paused
and frozen the same way: it builds, per item, its first request, its conversation and its
future, which live until the item takes its answers. The collector traversed them again and
again while they were built: in a fully cached rerun of 20,000 items (the submission is
then most of what the request side does) three quarters of the submission's CPU, about
0.9 s; left in sight afterwards, every full collection of the test loop traversed them
again. A frozen object is still freed when its last reference goes (an item's answers
once its record is made); only a reference cycle among them would wait for `release`.

## Quiet phases

A suite item's set-up, call and tear-down without pytest's per-test output and log
capture, where only pytest-tom's own code runs in them (`--tom-item-capture=auto`).

pytest captures every phase of every test: its capture manager redirects the standard
file descriptors and reads them back, its logging plugin installs two handlers and reads
them back (together about a tenth of the main thread's samples in a 20,000-item run at
latency 0). In a suite item's phases nothing of the user's runs: the set-up takes
answers made in another thread or process, the call scores them with the family's rules,
the tear-down has nothing to do. What those print belongs to no item anyway.

So a suite item's hooks (`TomItem.ihook`) call the three phase hooks without pytest's
capture manager and logging plugin (`pytest_compat.capturing_plugins`), except where
pytest may run the user's code in them: the set-up of an item whose predecessor was not
in the same suite file (collectors above it are set up then: packages, a session
fixture's first use) and the tear-down of an item whose successor is not in the same
suite file (their finalizers: a session fixture's at the last item). Those keep pytest's
capture, as does every phase under `--tom-item-capture=pytest`. Other plugins' phase
hooks run as always. pytest's logging plugin must see an item's tear-down only if it saw
its set-up (it keeps the set-up's records on the item): after a quiet set-up, a captured
tear-down captures the output but not the log records.

Only pluggy's public API is used: `PluginManager.subset_hook_caller` (what pytest's own
per-directory hook proxies are made of) and `HookCaller.get_hookimpls`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from pytest_tom.core.paused_gc import paused_gc
from pytest_tom.pytest_compat import capturing_plugins

_frozen_by_us = False  # the permanent generation holds a tree this module froze


@contextmanager
def collection_gc() -> Iterator[None]:
    """No cyclic GC while collecting; freeze what collection built afterwards."""
    global _frozen_by_us
    release()
    others_froze = gc.get_freeze_count() > 0  # someone else's freeze: never undone here
    with paused_gc():
        try:
            yield
        finally:
            gc.freeze()
            _frozen_by_us = not others_froze


@contextmanager
def submission_gc() -> Iterator[None]:
    """No cyclic GC while a run submits the requests of every item; what that built is
    frozen afterwards (`freeze_more`)."""
    with paused_gc():
        try:
            yield
        finally:
            freeze_more()


def freeze_more() -> None:
    """After the request phase: freeze what it built too (every completion, and the modules
    of the HTTP client, imported at the first request: openai alone is tens of thousands of
    objects). They live to the end of the session; left in sight, every full collection of
    the test loop and the five at unconfigure traverse them again. Only while the collected
    tree is frozen by this module (so `release` gives everything back at once)."""
    if _frozen_by_us:
        gc.freeze()


# items between two `settle_loop` steps: each collects the cyclic garbage of the items since
# the last and freezes what survives, so that the collector's own full collections look at
# no more than that many items' objects
SETTLE_EVERY = 1000


def settle_loop(done: int) -> None:
    """In the test loop, after item number `done`: every SETTLE_EVERY items, collect the
    garbage made since the last step and freeze what survived (records, pytest's reports,
    the terminal's stats: they live to the end of the session).

    Left in sight, they were traversed by every full collection of the loop, more of them
    at each: about 0.4-0.6 s of a 20,000-item run's CPU (profiled). Collected first, no
    cycle of the items settled so far is kept; a frozen object is still freed when its last
    reference goes. Only while the collected tree is frozen by this module."""
    if done % SETTLE_EVERY == 0 and _frozen_by_us:
        gc.collect()
        gc.freeze()


def release() -> None:
    """Give a tree frozen by an earlier session of this process back to the collector."""
    global _frozen_by_us
    if _frozen_by_us:
        gc.unfreeze()
        _frozen_by_us = False


PHASES = ("pytest_runtest_setup", "pytest_runtest_call", "pytest_runtest_teardown")
QUIET_KEY = pytest.StashKey["QuietPhases"]()


class QuietPhases:
    """The phase hooks of suite items, without pytest's capture where only pytest-tom's
    code runs; one per session (`config.stash[QUIET_KEY]`), made and registered by
    `activate` (it learns the end of collection)."""

    def __init__(self, config: pytest.Config):
        self.pm = config.pluginmanager
        capture, logging = capturing_plugins(config)
        self.skip = [p for p in (capture, logging) if p is not None]
        self.logging = [logging] if logging is not None else []
        self._relays: dict[Any, _Relay] = {}
        self.next_quiet: Any = None  # the item whose set-up may be quiet (see `_Phase`)
        self.quiet_setup: Any = None  # the last item whose set-up was quiet
        self.collected = False

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """From now on the conftests are all known: a path's hook proxy made during
        collection may lack one of a folder collected after it, so none is kept from
        then."""
        self.collected = True
        self._relays.clear()

    def hooks(self, base: Any, item: pytest.Item) -> Any:
        """`item`'s hook relay: pytest's own (`base`, its path's proxy) with the three phase
        hooks chosen per call; pytest's own during collection."""
        if not self.skip or not self.collected:  # (-p no:capture -p no:logging: nothing to skip)
            return base
        key = None if base is item.config.hook else item.path
        relay = self._relays.get(key)
        if relay is None:
            relay = self._relays[key] = _Relay(self, base)
        return relay

    def without(self, name: str, base_caller: Any, plugins: list[Any]) -> Any:
        """`base_caller` (a phase hook as pytest would call it for this path) without
        `plugins`: every plugin pytest would leave out there is left out too."""
        everyone = {impl.plugin for impl in getattr(self.pm.hook, name).get_hookimpls()}
        kept = {impl.plugin for impl in base_caller.get_hookimpls()}
        left_out = (everyone - kept) | {p for p in plugins if p in everyone}
        return self.pm.subset_hook_caller(name, remove_plugins=left_out)


class _Relay:
    """pytest's hook relay for one path, with the three phase hooks replaced by `_Phase`."""

    def __init__(self, owner: QuietPhases, base: Any):
        self._owner = owner
        self._base = base

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._base, name)
        if name in PHASES:
            owner = self._owner
            value = _Phase(name, value, owner.without(name, value, owner.skip),
                           owner.without(name, value, owner.logging), owner)
        self.__dict__[name] = value
        return value


class _Phase:
    """One phase hook of suite items: quiet or pytest's own, decided per call."""

    def __init__(self, name: str, full: Any, quiet: Any, unlogged: Any, owner: QuietPhases):
        self.name = name
        self.full = full  # pytest's own
        self.quiet = quiet  # without the capturing plugins
        self.unlogged = unlogged  # output captured, not log records (see the module)
        self.owner = owner

    def __call__(self, **kwargs: Any) -> Any:
        item = kwargs.get("item")
        owner = self.owner
        if self.name == "pytest_runtest_call":
            caller = self.quiet
        elif self.name == "pytest_runtest_setup":
            quiet = owner.next_quiet is item
            caller = self.quiet if quiet else self.full
            owner.next_quiet = None
            owner.quiet_setup = item if quiet else None
        else:  # tear-down: quiet when the next item is in the same suite file
            nextitem = kwargs.get("nextitem")
            same_file = (nextitem is not None and item is not None
                         and getattr(nextitem, "spec", None) is not None
                         and nextitem.path == item.path)
            if same_file:
                caller = self.quiet
            else:
                caller = self.unlogged if owner.quiet_setup is item else self.full
            owner.next_quiet = nextitem if same_file else None
        return caller(**kwargs)

    def __getattr__(self, name: str) -> Any:  # get_hookimpls() and the rest: pytest's own
        return getattr(self.full, name)


def phase_hooks(item: pytest.Item, base: Any) -> Any:
    """The hooks `item` (a suite item) is run with: see the module's docstring."""
    quiet = item.config.stash.get(QUIET_KEY, None)
    return base if quiet is None else quiet.hooks(base, item)
