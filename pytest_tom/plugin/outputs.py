"""Records and outputs: the xdist controller's (or the plain run's) side of a run.

`RunOutputs` is registered only in the process that aggregates (never on an xdist
worker). It owns the item records as they arrive (from workers too), the results of
aggregation, and the lines and write errors of the summary; at the end it aggregates,
writes the JSON report, the HTML report and the replay file, hands over to the gates
(`run_gates.RunGates`) and writes the tom sections of the terminal summary.
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from typing import Any

import pytest

from pytest_tom.asking.reasoning import raise_text
from pytest_tom.core.option_table import TomOptions
from pytest_tom.core.outcome import CUT_OFF, MEASURED, RIGHT, UNPARSEABLE, WRONG
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView
from pytest_tom.metrics.record_table import UndeclaredRead
from pytest_tom.plugin.context import RunContext
from pytest_tom.plugin.other_plugins import rerun_note
from pytest_tom.plugin.request_phase import RequestPhase
from pytest_tom.plugin.run_gates import RunGates
from pytest_tom.plugin.selection import Selection
from pytest_tom.plugin.usage_errors import method_note
from pytest_tom.plugin.worker_start_error import stop_with_worker_error
from pytest_tom.pytest_compat import (
    drop_quiet_report,
    mark_last_failed,
    terminal_reporter,
    was_xfail,
)
from pytest_tom.report.atomic import try_write
from pytest_tom.report.compact import CompactFailures
from pytest_tom.report.html.build import write_report_html
from pytest_tom.report.json_report import write_replay, write_report
from pytest_tom.report.terminal import wrap_parts, write_summary
from pytest_tom.results.aggregate import aggregate
from pytest_tom.results.results import Results
from pytest_tom.results.run_report import ReportSettings, RunReport, SettingsJSON
from pytest_tom.results.token_usage import RequestUsage, request_usage


class RunOutputs:
    """The records of the run and everything written from them (see the module docstring)."""

    def __init__(self, ctx: RunContext, selection: Selection, requests: RequestPhase,
                 gates: RunGates):
        self.ctx = ctx
        self.selection = selection
        self.requests = requests
        self.gates = gates
        self.records: list[Record] = []  # every item's record, in the order they arrive
        self.results: Results | None = None  # set by aggregation at the end
        self.usage = RequestUsage([], {}, [])  # the request figures, made at the end
        self.notes: list[str] = []  # other lines for the end of the summary
        self.write_errors: list[str] = []  # files asked for that could not be written
        self._reporter: Any = None  # pytest's terminal reporter (False: none), found once

    def settings(self) -> SettingsJSON:
        """The run's settings as the reports show them (the shard included)."""
        return self.ctx.describe_settings(self.selection.shard_record,
                                          self.selection.record(self.ctx.config))

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        ctx = self.ctx
        s = ReportSettings(ctx.describe_settings())
        details = ctx.backend.details()
        model = f"{s.model} ({details})" if details else s.model
        lines = [f"tom: model {model} · method {s.method} · seed {s.seed} · temperature "
                 f"{s.temperature} · {ctx.max_tokens_text()} · concurrency "
                 f"{s.concurrency} · suites {ctx.options.files}"
                 + (f" · samples {ctx.options.samples}" if ctx.options.samples > 1 else "")
                 + f" · {self.requests.cache_label()}"]
        if ctx.options.sweep is not None:  # the items run once per value
            sweep = ctx.options.sweep
            lines.append(f"tom: sweep {sweep.setting} over {len(sweep.values)} values ("
                         f"{', '.join(sweep.label(v) for v in sweep.values)}): each item runs "
                         f"once per value, its suite <suite>[{sweep.setting}=V]; early stop off")
        if ctx.options.probe is not None:  # each item, then its probes' copies
            orders = (f" (shuffle: {ctx.options.probe_orders} orders)"
                      if "shuffle" in ctx.options.probe.names else "")
            lines.append(f"tom: probes {ctx.options.probe}{orders}: each item is asked again "
                         f"beside itself, its suite <suite>[probe=NAME] (a family that does "
                         f"not take a probe says so under the scores)")
        if ctx.bundled is not None:
            lines.extend(ctx.bundled.header())
        changed = s.options
        if changed:  # family options away from their defaults (a protocol's own decoding ...)
            lines.append("tom: family options " + " · ".join(
                f"--tom-{name.replace('_', '-')}={value}" for name, value in sorted(changed.items())))
        here = ctx.project_dir
        if here != config.rootpath:
            lines.append(f"tom: the paths given made pytest choose the rootdir {config.rootpath}, "
                         f"not this project: pytest's cache (--lf) and ini file are looked for "
                         f"there; "
                         f"the tom cache stays in {here}. Pass --rootdir=. to keep them all "
                         f"here (bundled suites: --tom-suite)")
        items = self.gates.header_note()
        if items:
            lines.append(items)
        if ctx.shard is not None:
            lines.append(f"tom: shard {ctx.shard.label} ({ctx.shard.source}): whole groups "
                         f"of the selection; merge the shards' reports with pytest-tom merge")
        reruns = rerun_note(config)
        if reruns:
            lines.append(reruns)
        note = method_note(s.method)
        return [*lines, note] if note else lines

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: a worker that could not start the run stops the session with its usage
        error."""
        stop_with_worker_error(node)

    @pytest.hookimpl(trylast=True)  # after the cache plugin's own bookkeeping of --lf
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Item records, from xdist workers too."""
        self.requests.take_worker_note(report)  # an xdist worker's cache problem
        data = getattr(report, "tom", None)
        if data:
            self.records.append(data)
            if was_xfail(report):
                # a wrong answer under --tom-items report is an xfail, which pytest's --lf
                # forgets; it is still a wrong answer that `--lf` should run again
                mark_last_failed(self.ctx.config, report)
        if report.when != "call" and report.passed and not report.sections:
            self._drop_quiet_report(report)

    def _drop_quiet_report(self, report: pytest.TestReport) -> None:
        """pytest's terminal reporter keeps every passed set-up and tear-down report: two per
        item, about 1 KB, to the end of the run. Only a tear-down's captured output is ever
        read from there (printed under a failure); a report with no output is let go as soon
        as it is logged (`pytest_compat.drop_quiet_report`), so 100,000 items do not keep
        200,000 of them."""
        if self._reporter is None:
            self._reporter = terminal_reporter(self.ctx.config) or False
        if self._reporter:
            drop_quiet_report(self._reporter, report)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        try:
            results = self.results = aggregate(self.records, self.ctx.settings)
        except UndeclaredRead as exc:  # a family's metric declaration is wrong: say which
            raise pytest.UsageError(str(exc)) from None

        # Ctrl-C, a crash or an early stop: what was scored, marked; nothing at all over a
        # previous file
        stopped = self.requests.stopped_text()
        interrupted = bool(stopped) or exitstatus in (pytest.ExitCode.INTERRUPTED,
                                                      pytest.ExitCode.INTERNAL_ERROR)
        options, records = self.ctx.options, self.records
        settings = self.settings()  # described once, for every file and the gates
        # the request figures, one pass over the records: the JSON report, the Markdown
        # summary and the terminal's requests section read them
        usage = self.usage = request_usage(records, self.ctx.backend.describe(),
                                           self.ctx.backend.model)
        @functools.cache
        def run_report() -> RunReport:
            """The run's report, built once at its first use (the JSON and HTML reports
            and the baseline are the same report)."""
            return RunReport.build(results, records, settings, self.ctx.started, time.time(),
                                   "interrupted" if interrupted else "complete",
                                   endpoints=usage.endpoints)

        for what, path, write in (
                ("report", options.report, lambda p: write_report(p, run_report())),
                ("HTML report", options.html,
                 lambda p: write_report_html(p, run_report(), options.report)),
                ("replay record", options.record, lambda p: write_replay(p, records))):
            if not path:
                continue
            if interrupted and not records:
                self.notes.append(f"tom {what} not written: the run was interrupted before any "
                                  f"item was scored ({path} is left as it was)")
            else:
                try_write(self.write_errors, what, path, lambda p=path, w=write: w(p))

        # the exit status has one writer, here: what the gates and the baseline ask for,
        # then a file asked for and not written fails the run
        status = self.gates.finish(session, results, records, settings, run_report,
                                   self.write_errors, stopped, endpoints=usage.endpoints)
        if self.write_errors and status == pytest.ExitCode.OK:
            status = pytest.ExitCode.TESTS_FAILED
        session.exitstatus = status

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int,
                                config: pytest.Config) -> Any:
        """Around pytest's own summary: big runs list wrong items compactly
        (report/compact.py), then the tom sections come last: wrong answers, requests,
        gates, and the scores."""
        compact = CompactFailures.install(terminalreporter, config)
        try:
            result = yield
        finally:
            if compact is not None:
                compact.restore()
        if compact is not None:
            compact.write()
        ran = self.results is not None and self.records
        if ran:  # requests, cache hits, tokens, cost, failures
            self.requests.write_summary(terminalreporter, self.usage)
        self.gates.write(terminalreporter)
        if ran and self.results is not None:
            write_summary(terminalreporter, self.results, self.ctx.backend.describe(),
                          self.ctx.options.report)
            for line in cut_off_lines(self.records, self.ctx.options):
                terminalreporter.write_line(line, yellow=True)
            if self.ctx.options.html:
                terminalreporter.write_line(f"tom html report: {self.ctx.options.html}")
        for line in suite_stop_lines(self.requests.suite_stops):  # asking/early_stop.py
            terminalreporter.write_line(line, red=True, bold=True)

        self.requests.write_cache_problems(terminalreporter)  # cache turned off, repaired
        for line in self.notes:
            terminalreporter.write_line(line, yellow=True)
        for line in self.write_errors:  # last: a file asked for was not written (exit status 1)
            terminalreporter.write_line(line, red=True, bold=True)
        return result


