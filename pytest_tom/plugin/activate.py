"""An active run (a model is given): the session, the usage errors found at start, the
hooks of the run. Imported by the entry point (`plugin/__init__.py`) only when active."""

from __future__ import annotations

import pytest

from pytest_tom.core.option_table import TomOptions
from pytest_tom.plugin.bundled import configure_bundled
from pytest_tom.plugin.hooks import TomHooks
from pytest_tom.plugin.request_phase import configure as configure_calls
from pytest_tom.plugin.run_gates import configure_gates
from pytest_tom.plugin.session import TomSession
from pytest_tom.plugin.stash import STASH_KEY
from pytest_tom.plugin.usage_errors import check_start
from pytest_tom.plugin.worker_start_error import register_on_worker
from pytest_tom.pytest_compat import install_teardown_index
from pytest_tom.report.html import usage_problem


def activate(config: pytest.Config, options: TomOptions) -> None:
    try:
        tom = TomSession(config, options)
    except pytest.UsageError as exc:  # e.g. a worker's pytest_tom_backend hook declined
        if register_on_worker(config, str(exc)):
            return
        raise
    config.stash[STASH_KEY] = tom
    tom.bundled = configure_bundled(config, options)  # --tom-suite: usage error or paths added
    if tom.bundled is not None:
        tom.file_patterns.append(tom.bundled.pattern)
    configure_calls(tom)  # --tom-prices read; --tom-cache-clear (controller only)
    check_start(tom)  # method, family options, family metric names: usage errors at start
    configure_gates(tom)  # gate options: usage errors now, not after the run; --tom-items
    problem = usage_problem(options.html)  # --tom-html: extra installed, before the run
    if problem:
        raise pytest.UsageError(problem)
    config.pluginmanager.register(TomHooks(tom), "tom-session")
    if not tom.is_worker:
        install_teardown_index(config)  # the failure summary of thousands of wrong answers, in linear time
