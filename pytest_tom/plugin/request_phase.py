"""The plugin side of model calls: the prices and the cache folder at start, the runner,
the request phase, each item's answers and the requests summary.

The request path goes one way: the test loop (and the streamed run, the xdist look-ahead)
submits items here, this module asks the engine (`items/sample_requests`, the runner),
and an item asks for its answers through `ANSWERS_KEY` (this phase, or on an xdist worker
the look-ahead, which asks this phase); nothing here calls back into `items.py`: a
benchmark item is recognised by its `spec` (`spec_of`).

Without xdist the whole selection (after `-k`, `-m` and deselection) is
submitted at the start of the test loop; by default the items then run while
the answers arrive (`streaming.py`), with `--tom-requests-first` the request
phase runs first with a live progress line and the items only score their
answers. Under -x / --maxfail each item asks for a window ahead
(`WindowPrefetch`); under xdist each worker requests the items it has been
sent (`lookahead.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import pytest

from pytest_tom import families
from pytest_tom.asking.cache import clear_with_note
from pytest_tom.asking.cached_call import cache_dir
from pytest_tom.asking.completion import Completion
from pytest_tom.asking.runner import Runner
from pytest_tom.backends.base import Backend
from pytest_tom.core.option_table import TomOptions
from pytest_tom.families.base import Family
from pytest_tom.items.sample_requests import (
    sample_count,
    submit_samples,
    take_samples,
    wait_all,
)
from pytest_tom.plugin.context import RunContext
from pytest_tom.plugin.large_runs import freeze_more, submission_gc
from pytest_tom.pytest_compat import collected_items, verbosity
from pytest_tom.report.progress import Progress
from pytest_tom.report.requests_section import write_usage
from pytest_tom.results.token_usage import PriceError, RequestUsage, parse_prices
from pytest_tom.suite import ItemSpec

Prices = dict[str, tuple[float, float]]
Waiting = Callable[[], None]  # called every 50 ms while an answer is awaited


def configure_requests(config: pytest.Config, options: TomOptions,
                       is_worker: bool, project: Path) -> tuple[Prices, list[str]]:
    """(the prices, the cache's note) at configure time: `--tom-prices` read (a usage error
    before anything runs) and, on the controller, the cache emptied when asked (workers
    start after this, so it happens once). The runner's numbers are checked in the option
    table (`core/option_table.number_problems`)."""
    try:
        prices = parse_prices(options.prices)
    except PriceError as exc:
        raise pytest.UsageError(str(exc)) from None
    if options.samples > 1 and not options.temperature and not is_worker:
        config.issue_config_time_warning(pytest.PytestConfigWarning(
            f"--tom-samples {options.samples} at temperature 0: the samples will most likely "
            f"be identical; set --tom-temperature above 0"), stacklevel=2)
    notes = []
    if options.cache_clear and not is_worker:
        _count, note = clear_with_note(cache_dir(options, project))
        if note:
            notes.append(note)
    return prices, notes


def spec_of(item: Any) -> ItemSpec | None:
    """The benchmark item behind a pytest item (None for other tests of the session)."""
    spec = getattr(item, "spec", None)
    return spec if isinstance(spec, ItemSpec) else None


def prepares(family: Family) -> bool:
    """Whether the family does anything in `prepare_scoring` (most do not)."""
    return getattr(type(family), "prepare_scoring", None) is not Family.prepare_scoring


def warms(backend: Backend) -> bool:
    """Whether the backend has a warm-up of its own (`BackendAbilities.warms`: openai:'s
    request process, a pool of endpoints)."""
    return backend.abilities.warms


class WarmUpAtCollection:
    """Starts the backend's warm-up when collection reaches the first suite file, so that
    openai:'s request process (about 0.3 s to start) gets ready while pytest collects
    instead of after it, ahead of the first request. Registered only where it pays: a
    process that makes model calls (not the xdist controller, not --collect-only) with a
    backend that has a warm-up (`warms`). A run whose items are all deselected or cached
    then starts a request process it never asks, stopped at the end."""

    def __init__(self, requests: RequestPhase):
        self.requests = requests
        self.started = False

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        if not self.started and isinstance(collector, pytest.File) \
                and self.requests.ctx.is_suite_file(collector.path):
            self.started = True
            self.requests.warm_up()


class AnswerSource(Protocol):
    """Where a benchmark item's set-up takes its answers (`ANSWERS_KEY`)."""

    def completions(self, spec: ItemSpec, take: bool = True) -> list[Completion]: ...


