"""`pytest-tom gate REPORT.json [--tom-baseline B] [--tom-fail-under ...] [--tom-max-drop ...]`:
the gates of a live run applied to a saved or merged report.

The report's figures are those its run (or `pytest-tom merge`) computed with
`results/aggregate.py`; the gates are evaluated by `gates/evaluate.py` and written by the
report writers of a live run (the `tom gates` terminal section, JUnit cases
`tom-gates::<suite or totals>:<metric>`, the Markdown summary), so the exit status,
the JUnit cases and the Markdown are those of a live run with the same options:

- 0: every gate passed (or none is configured);
- 1: a gate failed, or an item of the run errored (a request that failed, or a test
  pytest-timeout stopped, errors its test in a live run, which exits 1 for it);
- 2: the report is of an interrupted run: gates not evaluated;
- 4: a usage error (an unknown metric, a bad option, an unreadable report or baseline).

A shard's own report (not merged) or a merge with `--partial` is judged with a note
that the gates judged a subset.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pytest_tom.core.option_table import core_table
from pytest_tom.gates.evaluate import GateConfig, GateReport, GateState, evaluate, settings_notes
from pytest_tom.gates.spec import GateOptions, GateSpecError
from pytest_tom.gates.subset import subset_note
from pytest_tom.report.gate_junit import write_gate_junit
from pytest_tom.report.gate_summary import write_gates
from pytest_tom.report.markdown import write_markdown
from pytest_tom.results.run_report import RunReport
from pytest_tom.results.saved_report import SavedReportError, read_saved_report

NAME = "gate"
HELP = "apply the gates of a run (thresholds, baseline) to a saved or merged JSON report"
OK, FAILED, INTERRUPTED, USAGE_ERROR = 0, 1, 2, 4  # pytest's exit codes
GATE_OPTIONS = ("fail_under", "baseline", "max_drop", "alpha")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("report", metavar="REPORT.json",
                        help="a JSON report (--tom-report, or pytest-tom merge -o)")
    helps = {o.name: o for o in core_table()}
    for name in GATE_OPTIONS:  # the run's own options, with their help
        o = helps[name]
        parser.add_argument(o.flag_name, dest=name, metavar=o.metavar, help=o.help,
                            default=o.default, action="append" if o.repeat else "store")
    parser.add_argument("--junitxml", metavar="PATH",
                        help="write the gates as JUnit test cases (tom-gates::...) to PATH")
    parser.add_argument("--markdown", "--tom-markdown", dest="markdown", metavar="PATH",
                        help=helps["markdown"].help)


class _Lines:
    """What `report/gate_summary.write_gates` writes to, printed plainly."""

    def __init__(self) -> None:
        self.stats: dict[str, list[Any]] = {}

    def write_sep(self, sep: str, title: str) -> None:
        print(f" {title} ".center(80, sep))

    def write_line(self, line: str, **_markup: bool) -> None:
        print(line)


def subset_notes(data: RunReport) -> list[str]:
    """The gates judge part of the suites: the live run's line, from the report's record of
    its selection (`-k`, `-m`, `--lf`, `--tom-limit`, node ids; a shard's cut in a shard's
    own report, none in a merged one), then for a shard's own report or a partial merge
    what it is part of."""
    shard = data.settings.shard
    items = len(data.records)
    one_shard = shard is not None and shard.index is not None and shard.total > 1
    notes = []
    selection = data.settings.selection
    if selection is not None:
        by, deselected = selection.by, selection.deselected
        if one_shard:
            by, deselected = [*by, "--tom-shard"], deselected + selection.shard_cut
        note = subset_note(items, deselected, by, selection.named)
        if note:
            notes.append(note)
    if one_shard:
        notes.append(f"the gates judged a subset: {items} item(s) of shard {shard.index}/"
                     f"{shard.total} (--tom-shard); merge the shards with pytest-tom merge to "
                     f"judge the whole run")
    elif data.status == "incomplete":
        notes.append(f"the gates judged a subset: the report is incomplete ({items} item(s) "
                     f"merged with --partial); the numbers are those of the parts merged")
    return notes


def run(args: argparse.Namespace) -> int:
    try:
        data = read_saved_report(args.report, label=args.report,
                                 how_to_write=f"--tom-report={args.report}")
        table = {o.name: o for o in core_table()}
        given = {name: getattr(args, name) for name in GATE_OPTIONS}
        for name, value in given.items():  # given several times: every value, as in a run
            if table[name].repeat and value is not None:
                given[name] = table[name].parse(value)
        given["alpha"] = float(given["alpha"])  # argparse's text, as the option table's
        cfg = GateConfig.from_options(GateOptions(**given, markdown=args.markdown))
    except (SavedReportError, GateSpecError, ValueError) as exc:
        print(f"pytest-tom gate: {exc}", file=sys.stderr)
        return USAGE_ERROR
    state = GateState(cfg)
    settings = data.settings
    records = data.records
    results = data.results
    status = OK
    if data.status == "interrupted":
        state.not_evaluated = "the run was interrupted: gates not evaluated"
        status = INTERRUPTED
    elif cfg.active:
        report: GateReport = evaluate(cfg, results, records)
        if cfg.baseline is not None:
            report.notes[:0] = settings_notes(cfg.baseline, settings)
        report.notes[:0] = subset_notes(data)
        state.report = report
        if report.error:
            status = USAGE_ERROR
        elif report.failed:
            status = FAILED
    errors = int(results.totals.errors or 0)
    if errors and status == OK:  # a live run exits 1 for the items whose request failed
        status = FAILED
    if args.junitxml and state.report is not None:
        write_gate_junit(args.junitxml, state.report)
        state.written.append(f"tom junit xml: {args.junitxml}")
    if cfg.markdown:
        write_markdown(cfg.markdown, results, state.report, settings, exitstatus=status,
                       records=records,
                       baseline_items=cfg.baseline.records if cfg.baseline else None)
        state.written.append(f"tom markdown summary: {cfg.markdown}")
    out = _Lines()
    write_gates(out, state)
    if not cfg.active:
        print("tom gates: none configured (--tom-fail-under, --tom-baseline)")
    if errors:
        print(f"tom: {errors} item(s) of the run errored (no answer was scored: a request "
              f"failed, or pytest stopped the test): exit status 1, as in the live run")
    return status
