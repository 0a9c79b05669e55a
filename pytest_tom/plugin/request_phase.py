"""The plugin side of model calls: option checks, the cache folder, the request phase,
each item's answers and the requests summary.

The request path goes one way: the hooks (and the streamed loop, the xdist look-ahead)
submit items here, this module asks the engine (`engine/sample_requests`, the runner),
and an item asks here for its answers (`completions`); nothing here calls back into
`items.py`: a benchmark item is recognised by its `spec` (`spec_of`).

Without xdist the whole selection (after `-k`, `-m` and deselection) is
submitted at the start of the test loop; by default the items then run while
the answers arrive (`streaming.py`), with `--tom-requests-first` the request
phase runs first with a live progress line and the items only score their
answers. Under -x / --maxfail each item asks for a window ahead
(`window_prefetch`); under xdist each worker requests the items it has been
sent (`lookahead.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from pytest_tom import families
from pytest_tom.engine.cache import clear_with_note
from pytest_tom.engine.cached_call import cache_dir, is_cacheable
from pytest_tom.engine.completion import Completion
from pytest_tom.engine.sample_requests import (
    sample_count,
    submit_samples,
    take_samples,
    wait_all,
)
from pytest_tom.engine.token_usage import PriceError, parse_prices
from pytest_tom.families.base import Family
from pytest_tom.plugin.session import project_dir
from pytest_tom.plugin.speed import freeze_more
from pytest_tom.plugin.stash import get_session
from pytest_tom.pytest_compat import collected_items, verbosity
from pytest_tom.report.progress import Progress
from pytest_tom.report.token_usage import write_usage
from pytest_tom.suite import ItemSpec


def configure(tom: Any) -> None:
    """Read the prices (a usage error before anything runs) and, on the controller, empty
    the cache when asked (workers start after this, so it happens once). The runner's
    numbers are checked in the option table (`core/option_table.number_problems`)."""
    opts = tom.options
    try:
        tom.prices = parse_prices(opts.prices)
    except PriceError as exc:
        raise pytest.UsageError(str(exc)) from None
    if opts.samples > 1 and not opts.temperature and not tom.is_worker:
        tom.config.issue_config_time_warning(pytest.PytestConfigWarning(
            f"--tom-samples {opts.samples} at temperature 0: the samples will most likely be "
            f"identical; set --tom-temperature above 0"), stacklevel=2)
    if opts.cache_clear and not tom.is_worker:
        _count, note = clear_with_note(cache_dir(opts, project_dir(tom.config)))
        if note:
            tom.cache_notes.append(note)


def cache_label(tom: Any) -> str:
    """For the header: the cache mode, or why there is no cache."""
    backend = tom.backend
    if getattr(backend, "deferred", False):  # made elsewhere or later: its identity decides
        return f"cache {tom.options.cache} if the model declares identity()"
    if not is_cacheable(backend):
        if hasattr(backend, "fingerprint"):  # an in-process answerer
            return f"no cache ({backend.name} backend: no identity())"
        return f"no cache ({backend.name} backend)"
    return f"cache {tom.options.cache}"


def spec_of(item: Any) -> ItemSpec | None:
    """The benchmark item behind a pytest item (None for other tests of the session)."""
    spec = getattr(item, "spec", None)
    return spec if isinstance(spec, ItemSpec) else None


def submit(tom: Any, spec: ItemSpec) -> list[Any]:
    """Start (or find started) the requests of every sample of `spec`."""
    return submit_samples(tom.runner, tom.engine, spec, sample_count(tom.options))


def completions(tom: Any, spec: ItemSpec, take: bool = True) -> list[Completion]:
    """The completions of every sample of `spec`, in sample order (waits for them; an
    xdist worker keeps requesting its queue meanwhile). `take`: the item takes them and
    the runner forgets them (only the item's own set-up; a look before it must not)."""
    look = tom.lookahead
    waiting = look.maybe_scan if look is not None else None
    if not take:
        return wait_all(submit(tom, spec), waiting)
    return take_samples(tom.runner, tom.engine, spec, sample_count(tom.options), waiting)


def prefetch_items(items: Iterable[Any]) -> int:
    """Submit the requests of every benchmark item of `items` (unless it will be skipped
    as unavailable); returns how many items there were."""
    n = 0
    tom = None
    for item in items:
        spec = spec_of(item)
        if spec is None:
            continue
        tom = tom or get_session(item.config)
        if not tom.engine.unavailable(spec):
            submit(tom, spec)
        n += 1
    return n


def request_phase(session: pytest.Session, runner: Any) -> None:
    """Submit the selection and wait for every answer with a live line (no xdist)."""
    if prefetch_items(collected_items(session)) == 0:
        return
    Progress(runner, session.config).run()
    prepare_scoring(collected_items(session))

    freeze_more()  # the answers and the client's modules live to the end: out of the GC's sight


def window_prefetch(tom: Any, session: pytest.Session, item: Any, size: int) -> None:
    """Under -x/--maxfail: submit `item` and the `size` items after it, no further. A run that
    stops at the first wrong answer then asks the model for at most `size` items it will not
    score (they are counted apart in the usage summary)."""
    index = tom.window_index
    if index is None:
        index = tom.window_index = {id(it): i for i, it in enumerate(collected_items(session))}
    i = index.get(id(item))
    if i is not None:
        prefetch_items(collected_items(session)[i: i + 1 + max(0, size)])


def prepare_scoring(items: Iterable[Any]) -> int:
    """Hand each family the answers of `items` before any of them is scored.

    Scoring stays per item; this only lets a family do in one batch what it would
    otherwise do answer by answer (FANToM embeds every free response at once).
    With `--tom-requests-first` it is called once the request phase is over, with
    the whole selection; a streamed test loop calls it with windows of items
    (`streaming.StreamedRun.prepare`); an xdist worker calls it with the items of
    its queue whose answers are in (`WorkerLookahead.prepare`). Returns how many
    answers were handed over.
    """
    by_family: dict[str, list[tuple[Any, str]]] = {}
    tom = None
    for item in items:
        spec = spec_of(item)
        if spec is None:
            continue
        tom = tom or get_session(item.config)
        family = families.get(spec.family)
        if not prepares(family) or family.unavailable(spec, tom.settings):
            continue
        # an item already set up has taken its answers (the runner forgot them); the others
        # take them at their set-up: only a look here
        for comp in getattr(item, "completions", None) or completions(tom, spec, take=False):
            if not comp.error:
                by_family.setdefault(spec.family, []).append((spec, comp.final))
    for name, pairs in by_family.items():
        families.get(name).prepare_scoring(pairs, tom.scoring)
    return sum(len(pairs) for pairs in by_family.values())


def prepares(family: Any) -> bool:
    """Whether the family does anything in `prepare_scoring` (most do not)."""
    return getattr(type(family), "prepare_scoring", None) is not Family.prepare_scoring


def write_summary(terminalreporter: Any, tom: Any) -> None:
    """The `tom requests` section: requests, cache hits, tokens, cost, failed items."""
    if verbosity(terminalreporter.config) < 0 and not any(
            r.get("outcome", {}).get("error") for r in tom.records):
        return  # -q: only when something failed

    unscored = 0
    if tom._runner is not None:  # without xdist this process's runner made every request
        unscored = tom._runner.stats.requests - sum(int(r.get("requests") or 0)
                                                    for r in tom.records)
    write_usage(terminalreporter, tom.records, tom.backend.describe(), tom.prices,
                model_name=getattr(tom.backend, "model", ""), unscored=unscored)


def cache_problems(tom: Any) -> list[str]:
    """The cache's lines for the summary: repaired by --tom-cache-clear, or turned off (in
    this process or, under xdist, in a worker: see `note_cache_problem`)."""
    lines = list(tom.cache_notes)
    runner = tom.peek_runner()
    if runner is not None and runner.cache_problem:
        lines.append(runner.cache_problem)
    return list(dict.fromkeys(lines))


def note_cache_problem(tom: Any, report: Any) -> None:
    """On an xdist worker: carry the cache's problem, once, on an item's report (the report's
    attributes travel to the controller, which prints it)."""
    runner = tom.peek_runner()
    problem = runner.cache_problem if runner is not None else None
    if problem and problem not in tom.cache_notes:
        tom.cache_notes.append(problem)
        report.tom_cache_problem = problem


def write_cache_problems(terminalreporter: Any, tom: Any) -> None:
    for line in cache_problems(tom):
        terminalreporter.write_line(line, yellow=True, bold=True)
