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
    if getattr(config.option, "markers", False):  # pytest --markers collects nothing
        from pytest_tom.markers import register_markers

        register_markers(config, options)
    if not options.model:
        explicit = config.args_source == pytest.Config.ArgsSource.ARGS  # not testpaths
        if explicit and config.args and not hasattr(config, "workerinput"):
            from pytest_tom.inactive import check_inactive

            check_inactive(config, str(options.files).split())
        return
    from pytest_tom.session import TomSession

    tom = TomSession(config, options)
    config.stash[STASH_KEY] = tom
    from pytest_tom.request_phase import configure as configure_calls

    configure_calls(tom)  # runner options checked; --tom-cache-clear (controller only)
    from pytest_tom.usage_checks import check_start

    check_start(tom)  # method, family options, family metric names: usage errors at start
    from pytest_tom.gates.evaluate import configure_gates

    configure_gates(tom)  # gate options: usage errors now, not after the run; --tom-items
    from pytest_tom.report.html import usage_problem

    problem = usage_problem(options.html)  # --tom-html: extra installed, before the run
    if problem:
        raise pytest.UsageError(problem)
    config.pluginmanager.register(tom.sink, "tom-record-sink")
    if not tom.is_worker:
        from pytest_tom.report.teardown_index import install

        install(config)  # the failure summary of thousands of wrong answers, in linear time


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    tom = get_session(config)
    if tom is None:
        return None
    s = tom.describe_settings()
    from pytest_tom.request_phase import cache_label
    from pytest_tom.usage_checks import method_note

    lines = [f"tom: model {s['model']} · method {s['method']} · seed {s['seed']} · temperature "
             f"{s['temperature']} · {tom.max_tokens_text()} · concurrency "
             f"{s['concurrency']} · suites {tom.options.files}"
             + (f" · samples {tom.options.samples}" if tom.options.samples > 1 else "")
             + f" · {cache_label(tom)}"]
    note = method_note(s["method"])
    return [*lines, note] if note else lines


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> pytest.Collector | None:
    tom = get_session(parent.config)
    if tom is None:
        return None
    from pytest_tom.items import TomFile, matches

    if matches(file_path, tom.file_patterns):
        return TomFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Any:
    if get_session(session.config) is None:
        return (yield)
    from pytest_tom.speed import collection_gc

    with collection_gc():  # large suites: no GC passes over the tree being built
        return (yield)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tom = get_session(config)
    if tom is None or not tom.options.limit:
        return
    from pytest_tom.selection import limit_items

    kept, dropped = limit_items(items, tom.options.limit, tom.settings.seed)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_deselected(items: list[pytest.Item]) -> None:
    """Count deselected items of the suites (the gates warn that they judged a subset)."""
    if not items:
        return
    tom = get_session(items[0].config)
    if tom is not None:
        tom.deselected = getattr(tom, "deselected", 0) + sum(1 for i in items if hasattr(i, "spec"))


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Any:
    """Broken suites do not stop the others: their collection errors are set aside while the
    items run (pytest would otherwise interrupt the run) and counted again afterwards."""
    tom = get_session(session.config)
    if tom is None:
        return (yield)
    held = min(len(tom.broken_suites), session.testsfailed)
    if not session.config.option.maxfail:
        session.testsfailed -= held
    else:
        held = 0
    if not tom.is_worker and not session.config.option.collectonly and not _stops_early(session):
        from pytest_tom.request_phase import request_phase

        request_phase(session, tom.runner)  # every selected item, concurrently, live progress
    try:
        return (yield)
    finally:
        session.testsfailed += held


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    tom = get_session(item.config)
    if tom is None:
        return
    if tom.is_worker:  # xdist: request what this worker was sent, ahead
        from pytest_tom.request_phase import worker_lookahead

        worker_lookahead(item.session).scan(item, nextitem)
    elif _stops_early(item.session):  # -x / --maxfail: only a window of items ahead
        from pytest_tom.request_phase import window_prefetch

        window_prefetch(item.session, item, tom.options.concurrency)


def _stops_early(session: pytest.Session) -> bool:
    """-x or --maxfail: the run may stop at the first wrong answers, so the items are asked
    for a window ahead of the test loop rather than all at once before it."""
    return bool(session.config.option.maxfail)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    tom = get_session(item.config)
    if tom is not None and tom.is_worker:  # xdist: batch what this worker has answers for
        from pytest_tom.request_phase import worker_lookahead

        worker_lookahead(item.session).prepare(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    report = yield
    if get_session(item.config) is None:
        return report
    from pytest_tom.items import TomItem

    first_outcome = (isinstance(item, TomItem) and item.outcome is not None
                     and not getattr(item, "_tom_sent", False))
    if first_outcome and (call.when == "call" or report.outcome in ("failed", "skipped")):
        report.tom = item.record()
        item._tom_sent = True
        if report.tom:  # per-item properties of the JUnit XML (carried by the teardown report)
            from pytest_tom.report.item_outcome import junit_properties

            item.user_properties.extend(junit_properties(report.tom))
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    tom = get_session(session.config)
    if tom is None:
        return
    tom.close()  # the collected tree stays frozen to the end (see pytest_tom.speed)
    if tom.is_worker:
        return
    import time

    from pytest_tom.engine.aggregate import aggregate

    tom.results = aggregate(tom.records, tom.settings)
    if tom.options.report or tom.options.html:
        from pytest_tom.report.json_report import build_report, write_json_atomic

        data = build_report(tom.results, tom.records, tom.describe_settings(), tom.started,
                            time.time())
        if tom.options.report:
            write_json_atomic(tom.options.report, data)
        if tom.options.html:
            from pytest_tom.report.html.build import write_report_html

            write_report_html(tom.options.html, data, tom.options.report)
    if tom.options.record:
        from pytest_tom.report.json_report import write_replay

        write_replay(tom.options.record, tom.records)
    from pytest_tom.gates.evaluate import finish_gates

    finish_gates(session, tom)  # thresholds and baseline -> session.exitstatus; baseline, Markdown


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> Any:
    """Around pytest's own summary: big runs list wrong items compactly (report/compact.py),
    then the tom sections come last: wrong answers, requests, gates, and the scores."""
    tom = get_session(config)
    if tom is None or tom.is_worker:
        return (yield)
    from pytest_tom.report.compact import CompactFailures

    compact = CompactFailures.install(terminalreporter, config)
    try:
        result = yield
    finally:
        if compact is not None:
            compact.restore()
    if compact is not None:
        compact.write()
    if tom.results is not None and tom.records:
        from pytest_tom.request_phase import write_summary as write_requests

        write_requests(terminalreporter, tom)  # requests, cache hits, tokens, cost, failures
    from pytest_tom.gates.evaluate import gate_state
    from pytest_tom.report.gates import write_gates

    state = gate_state(config)
    if state is not None:
        write_gates(terminalreporter, state)
    if tom.results is not None and tom.records:
        from pytest_tom.report.terminal import write_summary

        write_summary(terminalreporter, tom.results, tom.backend.describe(), tom.options.report)
        if tom.options.html:
            terminalreporter.write_line(f"tom html report: {tom.options.html}")
    return result


@pytest.fixture(scope="session")
def tom_model(request: pytest.FixtureRequest) -> Any:
    """The model named by --tom-model, for your own tests: `tom_model.ask("...")`."""
    tom = get_session(request.config)
    if tom is None:
        pytest.skip("no model configured: pass --tom-model (or set tom_model in the ini file)")
    from pytest_tom.fixtures import ModelHandle

    return ModelHandle(tom)
