"""pytest entry point of pytest-tom (registered as the `tom` plugin; `-p no:tom` disables it).

Always registered: the options, the `tom` marker and the `tom_model` fixture.
Everything else lives in `hooks.TomHooks`, registered in `pytest_configure` only
when `--tom-model` (or `tom_model` in the ini file) is given: without it the
plugin is inert and imports neither the families nor PyYAML.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_tom.plugin.pytest_options import add_options, read_options
from pytest_tom.plugin.stash import STASH_KEY, get_session


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tom: a pytest-tom benchmark item")
    options = read_options(config)
    if getattr(config.option, "markers", False):  # pytest --markers collects nothing
        from pytest_tom.plugin.markers import register_markers

        register_markers(config, options)
    if not options.model:
        explicit = config.args_source == pytest.Config.ArgsSource.ARGS  # not testpaths
        if explicit and config.args and not hasattr(config, "workerinput"):
            from pytest_tom.plugin.inactive import check_inactive

            check_inactive(config, str(options.files).split())
        return
    from pytest_tom.plugin.hooks import TomHooks
    from pytest_tom.plugin.request_phase import configure as configure_calls
    from pytest_tom.plugin.run_gates import configure_gates
    from pytest_tom.plugin.session import TomSession

    tom = TomSession(config, options)
    config.stash[STASH_KEY] = tom
    configure_calls(tom)  # runner options checked; --tom-cache-clear (controller only)
    from pytest_tom.plugin.usage_errors import check_start

    check_start(tom)  # method, family options, family metric names: usage errors at start
    configure_gates(tom)  # gate options: usage errors now, not after the run; --tom-items
    from pytest_tom.report.html import usage_problem

    problem = usage_problem(options.html)  # --tom-html: extra installed, before the run
    if problem:
        raise pytest.UsageError(problem)
    config.pluginmanager.register(TomHooks(tom), "tom-session")
    if not tom.is_worker:
        from pytest_tom.report.teardown_index import install

        install(config)  # the failure summary of thousands of wrong answers, in linear time


@pytest.fixture(scope="session")
def tom_model(request: pytest.FixtureRequest) -> Any:
    """The model named by --tom-model, for your own tests: `tom_model.ask("...")`."""
    tom = get_session(request.config)
    if tom is None:
        pytest.skip("no model configured: pass --tom-model (or set tom_model in the ini file)")
    from pytest_tom.plugin.fixtures import ModelHandle

    return ModelHandle(tom)
