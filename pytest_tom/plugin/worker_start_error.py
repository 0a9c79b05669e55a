"""An xdist worker that cannot start the run: one usage error on the controller, not a
crash of every worker.

The model of a `pytest_tom_backend` hook is made in each worker, never on the
controller (it may load a model); when a worker's hook declines the spec, the worker
cannot start. Raised from the worker's `pytest_configure`, xdist would restart the
worker again and again ("maximum crashed workers reached") and exit with no clear
line. Instead the worker runs nothing (its items deselected) and hands the message
to the controller (`pytest_compat.send_to_controller`), which stops the session with it (exit 4)."""

from __future__ import annotations

import pytest

from pytest_tom.pytest_compat import is_xdist_worker, send_to_controller, sent_by_worker

OUTPUT_KEY = "tom_usage_error"


class WorkerStartError:
    """Registered on a worker whose run could not start (see the module docstring)."""

    def __init__(self, message: str):
        self.message = message

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        if items:
            config.hook.pytest_deselected(items=list(items))
            items[:] = []

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        send_to_controller(session.config, OUTPUT_KEY, self.message)


def register_on_worker(config: pytest.Config, message: str) -> bool:
    """True when `config` is an xdist worker's (the error is then handed over); False on
    the controller or without xdist, where the usage error is raised as usual."""
    if not is_xdist_worker(config):
        return False
    config.pluginmanager.register(WorkerStartError(message), "tom-worker-start-error")
    return True


def stop_with_worker_error(node: object) -> None:
    """On the controller (`pytest_testnodedown`): exit 4 with a worker's start error."""
    message = sent_by_worker(node, OUTPUT_KEY)
    if message:
        pytest.exit(message, returncode=pytest.ExitCode.USAGE_ERROR)
