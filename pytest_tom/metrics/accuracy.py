"""Turn accuracy (items right / items) and goal accuracy (groups all right / groups).

Items whose outcome is `correct: None` (measured, not judged) and skipped items
are left out of both; error outcomes (failed requests, unparseable answers)
count as wrong and stay in the denominators.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pytest_tom.core.outcome import UNAVAILABLE, UNPARSEABLE
from pytest_tom.core.record import Record


def is_skipped(rec: Record) -> bool:
    return rec["outcome"].get("error") == UNAVAILABLE


def is_request_error(rec: Record) -> bool:
    err = rec["outcome"].get("error")
    return err not in (None, UNPARSEABLE, UNAVAILABLE)


def judged(records: Iterable[Record]) -> list[Record]:
    """Records that count in accuracies: not skipped, and right/wrong (not merely measured)."""
    return [r for r in records if not is_skipped(r) and r["outcome"].get("correct") is not None]


def ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def group_key(rec: Record) -> str:
    return rec["item"].get("group") or rec["item"]["scenario"]


def goal_counts(records: Iterable[Record], key: Callable[[Record], Any] = group_key) -> tuple[int, int]:
    """(groups with every judged item right, groups with at least one judged item)."""
    groups: dict[Any, bool] = {}
    for r in records:
        outcome = r["outcome"]
        correct = outcome.get("correct")
        if correct is None or outcome.get("error") == UNAVAILABLE:
            continue
        k = key(r)
        groups[k] = groups.get(k, True) and bool(correct)
    return sum(groups.values()), len(groups)


class _Tally:
    """The counts of one accuracy block, filled one record at a time."""

    __slots__ = ("items", "judged", "correct", "errors", "unparseable", "skipped", "groups")

    def __init__(self) -> None:
        self.items = self.judged = self.correct = self.errors = self.unparseable = self.skipped = 0
        self.groups: dict[Any, bool] = {}

    def block(self) -> dict[str, Any]:
        g_ok, g_n = sum(self.groups.values()), len(self.groups)
        return {
            "items": self.items,
            "judged": self.judged,
            "correct": self.correct,
            "wrong": self.judged - self.correct,
            "errors": self.errors,
            "unparseable": self.unparseable,
            "skipped": self.skipped,
            "turn": ratio(self.correct, self.judged),
            "goal": ratio(g_ok, g_n),
            "groups": g_n,
            "groups_correct": g_ok,
        }


def _tally(records: Iterable[Record], key: Callable[[Record], Any],
           tags: bool = False) -> tuple[_Tally, dict[str, _Tally]]:
    """One pass over the records: the block of all of them and (with `tags`) one per tag.

    Aggregating 100,000 records used to take a pass per tag and per count; a run's
    records are read once here."""
    total = _Tally()
    per_tag: dict[str, _Tally] = {}
    for r in records:
        outcome = r["outcome"]
        error = outcome.get("error")
        skipped = error == UNAVAILABLE
        correct = None if skipped else outcome.get("correct")
        group = key(r) if correct is not None else None
        tallies = [total]
        if tags:
            for tag in r["item"].get("tags", ()):
                t = per_tag.get(tag)
                if t is None:
                    t = per_tag[tag] = _Tally()
                if t not in tallies:  # a tag listed twice counts once
                    tallies.append(t)
        for t in tallies:
            t.items += 1
            if skipped:
                t.skipped += 1
            elif error == UNPARSEABLE:
                t.unparseable += 1
            elif error is not None:
                t.errors += 1
            if correct is not None:
                t.judged += 1
                if correct:
                    t.correct += 1
                t.groups[group] = t.groups.get(group, True) and bool(correct)
    return total, per_tag


def accuracy_block(records: list[Record], key: Callable[[Record], Any] = group_key) -> dict[str, Any]:
    """Counts and both accuracies for a set of records."""
    return _tally(records, key)[0].block()


def core_metrics(records: list[Record], key: Callable[[Record], Any] = group_key) -> dict[str, Any]:
    """The flat metrics every suite reports: the overall block plus `tag.<tag>.<metric>`."""
    total, per_tag = _tally(records, key, tags=True)
    out = total.block()
    for tag in sorted(per_tag):
        block = per_tag[tag].block()
        for name in ("items", "turn", "goal"):
            out[f"tag.{tag}.{name}"] = block[name]
    out["parse_failure_rate"] = ratio(out["unparseable"], out["items"] - out["skipped"])
    return out