def suite_stop_lines(stops: dict[str, tuple[str, int]]) -> list[str]:
    """The lines for the suites that stopped early (asking/early_stop.CutOffAnswers): suite
    -> (why, its items not asked), each wrapped within the section's width."""
    lines: list[str] = []
    for suite, (reason, n) in sorted(stops.items()):
        lines += wrap_parts(f"tom: suite {suite} stopped early: ",
                            [*reason.split("; "), f"{n} of its items not asked (skipped), "
                                                  f"the other suites ran on"], sep="; ")
    return lines


def cut_off_lines(records: list[Record], options: TomOptions) -> list[str]:
    """The lines under the totals when answers were cut off by the budget: how many (how
    many inside the thought) and what to raise, within the section's width; none when no
    answer was cut off."""
    cut = [r for r in records if RecordView(r).status == CUT_OFF]
    if not cut:
        return []
    inside = sum(1 for r in cut if RecordView(r).extra.get("in_thought"))
    where = f" ({inside} inside the thought)" if inside else ""
    # a plain model: its replies that ended showed no thought (when every reply was cut off,
    # nobody can tell: a template that opens the thought in the prompt shows no tag
    # until the model closes it, so the thinking options stay in the line)
    ended = any(RecordView(r).status in (RIGHT, WRONG, UNPARSEABLE, MEASURED) for r in records)
    shown = any(t for r in records for t in (RecordView(r).thoughts or ()))
    thinks = not ended or shown
    advice = raise_text(options, thinks, shown)
    if options.sweep is not None:  # the budget is the sweep's: each value's cut-offs apart
        per_value = Counter(RecordView(r).suite for r in cut)
        advice = "per value: " + ", ".join(f"{n} in {suite}" for suite, n in
                                           sorted(per_value.items()))
    return wrap_parts("tom: ", [f"{len(cut)} of {len(records)} answers cut off by the "
                                f"budget{where}, counted apart, never wrong", advice], sep="; ")
