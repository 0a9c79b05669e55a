"""The plugin side of model calls: option checks, the cache folder, which items to
request ahead of their turn, waiting for answers, and the requests summary.

Without xdist the whole selection (after `-k`, `-m` and deselection) is
submitted at the start of the test loop and the request phase runs with a
live progress line; the items then only score their answers.

Under xdist a worker does not know its items in advance: the controller sends
it indices of `session.items` in batches. The worker submits the items it has
been sent and not yet run (xdist's queue of pending indices), and looks again
each time an item starts and while an item waits for its answer, so every
worker requests exactly the items it runs. If the queue cannot be read (another
xdist version), a worker falls back to the current and the next item.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import pytest

from pytest_tom.engine.runner import Completion
from pytest_tom.stash import get_session


def configure(tom: Any) -> None:
    """Check the runner options (usage errors before anything runs) and, on the controller,
    empty the cache when asked (workers start after this, so it happens once)."""
    opts = tom.options
    problems = []
    if opts.concurrency < 1:
        problems.append("--tom-concurrency must be at least 1")
    if opts.retries < 0:
        problems.append("--tom-retries must be 0 or more")
    if opts.samples < 1:
        problems.append("--tom-samples must be at least 1")
    if opts.deadline <= 0:
        problems.append("--tom-deadline must be a positive number of seconds")
    if opts.backoff < 0:
        problems.append("--tom-backoff must be 0 or more seconds")
    from pytest_tom.engine.usage import PriceError, parse_prices

    try:
        tom.prices = parse_prices(opts.prices)
    except PriceError as exc:
        problems.append(str(exc))
    if problems:
        raise pytest.UsageError("; ".join(problems))
    if opts.samples > 1 and not opts.temperature and not tom.is_worker:
        tom.config.issue_config_time_warning(pytest.PytestConfigWarning(
            f"--tom-samples {opts.samples} at temperature 0: the samples will most likely be "
            f"identical; set --tom-temperature above 0"), stacklevel=2)
    if opts.cache_clear and not tom.is_worker:
        from pytest_tom.engine.cache import clear
        from pytest_tom.engine.runner import cache_dir

        clear(cache_dir(opts, tom.config.rootpath))


def cache_label(tom: Any) -> str:
    """For the header: the cache mode, or why there is no cache."""
    from pytest_tom.engine.runner import is_cacheable

    if not is_cacheable(tom.backend):
        return f"no cache ({tom.backend.name} backend)"
    return f"cache {tom.options.cache}"


def prefetch_items(items: Iterable[Any]) -> int:
    """Submit every TomItem of `items` (each knows how); returns how many."""
    from pytest_tom.items import TomItem

    n = 0
    for item in items:
        if isinstance(item, TomItem):
            item.prefetch()
            n += 1
    return n


def request_phase(session: pytest.Session, runner: Any) -> None:
    """Submit the selection and wait for every answer with a live line (no xdist)."""
    from pytest_tom.report.progress import Progress

    if prefetch_items(session.items) == 0:
        return
    Progress(runner, session.config).run()
    prepare_scoring(session.items)
    from pytest_tom.speed import freeze_more

    freeze_more()  # the answers and the client's modules live to the end: out of the GC's sight


def window_prefetch(tom: Any, session: pytest.Session, item: Any, size: int) -> None:
    """Under -x/--maxfail: submit `item` and the `size` items after it, no further. A run that
    stops at the first wrong answer then asks the model for at most `size` items it will not
    score (they are counted apart in the usage summary)."""
    index = tom.window_index
    if index is None:
        index = tom.window_index = {id(it): i for i, it in enumerate(session.items)}
    i = index.get(id(item))
    if i is not None:
        prefetch_items(session.items[i: i + 1 + max(0, size)])


def prepare_scoring(items: Iterable[Any]) -> int:
    """Hand each family the answers of `items` before any of them is scored.

    Scoring stays per item; this only lets a family do in one batch what it would
    otherwise do answer by answer (FANToM embeds every free response at once).
    Without xdist it is called once the request phase is over, with the whole
    selection; an xdist worker calls it with the items of its queue whose answers
    are in (`WorkerLookahead.prepare`). Returns how many answers were handed over.
    """
    from pytest_tom import families
    from pytest_tom.items import TomItem

    by_family: dict[str, list[tuple[Any, str]]] = {}
    tom = None
    for item in items:
        if not isinstance(item, TomItem):
            continue
        tom = tom or get_session(item.config)
        family = families.get(item.spec.family)
        if not prepares(family) or family.unavailable(item.spec, tom.settings):
            continue
        for comp in item.fetch():
            if not comp.error:
                by_family.setdefault(item.spec.family, []).append((item.spec, comp.final))
    for name, pairs in by_family.items():
        families.get(name).prepare_scoring(pairs, tom.scoring)
    return sum(len(pairs) for pairs in by_family.values())


def prepares(family: Any) -> bool:
    """Whether the family does anything in `prepare_scoring` (most do not)."""
    from pytest_tom.families.base import Family

    return getattr(type(family), "prepare_scoring", None) is not Family.prepare_scoring


class WorkerLookahead:
    """Reads the queue of item indices xdist sent this worker and submits them."""

    def __init__(self, session: pytest.Session):
        self.session = session
        self.interactor = _find_interactor(session.config)
        self._last_scan = 0.0
        self._seen: set[int] = set()
        self._submitted: dict[str, Any] = {}  # nodeid -> item, in submission order
        self._prepared: set[str] = set()  # nodeids handed to prepare_scoring

    def _pending_indices(self) -> list[int] | None:
        it = self.interactor
        if it is None:
            return None
        try:
            with it.torun.lock() as queue:
                snapshot = list(queue)
            nxt = it.nextitem_index
        except Exception:  # a different xdist: fall back to nextitem
            self.interactor = None
            return None
        out = [i for i in snapshot if isinstance(i, int)]
        if isinstance(nxt, int):
            out.insert(0, nxt)
        return out

    def scan(self, item: Any = None, nextitem: Any = None) -> None:
        """Submit the current item, the next one, and every item queued for this worker."""
        self._last_scan = time.perf_counter()
        todo: list[Any] = [x for x in (item, nextitem) if x is not None]
        indices = self._pending_indices()
        if indices:
            items = self.session.items
            # new indices are appended on the right: walk back to the first one already seen
            fresh = []
            for i in reversed(indices):
                if i in self._seen:
                    break
                self._seen.add(i)
                if 0 <= i < len(items):
                    fresh.append(items[i])
            todo.extend(reversed(fresh))
        prefetch_items(todo)
        for x in todo:
            self._submitted.setdefault(x.nodeid, x)

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
        from pytest_tom import families
        from pytest_tom.items import TomItem

        if not isinstance(item, TomItem) or not prepares(families.get(item.spec.family)):
            return 0
        self._submitted.setdefault(item.nodeid, item)
        runner = get_session(item.config).runner
        ready = []
        for nodeid, x in list(self._submitted.items()):
            if nodeid in self._prepared:
                continue
            if x is item or all(runner.done(x.request_key(s)) for s in _samples(x)):
                ready.append(x)
                self._prepared.add(nodeid)
        return prepare_scoring(ready)

    def maybe_scan(self, every: float = 0.05) -> None:
        if time.perf_counter() - self._last_scan >= every:
            self.scan()


def _samples(item: Any) -> range:
    from pytest_tom.engine.samples import sample_count

    return range(sample_count(get_session(item.config).options))


def _find_interactor(config: pytest.Config) -> Any:
    for plugin in config.pluginmanager.get_plugins():
        if type(plugin).__name__ == "WorkerInteractor" and hasattr(plugin, "torun"):
            return plugin
    return None


def worker_lookahead(session: pytest.Session) -> WorkerLookahead:
    tom = get_session(session.config)
    assert tom is not None
    if tom.lookahead is None:
        tom.lookahead = WorkerLookahead(session)
    return tom.lookahead


def wait_for(config: pytest.Config, futures: Sequence[Future[Completion]]) -> list[Completion]:
    """The completions of `futures`; an xdist worker keeps submitting its queue meanwhile."""
    tom = get_session(config)
    look = tom.lookahead if tom is not None else None
    if look is not None:
        for fut in futures:
            while True:
                try:
                    fut.result(timeout=0.05)
                    break
                except FutureTimeout:
                    look.maybe_scan()
    return [f.result() for f in futures]


def write_summary(terminalreporter: Any, tom: Any) -> None:
    """The `tom requests` section: requests, cache hits, tokens, cost, failed items."""
    if terminalreporter.config.get_verbosity() < 0 and not any(
            r.get("outcome", {}).get("error") for r in tom.records):
        return  # -q: only when something failed
    from pytest_tom.engine.usage import write_usage

    unscored = 0
    if tom._runner is not None:  # without xdist this process's runner made every request
        unscored = tom._runner.stats.requests - sum(int(r.get("requests") or 0)
                                                    for r in tom.records)
    write_usage(terminalreporter, tom.records, tom.backend.describe(), tom.prices,
                model_name=getattr(tom.backend, "model", ""), unscored=unscored)
