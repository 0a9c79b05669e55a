"""The gates in a pytest run: options checked at configure time, evaluation after
aggregation, the exit status, the baseline and Markdown files (through `report/`).

The evaluation itself is pytest-free (`gates/`); this module only connects it to the
session and the exit status.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

import pytest

from pytest_tom.engine.run_report import RunReport
from pytest_tom.gates.evaluate import GateConfig, GateState, evaluate, settings_notes
from pytest_tom.gates.spec import GateSpecError
from pytest_tom.pytest_compat import on_xdist_controller
from pytest_tom.report.atomic import try_write
from pytest_tom.report.gate_junit import add_gate_cases
from pytest_tom.report.json_report import write_report
from pytest_tom.report.markdown import write_markdown

if TYPE_CHECKING:
    from pytest_tom.plugin.session import TomSession


def configure_gates(tom: TomSession) -> None:
    """Parse the gate options (a usage error if bad) and resolve `--tom-items`.

    Workers resolve `items` the same way (they see the same options) but do not
    read the baseline: only the controller evaluates gates.
    """
    try:
        cfg = GateConfig.from_options(tom.options, load=not tom.is_worker)
    except GateSpecError as exc:
        raise pytest.UsageError(str(exc)) from None
    tom.options = replace(tom.options, items=cfg.items)
    tom.gates = GateState(cfg)


def subset_note(session: pytest.Session, tom: TomSession) -> str:
    """A warning when the gates judged part of the suites: items deselected (-k, -m, --lf,
    --tom-limit) or named by node id."""
    deselected = tom.deselected
    config = session.config
    selecting = [name for name, on in (("-k", config.getoption("-k", "")),
                                       ("-m", config.getoption("-m", "")),
                                       ("--lf", config.getoption("--lf", False)),
                                       ("--tom-limit", tom.options.limit),
                                       ("--tom-shard", tom.shard is not None
                                        and tom.shard.total > 1)) if on]
    if not on_xdist_controller(config):
        selecting = selecting if deselected else []  # counted here; under xdist the workers
        # deselect and the controller only knows the options
    by_id = [a for a in session.config.args if "::" in str(a)]
    if not deselected and not by_id and not selecting:
        return ""
    how = []
    if deselected or selecting:
        count = f"{deselected} item(s) deselected" if deselected else "items selected"
        how.append(f"{count} by {', '.join(selecting) or '-k, -m, --lf, --tom-limit or --tom-shard'}")
    if by_id:
        how.append("items named by node id")
    return (f"the gates judged a subset: {len(tom.records)} item(s) ran ({'; '.join(how)}); "
            f"the numbers are those of the subset, not of the whole suites")


def items_note(tom: TomSession) -> str:
    """The header line of report mode: why wrong answers are xfails, what sets the status."""
    if tom.options.items != "report" or tom.gates is None:
        return ""
    cfg = tom.gates.config
    why = ("a gate is configured" if cfg.active else
           "--tom-save-baseline: a run that completes saves it and exits 0")
    if tom.config.getoption("tom_items", None) or tom.config.getini("tom_items"):
        why = "--tom-items report"
    return (f"tom: items report ({why}): a wrong answer is an xfail with its reason; "
            f"only the gates set the exit status")


def save_refused(tom: TomSession) -> str:
    """Why this run must not become a baseline ('' when it may): a suite that failed to
    load or a gate usage error (an interrupted run never gets here)."""
    state = tom.gates
    if tom.broken_suites:
        return (f"{len(tom.broken_suites)} suite file(s) failed to load "
                f"({', '.join(tom.broken_suites[:3])}): a baseline must hold every suite")
    if state is not None and state.report is not None and state.report.error:
        return "the gates' options are wrong (above)"
    return ""


def finish_gates(session: pytest.Session, tom: TomSession) -> None:
    """Evaluate the gates after aggregation, set the exit status, write baseline and Markdown."""
    state = tom.gates
    if state is None or tom.results is None or session.config.getoption("--collect-only"):
        return
    cfg = state.config
    if session.exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR):
        state.not_evaluated = ("the run was interrupted: gates not evaluated"
                               + (", baseline not saved" if cfg.save_baseline else ""))
        return
    if cfg.active:
        report = evaluate(cfg, tom.results, tom.records)
        if cfg.baseline is not None:
            report.notes[:0] = settings_notes(cfg.baseline, tom.describe_settings())
        subset = subset_note(session, tom)
        if subset:
            report.notes.insert(0, subset)
        state.report = report

        add_gate_cases(session.config, report)  # each gate a test case of --junitxml
        if report.error:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        elif report.failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if cfg.save_baseline:
        refused = save_refused(tom)
        if refused:
            state.written.append(f"tom baseline not saved: {refused}")
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        elif tom.records:
            if try_write(tom.write_errors, "baseline", cfg.save_baseline,
                         lambda: write_report(cfg.save_baseline, RunReport.build(
                             tom.results, tom.records, tom.describe_settings(), tom.started,
                             time.time()))):
                state.written.append(f"tom baseline saved: {cfg.save_baseline}")
        else:
            state.written.append("tom baseline not saved: no tom items ran")
    if cfg.markdown and try_write(
            tom.write_errors, "Markdown summary", cfg.markdown,
            lambda: write_markdown(cfg.markdown, tom.results, state.report,
                                   tom.describe_settings(), exitstatus=int(session.exitstatus),
                                   records=tom.records,
                                   baseline_items=(cfg.baseline.records
                                                   if cfg.baseline else None))):
        state.written.append(f"tom markdown summary: {cfg.markdown}")
