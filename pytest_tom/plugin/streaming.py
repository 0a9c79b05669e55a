"""The default run without xdist and without -x: the items run while the answers arrive.

Every selected item is submitted at the start of the test loop (as with
`--tom-requests-first`), and the test loop starts at once: each item waits for
its own answer in its setup and is scored as soon as the answer is in, while
the runner's thread is still asking for the items after it. pytest's own
progress shows how far the run is; the line of the requests (`tom requests:
2000/2000 ... done in 5.2s`) is written once, when the test loop ends.

pytest's cost per item (reports, hooks, about half a millisecond) is then paid
while the run waits for the server anyway, instead of after the last answer.
Outcomes, reports and exit codes are those of a run with every answer first:
an item's answer does not depend on when it is scored.

FANToM's batch preparation (`request_phase.prepare_scoring`: the free answers
embedded together) is kept: before the first unprepared item of a family that
prepares is scored, the `window` such items from it on are waited for and
prepared in one batch.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_tom import families
from pytest_tom.plugin.large_runs import submission_gc
from pytest_tom.plugin.request_phase import RequestPhase, prepares, spec_of
from pytest_tom.pytest_compat import collected_items
from pytest_tom.report.progress import Progress

WINDOW = 256  # items of a preparing family handed to prepare_scoring together
PLUGIN_NAME = "tom-stream"


class StreamedRun:
    """The items of one test loop, submitted at its start, prepared in windows. Registered
    as a plugin while the loop runs (`start_stream` ... `finish`)."""

    def __init__(self, session: pytest.Session, requests: RequestPhase,
                 window: int | None = None):
        self.session = session
        self.requests = requests
        self.window = max(1, window or WINDOW)
        self.items = [x for x in collected_items(session) if spec_of(x) is not None]
        self._position = {id(x): i for i, x in enumerate(self.items)}
        self._prepared: set[int] = set()  # id() of items handed to prepare_scoring
        self._prepares: dict[str, bool] = {}  # family name -> prepares anything

    def start(self) -> int:
        """Submit every item (unavailable ones excepted); returns how many."""
        with submission_gc():  # what it builds lives until each item takes its answers
            return self.requests.prefetch(self.items)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        """The answers still arriving: batch the preparation of a window."""
        self.prepare(item)

    def _family_prepares(self, item: Any) -> bool:
        name = item.spec.family
        known = self._prepares.get(name)
        if known is None:
            known = self._prepares[name] = prepares(families.get(name))
        return known

    def prepare(self, item: Any) -> int:
        """Before `item` is scored: if its family prepares and it was not prepared yet, wait
        for it and the next `window - 1` items of preparing families, and prepare them in
        one batch. Returns how many answers were prepared."""
        i = self._position.get(id(item))
        if i is None or id(item) in self._prepared or not self._family_prepares(item):
            return 0
        batch = []
        for x in self.items[i:]:
            if id(x) in self._prepared or not self._family_prepares(x):
                continue
            batch.append(x)
            self._prepared.add(id(x))
            if len(batch) >= self.window:
                break
        return self.requests.prepare_scoring(batch)  # waits for each answer of the batch

    def finish(self) -> None:
        """The requests' line, once, after the test loop (`-q` hides it); the run's hooks
        leave with it."""
        config = self.session.config
        if config.pluginmanager.is_registered(self):
            config.pluginmanager.unregister(self)
        Progress(self.requests.runner, config).finish()


def start_stream(session: pytest.Session, requests: RequestPhase) -> StreamedRun | None:
    """Submit the selection and register the run, or None when it holds no item to ask for."""
    run = StreamedRun(session, requests)
    if not run.start():
        return None
    session.config.pluginmanager.register(run, PLUGIN_NAME)
    return run
