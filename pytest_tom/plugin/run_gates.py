"""The gates in a pytest run: options checked at configure time, evaluation after
aggregation, the exit status, the baseline and Markdown files (through `report/`).

The evaluation itself is pytest-free (`gates/`); this module only connects it to the
run and the exit status. `RunGates` owns what the gates found (`gates.evaluate.GateState`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from pytest_tom.core.option_table import TomOptions
from pytest_tom.core.record import Record
from pytest_tom.gates.evaluate import GateConfig, GateState, evaluate, settings_notes
from pytest_tom.gates.spec import GateOptions, GateSpecError
from pytest_tom.gates.subset import subset_note
from pytest_tom.plugin.context import RunContext
from pytest_tom.plugin.pytest_options import option_source
from pytest_tom.plugin.selection import Selection
from pytest_tom.report.atomic import try_write
from pytest_tom.report.gate_junit import add_gate_cases
from pytest_tom.report.gate_summary import write_gates
from pytest_tom.report.json_report import write_report
from pytest_tom.report.markdown import write_markdown
from pytest_tom.results.results import Results
from pytest_tom.results.run_report import RunReport, SelectionRecord, SettingsJSON
from pytest_tom.results.token_usage import EndpointUsage


def gate_config(options: TomOptions, is_worker: bool) -> GateConfig:
    """The gate options parsed (a usage error if bad), `--tom-items` resolved.

    Workers resolve `items` the same way (they see the same options) but do not
    read the baseline: only the controller evaluates gates.
    """
    try:
        return GateConfig.from_options(GateOptions.of(options), load=not is_worker)
    except GateSpecError as exc:
        raise pytest.UsageError(str(exc)) from None


class RunGates:
    """The gates of this run: their configuration and what they found (on the controller)."""

    def __init__(self, ctx: RunContext, selection: Selection, config: GateConfig):
        self.ctx = ctx
        self.selection = selection
        self.state = GateState(config)

    def subset_note(self, session: pytest.Session, ran: int) -> str:
        """A warning when the gates judged part of the suites: items deselected (-k, -m,
        --lf, --tom-limit, --tom-shard) or named by node id (`gates.subset`: the same words
        `pytest-tom gate` says from the report's record of the selection)."""
        record = self.selection.record(session.config)
        if record is None:
            return ""
        selection = SelectionRecord(record)
        by = selection.by
        deselected = selection.counted
        if self.ctx.shard is not None and self.ctx.shard.total > 1:
            by.append("--tom-shard")
            if deselected is not None:
                deselected += selection.shard_cut
        return subset_note(ran, deselected, by, selection.named)

    def header_note(self) -> str:
        """The header line of report mode: why wrong answers are xfails, what sets the
        status."""
        if self.ctx.options.items != "report":
            return ""
        cfg = self.state.config
        source = option_source(self.ctx.config, "tom_items")
        if source:
            why = f"--tom-items report from {source}"
        else:
            why = ("the default: a gate is configured" if cfg.active else
                   "the default with --tom-save-baseline: a run that completes saves it and "
                   "exits 0")
        return (f"tom: items report ({why}): a wrong answer is an xfail with its reason; "
                f"only the gates set the exit status")

    def save_refused(self, results: Results) -> str:
        """Why this run must not become a baseline ('' when it may): a suite that failed to
        load, items that errored (no answer to compare with: a server down, a wrong key, a
        timeout) or a gate usage error (an interrupted run never gets here)."""
        broken = self.selection.broken_suites
        if broken:
            return (f"{len(broken)} suite file(s) failed to load "
                    f"({', '.join(broken[:3])}): a baseline must hold every suite")
        errors = int(results.totals.errors or 0)
        if errors:
            return (f"{errors} of {results.totals.items} item(s) errored (no answer was "
                    f"scored): a baseline must hold the model's answers; run again (the "
                    f"answers in the cache are not asked again) once the errors are gone")
        if self.state.report is not None and self.state.report.error:
            return "the gates' options are wrong (above)"
        return ""

    def finish(self, session: pytest.Session, results: Results, records: Sequence[Record],
               settings: SettingsJSON, run_report: Callable[[], RunReport],
               write_errors: list[str], stopped: str | None = None, *,
               endpoints: Mapping[str, EndpointUsage] | None = None) -> pytest.ExitCode | int:
        """Evaluate the gates after aggregation, write baseline and Markdown (a file that
        could not be written: a line in `write_errors`), and return the exit status they
        ask for (the session's as it stands, raised by a failed gate or a refused baseline).
        The caller sets it (`outputs.RunOutputs`, the one writer of the exit status);
        `settings` and `run_report` are the run's, described and built once there.
        `stopped`: why the run stopped early (no gate, no baseline: the run judged too
        little); `endpoints`: the run's counts per endpoint for the Markdown summary."""
        state = self.state
        status = session.exitstatus
        if session.config.getoption("--collect-only"):
            return status
        cfg = state.config
        if stopped or status in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR):
            if cfg.active or cfg.save_baseline:
                # a suite that stopped early (asking/early_stop.py) names itself
                what = (stopped if stopped and stopped.startswith("suite ")
                        else "the run stopped early" if stopped else "the run was interrupted")
                state.not_evaluated = (what + ": gates not evaluated"
                                       + (", baseline not saved" if cfg.save_baseline else ""))
            if stopped and status in (pytest.ExitCode.OK, pytest.ExitCode.INTERRUPTED):
                # a failure of the run, not a user's Ctrl-C (xdist ends it as interrupted)
                return pytest.ExitCode.TESTS_FAILED
            return status
        records = list(records)
        if cfg.active:
            report = evaluate(cfg, results, records)
            if cfg.baseline is not None:
                report.notes[:0] = settings_notes(cfg.baseline, settings)
            subset = self.subset_note(session, len(records))
            if subset:
                report.notes.insert(0, subset)
            state.report = report

            add_gate_cases(session.config, report)  # each gate a test case of --junitxml
            if report.error:
                status = pytest.ExitCode.USAGE_ERROR
            elif report.failed and status == pytest.ExitCode.OK:
                status = pytest.ExitCode.TESTS_FAILED
        saved = not cfg.save_baseline or self._save_baseline(cfg.save_baseline, results,
                                                             records, run_report, write_errors)
        if not saved and status == pytest.ExitCode.OK:  # refused: the run judged too little
            status = pytest.ExitCode.TESTS_FAILED
        if cfg.markdown and try_write(
                write_errors, "Markdown summary", cfg.markdown,
                lambda: write_markdown(cfg.markdown, results, state.report, settings,
                                       exitstatus=int(status), records=records,
                                       baseline_items=(cfg.baseline.records
                                                       if cfg.baseline else None),
                                       endpoints=endpoints)):
            state.written.append(f"tom markdown summary: {cfg.markdown}")
        return status

    def _save_baseline(self, path: str, results: Results, records: list[Record],
                       run_report: Callable[[], RunReport], write_errors: list[str]) -> bool:
        """Save the run's report as the baseline; False when saving it was refused (a
        failed file write is a line in `write_errors`, which fails the run anyway)."""
        state = self.state
        refused = self.save_refused(results)
        if refused:
            state.written.append(f"tom baseline not saved: {refused}")
            return False
        if records:
            if try_write(write_errors, "baseline", path,
                         lambda: write_report(path, run_report())):
                state.written.append(f"tom baseline saved: {path}")
        else:
            state.written.append("tom baseline not saved: no tom items ran")
        return True

    def write(self, terminalreporter: Any) -> None:
        """The gates' section of the terminal summary."""
        write_gates(terminalreporter, self.state)
