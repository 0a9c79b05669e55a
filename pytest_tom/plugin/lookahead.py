"""The xdist look-ahead: a worker does not know its items in advance (the controller sends
it indices of `session.items` in batches), so it submits the items it has been sent and
not yet run, and looks again each time an item starts and while an item waits for its
answer; every worker requests exactly the items it runs. If xdist's queue cannot be
read (another xdist version), a worker falls back to the current and the next item.
Before an item is scored, the answers in so far are prepared in one batch
(`WorkerLookahead.prepare`).

Registered on xdist workers only, where it is also what gives an item its answers
(`request_phase.ANSWERS_KEY`): waiting for one answer, it keeps requesting the queue.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from pytest_tom import families
from pytest_tom.asking.completion import Completion
from pytest_tom.items.sample_requests import sample_count
from pytest_tom.plugin.request_phase import RequestPhase, prepares, spec_of
from pytest_tom.pytest_compat import WorkerQueue, collected_items
from pytest_tom.suite import ItemSpec


class WorkerLookahead:
    """Reads the queue of item indices xdist sent this worker and submits them."""

    def __init__(self, requests: RequestPhase):
        self.requests = requests
        self.session: pytest.Session | None = None  # known at the first item
        self.queue: WorkerQueue | None = None
        self._last_scan = 0.0
        self._seen: set[int] = set()
        # nodeid -> the item and its benchmark item, in submission order
        self._submitted: dict[str, tuple[pytest.Item, ItemSpec]] = {}
        self._prepared: set[str] = set()  # nodeids handed to prepare_scoring

    # -- hooks ------------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        """Request what this worker was sent, ahead."""
        self.scan(item, nextitem)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        """Batch the preparation of what this worker has answers for."""
        self.prepare(item)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
        report = yield
        self.requests.note_cache_problem(report)  # once, to the controller's summary
        return report

    # -- the answers --------------------------------------------------------------------------
    def completions(self, spec: ItemSpec, take: bool = True) -> list[Completion]:
        """An item's answers; while they are awaited, the queue keeps being requested."""
        return self.requests.completions(spec, take, waiting=self.maybe_scan)

    def scan(self, item: Any = None, nextitem: Any = None) -> None:
        """Submit the current item, the next one, and every item queued for this worker."""
        self._last_scan = time.perf_counter()
        if item is not None and self.session is None:
            self.session = item.session
            self.queue = WorkerQueue(item.config)
        todo: list[Any] = [x for x in (item, nextitem) if x is not None]
        indices = self.queue.pending() if self.queue is not None else None
        if indices and self.session is not None:
            items = collected_items(self.session)
            # new indices are appended on the right: walk back to the first one already seen
            fresh = []
            for i in reversed(indices):
                if i in self._seen:
                    break
                self._seen.add(i)
                if 0 <= i < len(items):
                    fresh.append(items[i])
            todo.extend(reversed(fresh))
        self.requests.prefetch(todo)
        for x in todo:  # the benchmark items: the project's own tests may be queued among them
            x_spec = spec_of(x)
            if x_spec is not None:
                self._submitted.setdefault(x.nodeid, (x, x_spec))

    def prepare(self, item: Any) -> int:
        """Before `item` is scored: prepare, in one batch, the scoring of every item of this
        worker whose answers are in and that was not prepared yet, `item` included.

        Under xdist the answers arrive while the items run one by one, so there is no
        moment with every answer at hand; instead, whenever an item's answer has not been
        prepared, everything answered by then goes in one batch (FANToM then embeds tens of
        free answers at once instead of one per item). Items whose answers are still
        coming are left for a later batch. Returns how many answers were prepared."""
        if item.nodeid in self._prepared:
            return 0
        spec = spec_of(item)
        if spec is None or not prepares(families.get(spec.family)):
            return 0
        self._submitted.setdefault(item.nodeid, (item, spec))
        runner, engine = self.requests.runner, self.requests.ctx.engine
        samples = range(sample_count(self.requests.ctx.options))
        ready = []
        for nodeid, (x, x_spec) in list(self._submitted.items()):
            if nodeid in self._prepared:
                continue
            if x is item or all(runner.done(engine.request_key(x_spec, s)) for s in samples):
                ready.append(x)
                self._prepared.add(nodeid)
        return self.requests.prepare_scoring(ready, waiting=self.maybe_scan)

    def maybe_scan(self, every: float = 0.05) -> None:
        if time.perf_counter() - self._last_scan >= every:
            self.scan()
