"""pytest's failure summary without its quadratic teardown-report lookup.

For each failed test, pytest 9's failure summary (`--tb` other than `line` or
`no`) looks up that test's teardown report to print its captured teardown
output, by scanning every passed report of the run
(`TerminalReporter._get_teardown_reports`). With thousands of wrong answers
in a run of thousands of items that is millions of comparisons: 1,000 failures
among 2,000 items cost 1-2 s, 5,000 among 10,000 half a minute. While
pytest-tom is active the lookup goes through an index of teardown reports by
node id, kept up to date as reports arrive: the same reports in the same order,
so the summary prints exactly what it printed before. If the reporter has no
such method (another pytest), nothing is changed.
"""

from __future__ import annotations

from typing import Any


class TeardownIndex:
    """Teardown reports of `reporter.stats[""]` by node id, read incrementally."""

    def __init__(self, reporter: Any):
        self.reporter = reporter
        self._index: dict[str, list[Any]] = {}
        self._read = 0

    def __call__(self, nodeid: Any) -> list[Any]:
        nodeid = str(nodeid)  # pytest 9.2 passes `report.id`, a NodeId whose str is the nodeid
        reports = self.reporter.stats.get("", [])
        if len(reports) < self._read:  # the list was replaced: index it again
            self._index.clear()
            self._read = 0
        for report in reports[self._read:]:
            if getattr(report, "when", None) == "teardown":
                self._index.setdefault(report.nodeid, []).append(report)
        self._read = len(reports)
        # as pytest's getreports(""): reports shown in a --pdb session are left out
        return [r for r in self._index.get(nodeid, ()) if not hasattr(r, "_pdbshown")]


def install(config: Any) -> bool:
    """Give the terminal reporter the indexed lookup; False when there is nothing to replace."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or not callable(getattr(reporter, "_get_teardown_reports", None)):
        return False
    reporter._get_teardown_reports = TeardownIndex(reporter)
    return True
