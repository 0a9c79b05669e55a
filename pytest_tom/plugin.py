"""pytest hooks of pytest-tom (registered as the `tom` plugin; `-p no:tom` disables it).

Hooks only: the work is done by the session object kept in `config.stash`.
Without `--tom-model` (or `tom_model` in the ini file) the plugin is inert.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_tom.options import add_options, read_options
from pytest_tom.session import STASH_KEY, get_session


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tom: a pytest-tom benchmark item")
    options = read_options(config)
    if not options["model"]:
        return
    from pytest_tom.session import TomSession

    tom = TomSession(config, options)
    config.stash[STASH_KEY] = tom
    if not tom.is_worker:
        config.pluginmanager.register(tom.sink, "tom-record-sink")


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    tom = get_session(config)
    if tom is None:
        return None
    s = tom.describe_settings()
    return [f"tom: model {s['model']} · method {s['method']} · seed {s['seed']} · temperature "
            f"{s['temperature']} · max_tokens {s['max_tokens'] or 'default'} · concurrency "
            f"{s['concurrency']} · suites {tom.options['files']}"]


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> pytest.Collector | None:
    tom = get_session(parent.config)
    if tom is None:
        return None
    from pytest_tom.collect import TomFile, matches

    if matches(file_path, tom.file_patterns):
        return TomFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Any:
    tom = get_session(session.config)
    if tom is not None and not tom.is_worker and not session.config.option.collectonly:
        from pytest_tom.collect import TomItem

        for item in session.items:
            if isinstance(item, TomItem):
                tom.runner.submit(item.request_key(), item.conversation())
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    report = yield
    from pytest_tom.collect import TomItem

    if isinstance(item, TomItem) and item.outcome is not None and not getattr(item, "_tom_sent", False):
        if call.when == "call" or report.outcome in ("failed", "skipped"):
            report.tom = item.record()
            item._tom_sent = True
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    tom = get_session(session.config)
    if tom is None:
        return
    tom.close()
    if tom.is_worker:
        return
    import time

    from pytest_tom.aggregate import aggregate

    tom.results = aggregate(tom.records, tom.settings)
    if tom.options["report"]:
        from pytest_tom.report.json_report import build_report, write_json_atomic

        write_json_atomic(tom.options["report"], build_report(
            tom.results, tom.records, tom.describe_settings(), tom.started, time.time()))
    if tom.options["record"]:
        from pytest_tom.report.json_report import write_replay

        write_replay(tom.options["record"], tom.records)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    tom = get_session(config)
    if tom is None or tom.is_worker or tom.results is None or not tom.records:
        return
    from pytest_tom.report.terminal import write_summary

    write_summary(terminalreporter, tom.results, tom.backend.describe(), tom.options["report"])


@pytest.fixture(scope="session")
def tom_model(request: pytest.FixtureRequest) -> Any:
    """The model named by --tom-model, for your own tests: `tom_model.ask("...")`."""
    tom = get_session(request.config)
    if tom is None:
        pytest.skip("no model configured: pass --tom-model (or set tom_model in the ini file)")
    from pytest_tom.handle import ModelHandle

    return ModelHandle(tom)
