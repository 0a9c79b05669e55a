"""Turn accuracy (items right / items) and goal accuracy (groups all right / groups).

Items whose outcome is `correct: None` (measured, not judged) and skipped items
are left out of both; error outcomes (failed requests, unparseable answers)
count as wrong and stay in the denominators.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from pytest_tom.core.outcome import UNAVAILABLE, UNPARSEABLE

Record = dict[str, Any]


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
    groups: dict[Any, bool] = defaultdict(lambda: True)
    for r in judged(records):
        k = key(r)
        groups[k] = groups[k] and bool(r["outcome"]["correct"])
    return sum(groups.values()), len(groups)


def accuracy_block(records: list[Record], key: Callable[[Record], Any] = group_key) -> dict[str, Any]:
    """Counts and both accuracies for a set of records."""
    j = judged(records)
    right = sum(1 for r in j if r["outcome"]["correct"])
    g_ok, g_n = goal_counts(records, key)
    return {
        "items": len(records),
        "judged": len(j),
        "correct": right,
        "wrong": len(j) - right,
        "errors": sum(1 for r in records if is_request_error(r)),
        "unparseable": sum(1 for r in records if r["outcome"].get("error") == UNPARSEABLE),
        "skipped": sum(1 for r in records if is_skipped(r)),
        "turn": ratio(right, len(j)),
        "goal": ratio(g_ok, g_n),
        "groups": g_n,
        "groups_correct": g_ok,
    }


def core_metrics(records: list[Record], key: Callable[[Record], Any] = group_key) -> dict[str, Any]:
    """The flat metrics every suite reports: the overall block plus `tag.<tag>.<metric>`."""
    out = accuracy_block(records, key)
    tags = sorted({t for r in records for t in r["item"].get("tags", [])})
    for tag in tags:
        block = accuracy_block([r for r in records if tag in r["item"].get("tags", [])], key)
        for name in ("items", "turn", "goal"):
            out[f"tag.{tag}.{name}"] = block[name]
    out["parse_failure_rate"] = ratio(out["unparseable"], out["items"] - out["skipped"])
    return out
