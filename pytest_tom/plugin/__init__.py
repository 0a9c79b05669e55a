"""pytest entry point of pytest-tom (registered as the `tom` plugin; `-p no:tom` disables it).

Always registered: the options, the `tom` marker and the `tom_model` fixture.
Everything else lives in the hook objects of an active run, registered by
`activate.activate` only when `--tom-model` (or `tom_model` in the ini file) is given:
without it the plugin is inert and imports neither the families nor PyYAML.

This module is the package's one lazy-import boundary: what it imports at the top
(the option table, the stash, the inactive check) is light; the active run is
imported in `pytest_configure` once a model is given.
"""

from __future__ import annotations

from typing import Any

import pytest

# first, and alone: the rest of the package loads as plain bytecode from here on, the
# imports below included (`pytest_compat.stop_rewriting`; this module and pytest_compat
# itself were rewritten already)
from pytest_tom.pytest_compat import is_xdist_worker, stop_rewriting

stop_rewriting(None, "pytest_tom")

from pytest_tom.plugin import own_model_hook  # noqa: E402 after stop_rewriting
from pytest_tom.plugin.inactive import check_inactive  # noqa: E402 after stop_rewriting
from pytest_tom.plugin.pytest_options import add_options, read_options  # noqa: E402 after stop_rewriting
from pytest_tom.plugin.stash import is_active  # noqa: E402 after stop_rewriting


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """`pytest_tom_backend(config, spec)`: a conftest's own model (docs/own-model.md).

    Also the earliest hook of this plugin, before the active run's imports: the rest of
    the package loads as plain bytecode, not through this run's assertion rewriter
    (`pytest_compat.stop_rewriting` says why: about a second of start-up per process
    where bytecode cannot be cached). The import of this module told the rewriters of
    its process already; a process that imported it before (in-process pytester runs)
    has a new rewriter for each run.
    """
    pluginmanager.add_hookspecs(own_model_hook)
    stop_rewriting(pluginmanager, "pytest_tom")


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tom: a pytest-tom benchmark item")
    options = read_options(config)
    if config.getoption("--markers", False):  # pytest --markers collects nothing
        from pytest_tom.plugin.markers import register_markers  # noqa: PLC0415 reads suites (PyYAML) only for --markers

        register_markers(config, options)
    if not options.model:
        explicit = config.args_source == pytest.Config.ArgsSource.ARGS  # not testpaths
        if explicit and config.args and not is_xdist_worker(config):
            check_inactive(config, str(options.files).split())
        return
    from pytest_tom.plugin.activate import activate  # noqa: PLC0415 the lazy boundary: the active run

    activate(config, options)


@pytest.fixture(scope="session")
def tom_model(request: pytest.FixtureRequest) -> Any:
    """The model named by --tom-model, for your own tests: `tom_model.ask("...")`."""
    if not is_active(request.config):
        pytest.skip("no model configured: pass --tom-model (or set tom_model in the ini file)")
    from pytest_tom.plugin.fixtures import model_handle  # noqa: PLC0415 the engine, only with a model

    return model_handle(request.config)
