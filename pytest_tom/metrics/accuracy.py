"""Turn accuracy (items right / items) and goal accuracy (groups all right / groups).

Items whose outcome is `correct: None` (measured, not judged) and skipped items
are left out of both; error outcomes (failed requests, unparseable answers)
count as wrong and stay in the denominators. A cut-off answer (the budget ran out
before it ended, `core.outcome.CUT_OFF`) stays in the denominators as not right and
is counted apart, never as wrong: right + wrong + cut_off = judged. So an accuracy is
the model's at the budget it was given, and the cut-off count beside it says how much
of it the budget decided.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypedDict, cast

from pytest_tom.core.outcome import CUT_OFF, ERROR, SKIPPED, UNAVAILABLE, UNPARSEABLE
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import (
    RecordView,
    by_tags,
    status_of,
    unit_of,
    verdict_of,
    verdicts,
)

# a figure of the results: a count (a float when it is a mean over --tom-samples), a share,
# a score, a mean; None where it is unavailable in the run
Figure = int | float | None


class CountsJSON(TypedDict, total=False):
    """The core block of a suite (the first figures of its metrics) or of the run (the
    report's `totals`; read through `results.results.Counts`), as `_block` writes it."""

    items: float
    judged: float
    correct: float
    wrong: float
    errors: float
    unparseable: float
    cut_off: float
    skipped: float
    turn: float | None
    goal: float | None
    groups: float
    groups_correct: float
    parse_failure_rate: float | None  # a suite's metrics (`core_metrics`) only


def is_skipped(rec: Record) -> bool:
    return status_of(rec) == SKIPPED


def is_request_error(rec: Record) -> bool:
    return status_of(rec) == ERROR


def is_judged(rec: Record) -> bool:
    """Whether a record counts in accuracies: not skipped, and right/wrong (not merely
    measured; an unparseable or errored answer with `correct` False is judged wrong)."""
    return judged_verdict(*verdict_of(rec))


def judged_verdict(error: str | None, correct: bool | None) -> bool:
    """`is_judged` of a record with this error and correct (a loop that has read them)."""
    return correct is not None and error != UNAVAILABLE


def judged(records: Iterable[Record]) -> list[Record]:
    """Records that count in accuracies: not skipped, and right/wrong (not merely measured)."""
    return [r for r in records if is_judged(r)]


def ratio(num: int, den: int) -> float | None:
    return num / den if den else None


# goal accuracy's unit of a record: its group, else its scenario
group_key = unit_of


class AllRightGroups:
    """The one all-right-in-a-group summary of the one-pass counts (goal accuracy, and
    FANToM's control-task set-level figures, which no per-record selection can declare):
    the groups with a counted record and
    those with a counted record wrong, kept as two sets so that the counts of disjoint
    record sets merge by union (a group's records may lie in several of them). Its array
    form for intervals is `metrics.declare.AllRight`."""

    __slots__ = ("seen", "failed")

    def __init__(self) -> None:
        self.seen: set[Any] = set()
        self.failed: set[Any] = set()

    def add(self, group: Any, right: bool) -> None:
        self.seen.add(group)
        if not right:
            self.failed.add(group)

    def merge(self, other: AllRightGroups) -> None:
        self.seen |= other.seen
        self.failed |= other.failed

    def counts(self, keep: Callable[[Any], bool] | None = None,
               project: Callable[[Any], Any] | None = None) -> tuple[int, int]:
        """(groups whose every counted record is right, groups), over the groups `keep`
        accepts, each counted as its `project` (groups projecting alike count once)."""
        seen, failed = self.seen, self.failed
        if keep is not None or project is not None:
            keep = keep or (lambda g: True)
            project = project or (lambda g: g)
            seen = {project(g) for g in seen if keep(g)}
            failed = {project(g) for g in failed if keep(g)}
        return len(seen) - len(failed), len(seen)


def goal_counts(records: Iterable[Record], key: Callable[[Record], Any] = group_key) -> tuple[int, int]:
    """(groups with every judged item right, groups with at least one judged item)."""
    groups = AllRightGroups()
    for r in records:
        if is_judged(r):
            groups.add(key(r), bool(RecordView(r).correct))
    return groups.counts()


class _Tally:
    """The counts of one accuracy block.

    Groups are an `AllRightGroups`, so that blocks of disjoint record sets merge by
    adding counts and uniting groups."""

    __slots__ = ("items", "judged", "correct", "errors", "unparseable", "cut_off", "skipped",
                 "groups")

    def __init__(self) -> None:
        self.items = self.judged = self.correct = self.errors = self.unparseable = 0
        self.cut_off = self.skipped = 0
        self.groups = AllRightGroups()

    @classmethod
    def of(cls, records: Iterable[Record], key: Callable[[Record], Any]) -> _Tally:
        """The counts of `records`, in one pass with as little work per record as it
        takes (aggregating 100,000 records reads each one here)."""
        t = cls()
        items = judged = correct = errors = unparseable = cut_off = skipped = 0
        seen, failed = t.groups.seen, t.groups.failed  # `AllRightGroups.add`, inlined
        for r, error, verdict in verdicts(records):
            items += 1
            if error is not None:
                if error == UNAVAILABLE:
                    skipped += 1
                    continue
                if error == UNPARSEABLE:
                    unparseable += 1
                elif error == CUT_OFF:
                    cut_off += 1
                else:
                    errors += 1
            if verdict is None:
                continue
            judged += 1
            group = key(r)
            seen.add(group)
            if verdict:
                correct += 1
            else:
                failed.add(group)
        t.items, t.judged, t.correct = items, judged, correct
        t.errors, t.unparseable, t.cut_off, t.skipped = errors, unparseable, cut_off, skipped
        return t

    def add(self, other: _Tally) -> None:
        """Count `other`'s records (disjoint from this block's) in this block too."""
        self.items += other.items
        self.judged += other.judged
        self.correct += other.correct
        self.errors += other.errors
        self.unparseable += other.unparseable
        self.cut_off += other.cut_off
        self.skipped += other.skipped
        self.groups.merge(other.groups)

    def block(self) -> CountsJSON:
        ok, g_n = self.groups.counts()
        return _block(self.items, self.judged, self.correct, self.errors, self.unparseable,
                      self.cut_off, self.skipped, ok, g_n)


def _block(items: int, judged: int, correct: int, errors: int, unparseable: int, cut_off: int,
           skipped: int, groups_correct: int, groups: int) -> CountsJSON:
    return {
        "items": items,
        "judged": judged,
        "correct": correct,
        "wrong": judged - correct - cut_off,  # a cut-off answer is not a wrong one
        "errors": errors,
        "unparseable": unparseable,
        "cut_off": cut_off,
        "skipped": skipped,
        "turn": ratio(correct, judged),
        "goal": ratio(groups_correct, groups),
        "groups": groups,
        "groups_correct": groups_correct,
    }


def _tally(records: Iterable[Record], key: Callable[[Record], Any],
           tags: bool = False) -> tuple[_Tally, dict[str, _Tally]]:
    """The block of all the records and (with `tags`) one per tag.

    The records are split by their list of tags (a suite has few distinct ones), each
    part counted once and added to the block of every tag it lists (a tag listed twice
    counts once) and to the whole."""
    if not tags:
        return _Tally.of(records, key), {}
    parts = by_tags(records)
    total = _Tally()
    per_tag: dict[str, _Tally] = {}
    for tag_list, part in parts.items():
        counted = _Tally.of(part, key)
        total.add(counted)
        for tag in dict.fromkeys(tag_list):
            per_tag.setdefault(tag, _Tally()).add(counted)
    return total, per_tag


def accuracy_block(records: list[Record], key: Callable[[Record], Any] = group_key) -> CountsJSON:
    """Counts and both accuracies for a set of records."""
    return _tally(records, key)[0].block()


def sum_blocks(blocks: Iterable[Mapping[str, Figure]]) -> CountsJSON:
    """One block from the blocks of disjoint sets of records whose groups are disjoint too
    (a run's suites, a group being (suite, group)): the counts added up, both accuracies
    computed from the sums."""
    names = ("items", "judged", "correct", "errors", "unparseable", "cut_off", "skipped",
             "groups_correct", "groups")
    sums = dict.fromkeys(names, 0)
    for b in blocks:
        for name in names:
            sums[name] += b.get(name, 0)  # a block of a report made before cut_off lacks it
    return _block(**sums)


def core_metrics(records: list[Record], key: Callable[[Record], Any] = group_key
                 ) -> dict[str, Figure]:
    """The flat metrics every suite reports: the overall block plus `tag.<tag>.<metric>`
    (names made from the suite's tags: a figure map, not a fixed shape)."""
    total, per_tag = _tally(records, key, tags=True)
    # the core block is the first figures of the map (a TypedDict is a dict at run time)
    out = cast(dict[str, Figure], total.block())
    for tag in sorted(per_tag):
        block = per_tag[tag].block()
        for name in ("items", "turn", "goal"):
            out[f"tag.{tag}.{name}"] = block[name]
    out["parse_failure_rate"] = ratio(total.unparseable, total.items - total.skipped)
    return out
