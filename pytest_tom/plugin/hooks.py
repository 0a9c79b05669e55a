"""The hooks of an active run, bound to its session (registered by `plugin.pytest_configure`
only when a model is given, so none of them needs to check whether the plugin is active)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from pytest_tom.engine.aggregate import aggregate
from pytest_tom.engine.run_report import RunReport
from pytest_tom.metrics.record_table import UndeclaredRead
from pytest_tom.plugin.items import TomFile, TomItem, matches
from pytest_tom.plugin.lookahead import worker_lookahead
from pytest_tom.plugin.own_model import resolve_fixture
from pytest_tom.plugin.request_phase import (
    cache_label,
    note_cache_problem,
    request_phase,
    window_prefetch,
    write_cache_problems,
)
from pytest_tom.plugin.request_phase import write_summary as write_requests
from pytest_tom.plugin.run_gates import finish_gates, items_note
from pytest_tom.plugin.selection import limit_items, shard_items
from pytest_tom.plugin.session import TomSession, project_dir
from pytest_tom.plugin.speed import collection_gc, freeze_more
from pytest_tom.plugin.streaming import start_stream
from pytest_tom.plugin.usage_errors import method_note
from pytest_tom.plugin.worker_start_error import stop_with_worker_error
from pytest_tom.pytest_compat import (
    collection_errors_set_aside,
    drop_quiet_report,
    junit_path,
    mark_last_failed,
    send_to_controller,
    sent_by_worker,
    terminal_reporter,
    was_xfail,
)
from pytest_tom.report.atomic import try_write
from pytest_tom.report.compact import CompactFailures
from pytest_tom.report.gate_summary import write_gates
from pytest_tom.report.html.build import write_report_html
from pytest_tom.report.item_outcome import junit_properties
from pytest_tom.report.json_report import write_replay, write_report
from pytest_tom.report.terminal import write_summary


class TomHooks:
    def __init__(self, tom: TomSession):
        self.tom = tom
        self.junit = junit_path(tom.config) is not None
        self._reporter: Any = None  # pytest's terminal reporter (False: none), found once

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        tom = self.tom
        s = tom.describe_settings()

        details = tom.backend.details()
        model = f"{s['model']} ({details})" if details else s["model"]
        lines = [f"tom: model {model} · method {s['method']} · seed {s['seed']} · temperature "
                f"{s['temperature']} · {tom.max_tokens_text()} · concurrency "
                f"{s['concurrency']} · suites {tom.options.files}"
                + (f" · samples {tom.options.samples}" if tom.options.samples > 1 else "")
                + f" · {cache_label(tom)}"]
        if tom.bundled is not None:
            lines.append(tom.bundled.header())
        here = project_dir(config)
        if here != config.rootpath:
            lines.append(f"tom: the paths given made pytest choose the rootdir {config.rootpath}, "
                         f"not this project: pytest's cache (--lf) and ini file are looked for "
                         f"there; "
                         f"the tom cache stays in {here}. Pass --rootdir=. to keep them all "
                         f"here (bundled suites: --tom-suite)")
        items = items_note(tom)
        if items:
            lines.append(items)
        if tom.shard is not None:
            lines.append(f"tom: shard {tom.shard.label} ({tom.shard.source}): whole groups "
                         f"of the selection; merge the shards' reports with pytest-tom merge")
        note = method_note(s["method"])
        return [*lines, note] if note else lines

    def pytest_collect_file(self, file_path: Any, parent: pytest.Collector) -> pytest.Collector | None:
        if matches(file_path, self.tom.file_patterns):
            return TomFile.from_parent(parent, path=file_path)
        return None

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: pytest.Session) -> Any:
        with collection_gc():  # large suites: no GC passes over the tree being built
            return (yield)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        tom = self.tom
        if tom.options.limit:
            kept, dropped = limit_items(items, tom.options.limit, tom.settings.seed)
            if dropped:
                config.hook.pytest_deselected(items=dropped)
                items[:] = kept
        if tom.shard is not None:  # after -k, -m and --tom-limit: a cut of that selection
            how = {"keyword": config.getoption("-k"), "markexpr": config.getoption("-m"),
                   "limit": tom.options.limit}
            kept, dropped, tom.shard_record = shard_items(items, tom.shard, tom.settings, how)
            if dropped:
                config.hook.pytest_deselected(items=dropped)
                items[:] = kept

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: the shard the workers cut (each cuts the same), for the report; a worker
        that could not start the run stops the session with its usage error."""
        stop_with_worker_error(node)
        record = sent_by_worker(node, "tom_shard")
        if record is not None and self.tom.shard_record is None:
            self.tom.shard_record = record

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        """Count deselected items of the suites (the gates warn that they judged a subset)."""
        self.tom.deselected += sum(1 for i in items if hasattr(i, "spec"))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Suite files that failed to load (their errors must not stop the other suites)."""
        if (report.failed and report.nodeid
                and matches(Path(report.nodeid.split("::")[0]), self.tom.file_patterns)):
            self.tom.broken_suites.append(report.nodeid)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        """Broken suites do not stop the others: their collection errors are set aside while
        the items run (pytest would otherwise interrupt the run) and counted again after."""
        tom = self.tom
        resolve_fixture(tom, session)  # --tom-model=fixture:NAME: made now, once per process
        with collection_errors_set_aside(session, len(tom.broken_suites)):
            if (not tom.is_worker and not session.config.getoption("--collect-only")
                    and not _stops_early(session)):
                if tom.options.requests_first:
                    request_phase(session, tom.runner)  # every answer first, with a live line
                else:
                    tom.stream = start_stream(session)  # every item asked; scored as answered
            try:
                return (yield)
            finally:
                if tom.stream is not None:
                    tom.stream.finish(tom.runner)

                freeze_more()  # what the run built lives to the end: out of the GC's sight

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        if self.tom.is_worker:  # xdist: request what this worker was sent, ahead

            worker_lookahead(item.session).scan(item, nextitem)
        elif _stops_early(item.session):  # -x / --maxfail: only a window of items ahead

            window_prefetch(self.tom, item.session, item, self.tom.options.concurrency)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        if self.tom.is_worker:  # xdist: batch what this worker has answers for

            worker_lookahead(item.session).prepare(item)
        elif self.tom.stream is not None:  # the answers still arriving: batch a window
            self.tom.stream.prepare(item)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
        report = yield
        if self.tom.is_worker:
            note_cache_problem(self.tom, report)  # once, to the controller's summary
        first_outcome = (isinstance(item, TomItem) and item.outcome is not None
                         and not getattr(item, "_tom_sent", False))
        if first_outcome and (call.when == "call" or report.outcome in ("failed", "skipped")):
            report.tom = item.record()
            item._tom_sent = True
            item.release_answers()  # the record has them
            if report.tom and self.junit:  # per-item properties of the JUnit XML (carried by
                # the teardown report); without --junitxml nobody reads them
                item.user_properties.extend(junit_properties(report.tom))
        return report

    @pytest.hookimpl(trylast=True)  # after the cache plugin's own bookkeeping of --lf
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Item records, from xdist workers too, kept on the controller only."""
        problem = getattr(report, "tom_cache_problem", None)  # an xdist worker's cache
        if problem and not self.tom.is_worker and problem not in self.tom.cache_notes:
            self.tom.cache_notes.append(problem)
        data = getattr(report, "tom", None)
        if data and not self.tom.is_worker:
            self.tom.records.append(data)
            if was_xfail(report):
                # a wrong answer under --tom-items report is an xfail, which pytest's --lf
                # forgets; it is still a wrong answer that `--lf` should run again
                mark_last_failed(self.tom.config, report)
        if (report.when != "call" and report.passed and not report.sections
                and not self.tom.is_worker):
            self._drop_quiet_report(report)

    def _drop_quiet_report(self, report: pytest.TestReport) -> None:
        """pytest's terminal reporter keeps every passed set-up and tear-down report: two per
        item, about 1 KB, to the end of the run. Only a tear-down's captured output is ever
        read from there (printed under a failure); a report with no output is let go as soon
        as it is logged (`pytest_compat.drop_quiet_report`), so 100,000 items do not keep
        200,000 of them."""
        if self._reporter is None:
            self._reporter = terminal_reporter(self.tom.config) or False
        if self._reporter:
            drop_quiet_report(self._reporter, report)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        tom = self.tom
        tom.close()  # the collected tree stays frozen to the end (see pytest_tom.plugin.speed)
        if tom.is_worker:
            if tom.shard_record is not None:  # to the controller (pytest_testnodedown)
                send_to_controller(session.config, "tom_shard", tom.shard_record)
            return

        try:
            tom.results = aggregate(tom.records, tom.settings)
        except UndeclaredRead as exc:  # a family's metric declaration is wrong: say which
            raise pytest.UsageError(str(exc)) from None

        # Ctrl-C or a crash: what was scored, marked; nothing at all over a previous file
        interrupted = exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR)
        data = None
        if tom.options.report or tom.options.html:
            data = RunReport.build(tom.results, tom.records, tom.describe_settings(),
                                   tom.started, time.time(),
                                   "interrupted" if interrupted else "complete")

        def write_html(path: str) -> None:
            write_report_html(path, data, tom.options.report)

        for what, path, write in (
                ("report", tom.options.report, lambda p: write_report(p, data)),
                ("HTML report", tom.options.html, write_html),
                ("replay record", tom.options.record, lambda p: write_replay(p, tom.records))):
            if not path:
                continue
            if interrupted and not tom.records:
                tom.notes.append(f"tom {what} not written: the run was interrupted before any "
                                 f"item was scored ({path} is left as it was)")
            else:
                try_write(tom.write_errors, what, path, lambda p=path, w=write: w(p))

        finish_gates(session, tom)  # thresholds, baseline -> session.exitstatus; baseline, Markdown
        if tom.write_errors and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # asked for a file, did not get it

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int,
                                config: pytest.Config) -> Any:
        """Around pytest's own summary: big runs list wrong items compactly
        (report/compact.py), then the tom sections come last: wrong answers, requests,
        gates, and the scores."""
        tom = self.tom
        if tom.is_worker:
            return (yield)

        compact = CompactFailures.install(terminalreporter, config)
        try:
            result = yield
        finally:
            if compact is not None:
                compact.restore()
        if compact is not None:
            compact.write()
        if tom.results is not None and tom.records:
            write_requests(terminalreporter, tom)  # requests, cache hits, tokens, cost, failures
        if tom.gates is not None:
            write_gates(terminalreporter, tom.gates)
        if tom.results is not None and tom.records:
            write_summary(terminalreporter, tom.results, tom.backend.describe(),
                          tom.options.report)
            if tom.options.html:
                terminalreporter.write_line(f"tom html report: {tom.options.html}")

        write_cache_problems(terminalreporter, tom)  # one line each: cache turned off, repaired
        for line in tom.notes:
            terminalreporter.write_line(line, yellow=True)
        for line in tom.write_errors:  # last: a file asked for was not written (exit status 1)
            terminalreporter.write_line(line, red=True, bold=True)
        return result


def _stops_early(session: pytest.Session) -> bool:
    """-x or --maxfail: the run may stop at the first wrong answers, so the items are asked
    for a window ahead of the test loop rather than all at once before it."""
    return bool(session.config.getoption("--maxfail"))