class RequestPhase:
    """The model calls of one process: its runner (made at the first call), the prices and
    the cache's lines of the summary, the window of `-x`."""

    def __init__(self, ctx: RunContext, prices: Prices, cache_notes: Sequence[str] = ()):
        self.ctx = ctx
        self.prices = prices
        self.cache_notes: list[str] = list(cache_notes)  # repaired, or a worker's cache off
        self._runner: Runner | None = None
        self._window_index: dict[int, int] | None = None  # -x/--maxfail: item -> position
        self.worker_stop: str | None = None  # on the controller: a worker's runner stopped
        # suite -> (why it stopped early, its items not asked), from every item's report
        self.suite_stops: dict[str, tuple[str, int]] = {}

    # -- the runner ---------------------------------------------------------------------
    @property
    def runner(self) -> Runner:
        """This process's runner, made at the first call from the run's model (which is
        then fixed: `ModelSlot.seal`)."""
        if self._runner is None:
            self._runner = Runner.from_options(self.ctx.model.seal(), self.ctx.options,
                                               self.ctx.project_dir)
        return self._runner

    def warm_up(self) -> None:
        """Start the runner and its backend's warm-up ahead of the first call (a model made
        at configure time only: a `fixture:` model is made at the start of the test loop)."""
        if self._runner is None and not self.ctx.model.deferred:
            self.runner.warm_up()

    def peek_runner(self) -> Runner | None:
        """The runner if one was started (never starts one)."""
        return self._runner

    def stop_reason(self) -> str | None:
        """Why the run stops early (an early-stop rule of this process's runner fired, or,
        on the xdist controller, a worker's), or None (asking/early_stop.py)."""
        runner = self._runner
        return (runner.stop_reason if runner is not None else None) or self.worker_stop

    def stop(self) -> None:
        """The test loop ended before its items did (Ctrl-C, -x, an early stop): this
        process's runner asks nothing more, and its counts are final (`Runner.stop`)."""
        if self._runner is not None:
            self._runner.stop()

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()

    def cache_label(self) -> str:
        """For the header: the cache mode, or why there is no cache."""
        backend, mode = self.ctx.backend, self.ctx.options.cache
        if self.ctx.model.deferred:  # made elsewhere or later: its identity decides
            return f"cache {mode} if the model declares identity()"
        abilities = backend.abilities
        if not abilities.cacheable:
            if abilities.answerer:  # an in-process answerer
                return f"no cache ({backend.name} backend: no identity())"
            return f"no cache ({backend.name} backend)"
        return f"cache {mode}"

    # -- the answers of items -------------------------------------------------------------
    def submit(self, spec: ItemSpec) -> list[Any]:
        """Start (or find started) the requests of every sample of `spec`."""
        return submit_samples(self.runner, self.ctx.engine, spec,
                              sample_count(self.ctx.options))

    def completions(self, spec: ItemSpec, take: bool = True,
                    waiting: Waiting | None = None) -> list[Completion]:
        """The completions of every sample of `spec`, in sample order (waits for them,
        calling `waiting` meanwhile). `take`: the item takes them and the runner forgets
        them (only the item's own set-up; a look before it must not)."""
        if not take:
            return wait_all(self.submit(spec), waiting)
        return take_samples(self.runner, self.ctx.engine, spec,
                            sample_count(self.ctx.options), waiting)

    def prefetch(self, items: Iterable[Any]) -> int:
        """Submit the requests of every benchmark item of `items` (unless it will be
        skipped as unavailable); returns how many items there were."""
        n = 0
        engine = self.ctx.engine
        for item in items:
            spec = spec_of(item)
            if spec is None:
                continue
            if not engine.unavailable(spec):
                self.submit(spec)
            n += 1
        return n

    def run_up_front(self, session: pytest.Session) -> None:
        """`--tom-requests-first`: submit the selection and wait for every answer with a
        live line, then prepare the scoring of them all."""
        with submission_gc():  # what it builds lives until each item takes its answers
            if self.prefetch(collected_items(session)) == 0:
                return
        Progress(self.runner, session.config).run()
        self.prepare_scoring(collected_items(session))

        freeze_more()  # the answers and the client's modules live to the end: out of the GC's sight

    def window_prefetch(self, session: pytest.Session, item: Any, size: int) -> None:
        """Under -x/--maxfail: submit `item` and the `size` items after it, no further. A run
        that stops at the first wrong answer then asks the model for at most `size` items it
        will not score (they are counted apart in the usage summary)."""
        index = self._window_index
        if index is None:
            index = self._window_index = {id(it): i
                                          for i, it in enumerate(collected_items(session))}
        i = index.get(id(item))
        if i is not None:
            self.prefetch(collected_items(session)[i: i + 1 + max(0, size)])

    def prepare_scoring(self, items: Iterable[Any], waiting: Waiting | None = None) -> int:
        """Hand each family the answers of `items` before any of them is scored.

        Scoring stays per item; this only lets a family do in one batch what it would
        otherwise do answer by answer (FANToM embeds every free response at once).
        With `--tom-requests-first` it is called once the request phase is over, with
        the whole selection; a streamed test loop calls it with windows of items
        (`streaming.StreamedRun.prepare`); an xdist worker calls it with the items of
        its queue whose answers are in (`WorkerLookahead.prepare`, with its scan as
        `waiting`). Returns how many answers were handed over.
        """
        by_family: dict[str, list[tuple[Any, str]]] = {}
        settings = self.ctx.settings
        for item in items:
            spec = spec_of(item)
            if spec is None:
                continue
            family = families.get(spec.family)
            if not prepares(family) or family.unavailable(spec, settings):
                continue
            # an item already set up has taken its answers (the runner forgot them); the
            # others take them at their set-up: only a look here
            for comp in (getattr(item, "completions", None)
                         or self.completions(spec, take=False, waiting=waiting)):
                if not comp.error:
                    by_family.setdefault(spec.family, []).append((spec, comp.final))
        for name, pairs in by_family.items():
            families.get(name).prepare_scoring(pairs, self.ctx.scoring)
        return sum(len(pairs) for pairs in by_family.values())

    # -- the summary ----------------------------------------------------------------------
    def write_summary(self, terminalreporter: Any, usage: RequestUsage) -> None:
        """The `tom requests` section: requests, cache hits, tokens, cost, failed items,
        from the run's request figures (`token_usage.request_usage`, made once)."""
        if verbosity(terminalreporter.config) < 0 and not usage.flagged:
            return  # -q: only when an outcome carries an error

        unscored = made = 0
        if self._runner is not None:  # without xdist this process's runner made every request
            made = self._runner.stats.requests
            unscored = made - sum(m.requests for m in usage.models)
        write_usage(terminalreporter, usage, self.prices, model_name=self.ctx.backend.model,
                    unscored=unscored, made=made)

    def cache_problems(self) -> list[str]:
        """The cache's lines for the summary: repaired by --tom-cache-clear, or turned off
        (in this process or, under xdist, in a worker: see `note_cache_problem`)."""
        lines = list(self.cache_notes)
        if self._runner is not None and self._runner.cache_problem:
            lines.append(self._runner.cache_problem)
        return list(dict.fromkeys(lines))

    def note_cache_problem(self, report: pytest.TestReport) -> None:
        """On an xdist worker: carry the cache's problem, once, on an item's report (the
        report's attributes travel to the controller, which prints it)."""
        problem = self._runner.cache_problem if self._runner is not None else None
        if problem and problem not in self.cache_notes:
            self.cache_notes.append(problem)
            report.tom_cache_problem = problem  # type: ignore[attr-defined]

    def take_worker_note(self, report: pytest.TestReport) -> None:
        """On the controller: a worker's cache problem, or why its runner stopped early,
        carried on `report`, once; and (in every process that logs reports) the items never
        asked because their suite stopped early."""
        problem = getattr(report, "tom_cache_problem", None)
        if problem and problem not in self.cache_notes:
            self.cache_notes.append(problem)
        stop = getattr(report, "tom_stop", None)
        if stop and self.worker_stop is None:
            self.worker_stop = str(stop)
        suite_stop = getattr(report, "tom_suite_stop", None)
        if suite_stop:
            suite, reason = suite_stop
            first, n = self.suite_stops.get(suite, (str(reason), 0))
            self.suite_stops[suite] = (first, n + 1)

    def stopped_text(self) -> str | None:
        """Why the run stopped early, or which suites did (None: neither): for the report's
        status and the gates (a suite that stopped leaves the run incomplete)."""
        stop = self.stop_reason()
        if stop or not self.suite_stops:
            return stop
        return "; ".join(f"suite {s} stopped early" for s in sorted(self.suite_stops))

    def write_cache_problems(self, terminalreporter: Any) -> None:
        for line in self.cache_problems():
            terminalreporter.write_line(line, yellow=True, bold=True)


REQUESTS_KEY = pytest.StashKey[RequestPhase]()
# who gives an item its answers: the request phase, or on an xdist worker its look-ahead
ANSWERS_KEY = pytest.StashKey[AnswerSource]()


def answers_of(config: pytest.Config) -> AnswerSource:
    return config.stash[ANSWERS_KEY]


class WindowPrefetch:
    """Registered on a run that stops early (-x, --maxfail) without xdist: there is no
    request phase up front; before each item runs it and the `--tom-concurrency` items after
    it are asked for, so a stopped run asks little it does not score."""

    def __init__(self, requests: RequestPhase):
        self.requests = requests

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        self.requests.window_prefetch(item.session, item, self.requests.ctx.options.concurrency)
