"""An active run (a model is given): the run context, the usage errors found at start, the
phases of the run and their hook objects, each registered only where it has work.
Imported by the entry point (`plugin/__init__.py`) only when active.

| object | owns | registered |
|---|---|---|
| `context.RunContext` | what the run is (frozen) | (stash: `CONTEXT_KEY`) |
| `items.SuiteFiles` | suite files collected, suites seen, markers | every process |
| `selection.Selection` | `--tom-limit`, `--tom-shard`, deselected, broken suites | every process |
| `request_phase.RequestPhase` | the runner, prices, the cache's notes | (stash: `REQUESTS_KEY`) |
| `large_runs.QuietPhases` | suite items' phase hooks without pytest's capture | `--tom-item-capture=auto` (stash: `QUIET_KEY`, read by `TomItem.ihook`) |
| `run_loop.RunLoop` | the test loop, each item's record on its report | every process |
| `request_phase.WindowPrefetch` | the window ahead of `-x` | `-x`/`--maxfail`, no xdist worker |
| `request_phase.WarmUpAtCollection` | the backend's warm-up during collection | a backend with a warm-up, a process that calls it, no `--collect-only` |
| `lookahead.WorkerLookahead` | an xdist worker's queue asked ahead | xdist workers |
| `streaming.StreamedRun` | the streamed loop's windows | while the loop runs |
| `run_gates.RunGates` | what the gates found | (called by the outputs) |
| `outputs.RunOutputs` | records, results, the files and the summary | the aggregating process |
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from pytest_tom.core.option_table import TomOptions
from pytest_tom.plugin.context import (
    CONTEXT_KEY,
    RunContext,
    model_slot,
    project_dir,
    run_settings,
    run_shard,
)
from pytest_tom.plugin.items import SUITES_KEY, SuiteFiles
from pytest_tom.plugin.large_runs import QUIET_KEY, QuietPhases
from pytest_tom.plugin.lookahead import WorkerLookahead
from pytest_tom.plugin.outputs import RunOutputs
from pytest_tom.plugin.request_phase import (
    ANSWERS_KEY,
    REQUESTS_KEY,
    RequestPhase,
    WarmUpAtCollection,
    WindowPrefetch,
    configure_requests,
    warms,
)
from pytest_tom.plugin.run_gates import RunGates, gate_config
from pytest_tom.plugin.run_loop import RunLoop, stops_early
from pytest_tom.plugin.selection import Selection
from pytest_tom.plugin.stash import ACTIVE_KEY
from pytest_tom.plugin.suite_option import configure_bundled
from pytest_tom.plugin.usage_errors import check_start
from pytest_tom.plugin.worker_start_error import register_on_worker
from pytest_tom.pytest_compat import (
    install_teardown_index,
    is_xdist_worker,
    on_xdist_controller,
)
from pytest_tom.report.html import usage_problem


def activate(config: pytest.Config, options: TomOptions) -> None:
    """Build the run context and the phases (usage errors first, in one place each), then
    register the hook objects this process needs."""
    is_worker = is_xdist_worker(config)
    settings = run_settings(options)
    try:
        model = model_slot(config, options, settings)
        shard = run_shard(options, dict(os.environ))
    except pytest.UsageError as exc:  # e.g. a worker's pytest_tom_backend hook declined
        if register_on_worker(config, str(exc)):
            return
        raise
    bundled = configure_bundled(config, options)  # --tom-suite: usage error or paths added
    # --tom-prices read; --tom-cache-clear (controller only)
    prices, cache_notes = configure_requests(config, options, is_worker, project_dir(config))
    check_start(config, options, settings, is_worker)  # method, family options, metric names, outputs
    gates = gate_config(options, is_worker)  # usage errors now, not after the run
    problem = usage_problem(options.html)  # --tom-html: extra installed, before the run
    if problem:
        raise pytest.UsageError(problem)

    # the options as the run reads them: --tom-items follows the gates
    ctx = RunContext.build(config, replace(options, items=gates.items), settings, model,
                           shard, bundled)
    requests = RequestPhase(ctx, prices, cache_notes)
    selection = Selection(ctx)
    files = SuiteFiles(ctx)
    config.stash[CONTEXT_KEY] = ctx
    config.stash[REQUESTS_KEY] = requests
    config.stash[SUITES_KEY] = files
    config.stash[ACTIVE_KEY] = True
    register = config.pluginmanager.register
    if options.item_capture == "auto":
        quiet = config.stash[QUIET_KEY] = QuietPhases(config)
        register(quiet, "tom-quiet-phases")
    register(files, "tom-suite-files")
    register(selection, "tom-selection")
    if is_worker:  # xdist: ask for what this worker was sent, ahead; it gives the answers
        lookahead = WorkerLookahead(requests)
        config.stash[ANSWERS_KEY] = lookahead
        register(lookahead, "tom-lookahead")
    else:
        config.stash[ANSWERS_KEY] = requests
        register(RunOutputs(ctx, selection, requests, RunGates(ctx, selection, gates)),
                 "tom-outputs")
        if stops_early(config):
            register(WindowPrefetch(requests), "tom-window")
        install_teardown_index(config)  # the failure summary of thousands of wrong answers, in linear time
    if warms(ctx.backend) and not on_xdist_controller(config) \
            and not config.getoption("--collect-only", False):
        register(WarmUpAtCollection(requests), "tom-warm-up")
    # last: its tryfirst sessionfinish (the runner stops) runs before the outputs' one
    register(RunLoop(ctx, selection, requests), "tom-run-loop")
