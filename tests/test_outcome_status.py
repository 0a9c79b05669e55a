"""One outcome status (`core.outcome.status`) read by every place that tells right, wrong,
unparseable, cut off, error, skipped and measured apart, and one all-right-in-a-group summary."""

from __future__ import annotations

import pytest

from pytest_tom.compare.paired import verdict as compare_verdict
from pytest_tom.core.outcome import (
    CUT_OFF,
    REQUEST_FAILED,
    UNAVAILABLE,
    UNPARSEABLE,
    Outcome,
    status,
)
from pytest_tom.metrics.accuracy import (
    AllRightGroups,
    goal_counts,
    is_judged,
    is_request_error,
    is_skipped,
)
from pytest_tom.report.html.build import verdict as html_verdict

CASES = [
    (Outcome(correct=True), "right"),
    (Outcome(correct=False), "wrong"),
    (Outcome(correct=False, error=UNPARSEABLE), "unparseable"),
    (Outcome(correct=False, error=CUT_OFF), "cut_off"),
    (Outcome(correct=False, error=REQUEST_FAILED), "error"),
    (Outcome(correct=False, error="embedder_failed"), "error"),
    (Outcome(correct=None, error=UNAVAILABLE), "skipped"),
    (Outcome(correct=None, value=0.5), "measured"),
]


@pytest.mark.parametrize(("outcome", "want"), CASES)
def test_every_place_reads_the_one_status(outcome: Outcome, want: str) -> None:
    rec = {"item": {"id": "x"}, "outcome": outcome.to_dict()}
    assert status(outcome) == status(outcome.to_dict()) == want
    assert html_verdict(rec) == compare_verdict(rec) == want
    assert is_skipped(rec) == (want == "skipped")
    assert is_request_error(rec) == (want == "error")
    assert is_judged(rec) == (want in ("right", "wrong", "unparseable", "cut_off", "error"))


def test_all_right_groups_merge_and_count() -> None:
    a, b = AllRightGroups(), AllRightGroups()
    a.add(("s1", "g1"), True)
    a.add(("s1", "g2"), False)
    b.add(("s1", "g1"), False)  # the same group, in another block: not all right after all
    b.add(("s2", "g1"), True)
    a.merge(b)
    assert a.counts() == (1, 3)
    assert a.counts(keep=lambda g: g[0] == "s1") == (0, 2)
    assert a.counts(project=lambda g: g[1]) == (0, 2)  # g1 is wrong somewhere
    recs = [{"item": {"scenario": s}, "outcome": {"correct": c}}
            for s, c in (("a", True), ("a", True), ("b", True), ("b", False))]
    assert goal_counts(recs) == (1, 2)
