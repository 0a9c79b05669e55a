"""The test loop of a run, in every process: the model of `fixture:NAME` made at its start,
broken suites set aside while the others run, the selection asked for (every answer first,
or streamed while the items run), each item's record put on its report, the runner closed
at the end."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_tom.core.outcome import TEST_ERROR, Outcome
from pytest_tom.plugin.context import RunContext
from pytest_tom.plugin.items import TomFailure, TomItem
from pytest_tom.plugin.large_runs import freeze_more, settle_loop
from pytest_tom.plugin.own_model import resolve_fixture
from pytest_tom.plugin.request_phase import RequestPhase
from pytest_tom.plugin.selection import Selection
from pytest_tom.plugin.streaming import start_stream
from pytest_tom.pytest_compat import collection_errors_set_aside, junit_path, unprefix_xdist_stop
from pytest_tom.report.item_outcome import junit_properties


def stops_early(config: pytest.Config) -> bool:
    """-x or --maxfail: the run may stop at the first wrong answers, so the items are asked
    for a window ahead of the test loop (`request_phase.WindowPrefetch`) rather than all at
    once before it."""
    return bool(config.getoption("--maxfail"))


def stopped_by_pytest(item: TomItem, call: pytest.CallInfo[Any]) -> bool:
    """Whether the test of `item` failed at `call` for a reason of pytest's, not of its
    answer: an exception in set-up before the item had an outcome (pytest-timeout waiting
    for the answer, a fixture), or in the call other than the item's own verdict."""
    if call.excinfo is None or call.when == "teardown":
        return False
    if isinstance(call.excinfo.value, TomFailure | pytest.xfail.Exception | pytest.skip.Exception):
        return False
    return call.when == "call" or item.outcome is None


class RunLoop:
    """The hooks of the test loop (see the module docstring)."""

    def __init__(self, ctx: RunContext, selection: Selection, requests: RequestPhase):
        self.ctx = ctx
        self.selection = selection
        self.requests = requests
        self.junit = junit_path(ctx.config) is not None  # per-item JUnit properties wanted
        self.finished = 0  # items whose tear-down was reported (`settle_loop`)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        """Broken suites do not stop the others: their collection errors are set aside while
        the items run (pytest would otherwise interrupt the run) and counted again after."""
        ctx = self.ctx
        resolve_fixture(ctx.model, session, ctx.options)  # fixture:NAME: made now, per process
        stream = None
        with collection_errors_set_aside(session, len(self.selection.broken_suites)):
            if (not ctx.is_worker and not session.config.getoption("--collect-only")
                    and not stops_early(session.config)):
                if ctx.options.requests_first:
                    self.requests.run_up_front(session)  # every answer first, with a live line
                else:
                    stream = start_stream(session, self.requests)  # scored as answered
            try:
                return (yield)
            except BaseException:  # Ctrl-C, a crash: ask nothing more
                self.requests.stop()
                raise
            finally:
                if session.shouldfail or session.shouldstop:  # -x, an early stop
                    self.requests.stop()  # ... so the requests line below is final
                if stream is not None:
                    stream.finish()

                freeze_more()  # what the run built lives to the end: out of the GC's sight

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
        """The item's record on its report (plain data: it travels to the xdist controller)."""
        report = yield
        if isinstance(item, TomItem) and not item.record_sent and stopped_by_pytest(item, call):
            # pytest-timeout firing, a fixture or another plugin failing the test before its
            # answer was scored: the item is an error of the run, not a missing record
            item.outcome = Outcome.failed(
                TEST_ERROR, f"pytest stopped the test at {call.when} before the answer was "
                            f"scored: {call.excinfo.exconly() if call.excinfo else ''}")
            item.verdict = (call.when, item.outcome.detail)  # a rerun fails the same way
        first_outcome = (isinstance(item, TomItem) and item.outcome is not None
                         and not item.record_sent)
        if first_outcome and (call.when == "call" or report.outcome in ("failed", "skipped")):
            report.tom = item.record()
            item.record_sent = True
            item.release_answers()  # the record has them
            if report.tom and self.junit:  # per-item properties of the JUnit XML (carried by
                # the teardown report); without --junitxml nobody reads them
                item.user_properties.extend(junit_properties(report.tom))
        if call.when == "setup" and isinstance(item, TomItem) and item.suite_stop:
            # never asked, its suite stopped early: the reason travels to the xdist controller
            report.tom_suite_stop = [item.spec.suite, item.suite_stop]  # type: ignore[attr-defined]
        if call.when == "teardown":
            self.finished += 1
            settle_loop(self.finished)  # every thousand items: garbage collected, the rest frozen
        stop = self.requests.stop_reason()
        if stop and call.when == "teardown":  # an early-stop rule fired: pytest's loop ends
            # after this item, with the reason as its one line (asking/early_stop.py)
            report.tom_stop = stop  # type: ignore[attr-defined]  # to the xdist controller
            if not item.session.shouldfail:
                item.session.shouldfail = f"tom: the run stopped early: {stop}"
        return report

    @pytest.hookimpl(trylast=True)
    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        """Under xdist an early stop ends the run as `xdist.dsession.Interrupted`: its line
        is made the plain run's ("! tom: the run stopped early: ...")."""
        unprefix_xdist_stop(self.ctx.config, "tom: ")

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """The runner stops (its thread, the backend's client, the cache). The collected tree
        stays frozen to the end (see pytest_tom.plugin.large_runs)."""
        self.requests.close()
