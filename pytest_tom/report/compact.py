"""Big runs read well: wrong answers in one line each, or as a count, instead of a story each.

A run of all bundled items with a weak model has a thousand wrong answers; pytest
would print a story per failure and a line per failure in its short summary,
and the scores would scroll away. When the plugin is active and the user gave
neither `--tb` nor `-r`, pytest-tom takes its items out of pytest's failure
sections while they are written and lists them itself: up to `STORIES` failing
items keep pytest's own sections (each story in full), up to `LINES` wrong
items get one line each, and past that only their count is printed. Items that
are not pytest-tom's are left to pytest. The counts of pytest's last line are
untouched: the reports are put back before it is written.
"""

from __future__ import annotations

from typing import Any

from pytest_tom.core.outcome import CUT_OFF, ERROR, UNPARSEABLE, status
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView
from pytest_tom.pytest_compat import reports_of, set_reports
from pytest_tom.report.item_outcome import short
from pytest_tom.report.story import gold_text

STORIES = 10  # up to this many failing items: pytest shows each story
LINES = 50  # up to this many wrong items: one line each; beyond, a count
KEYS = ("failed", "error", "xfailed")


def user_chose_output(config: Any) -> bool:
    """Did the user ask for pytest's own failure output (--tb, -r, on the command line or in
    addopts)?"""
    args = [*config.invocation_params.args, *config.getini("addopts")]
    for arg in map(str, args):
        if arg.startswith("--tb") or (arg.startswith("-r") and not arg.startswith("--")):
            return True
    return config.getoption("--tb") != "auto" or config.getoption("-r") not in ("fE", "")


def _is_tom(report: Any) -> bool:
    return bool(getattr(report, "tom", None))


class CompactFailures:
    """Holds pytest-tom's failed, errored and xfailed reports out of pytest's summary."""

    def __init__(self, tr: Any):
        self.tr = tr
        self.held: dict[str, list[Any]] = {}
        self.items: list[Any] = []

    @classmethod
    def install(cls, tr: Any, config: Any) -> CompactFailures | None:
        """Take the items out of the stats if the run is big enough; None otherwise."""
        if tr is None or user_chose_output(config):
            return None
        ours = {k: [r for r in reports_of(tr, k) if _is_tom(r)] for k in KEYS}
        failing = len(ours["failed"]) + len(ours["error"])
        if not ours["xfailed"] and failing <= STORIES:
            return None
        self = cls(tr)
        for key in ("failed", "error"):
            if ours[key]:
                self.held[key] = reports_of(tr, key)
                set_reports(tr, key, [r for r in self.held[key] if not _is_tom(r)])
        self.items = [r for k in KEYS for r in ours[k]]
        return self

    def restore(self) -> None:
        for key, reports in self.held.items():
            set_reports(self.tr, key, reports)

    def write(self) -> None:
        """The `tom wrong answers` section: a line per item, or the count past LINES."""
        tr = self.tr
        n = len(self.items)
        if not n:
            return
        tr.write_sep("-", "tom wrong answers")
        if n <= LINES:  # whole lines (a node id to copy, the answer): wrapped, not cut
            for rep in sorted(self.items, key=lambda r: r.nodeid):
                tr.write_line(one_line(rep), red=_errored(rep))
        counts = count_line(self.items)
        if n > LINES:
            tr.write_line(f"{counts}: not listed one by one (more than {LINES})")
        else:
            tr.write_line(counts)
        tr.write_line("each story: --tb=short · pytest's own list: -rfE · every item with the "
                      "messages it was asked: --tom-report=PATH")


def count_line(reports: list[Any]) -> str:
    """`12 wrong (8 unparseable, 1 error) · 5 cut off by the budget`: "wrong" as the scores
    table and the JSON report count it (errors and unparseable answers are wrong: they stay
    in the denominators), so the two sections agree (issue 33: "0 wrong answers, 174
    errors" stood beside a table of 174 wrong)."""
    errors = sum(1 for r in reports if _errored(r))
    cut = sum(1 for r in reports if _cut_off(r))
    unparseable = sum(1 for r in reports if _status(r.tom) == UNPARSEABLE)
    wrong = len(reports) - cut
    of = [f"{unparseable} unparseable"] if unparseable else []
    if errors:
        of.append(f"{errors} error{'s' if errors != 1 else ''}: no answer")
    text = f"{wrong} wrong" + (f" ({', '.join(of)})" if of else "")
    if cut:
        text += f" · {cut} cut off by the budget (neither right nor wrong)"
    return text


def _status(rec: Record) -> str:
    """The record's status (one without an outcome: measured, not an error)."""
    return status(RecordView(rec).outcome_or_none or {})


def _errored(rep: Any) -> bool:
    return _status(rep.tom) == ERROR


def _cut_off(rep: Any) -> bool:
    return _status(rep.tom) == CUT_OFF


def one_line(rep: Any) -> str:
    """`WRONG file::scenario::question - answer 'b)', expected 'a) the box'`"""
    rec = RecordView(rep.tom)
    expected = gold_text(str(rec.kind_or_none), rec.gold, dict(rec.meta))
    if _errored(rep):
        return f"ERROR {rep.nodeid} - {short(rec.detail or rec.error, 160)}"
    if _cut_off(rep):
        return f"CUT OFF {rep.nodeid} - {short(rec.detail, 160)}"
    head = "UNPARSEABLE" if _status(rep.tom) == UNPARSEABLE else "WRONG"
    samples = rec.samples
    if len(samples) > 1:  # --tom-samples: the item fails when any sample is wrong
        right = sum(1 for s in samples if RecordView(s).correct)
        return (f"{head} {rep.nodeid} - {right}/{len(samples)} samples right, expected "
                f"{short(expected, 60)!r}")
    responses = rec.responses or [""]
    said = short(responses[-1], 60)
    return f"{head} {rep.nodeid} - answered {said!r}, expected {short(expected, 60)!r}"
