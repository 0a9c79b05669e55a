"""The item sections of the Markdown summary: what changed since the baseline, told with
the question and both answers, and without a baseline the weakest tags and kinds.

A CI reviewer reads the summary, not the JSON report: an item id alone says
little, so each flipped item shows its question, the baseline's answer and the
new one (trimmed).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from pytest_tom.core.outcome import CUT_OFF
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView, key_of

Key = tuple[str, str]

FLIPPED_ROWS = 50  # rows per kind of change; the rest are counted
WEAKEST = 10  # rows of the weakest tags and kinds
MIN_ITEMS = 3  # a tag or kind with fewer judged items is not ranked


def trim(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reading(parsed: Any) -> str:
    """How the scorer read an answer, in words: `a, b` for a list, not `['a', 'b']`."""
    if isinstance(parsed, (list, tuple, set)):
        return ", ".join(reading(p) for p in parsed)
    if isinstance(parsed, dict):
        return ", ".join(f"{k}: {reading(v)}" for k, v in parsed.items())
    return "" if parsed is None else str(parsed)


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


def answer_of(rec: Record | None) -> str:
    """What the model wrote (its last response, trimmed) with the scorer's reading beside
    it when that says something else: `The box, I think. (read: b)`."""
    if rec is None:
        return "—"
    view = RecordView(rec)
    error = view.error
    if error == CUT_OFF:
        return "cut off by the budget"
    if error and error != "unparseable":
        return f"error: {trim(view.detail or error, 50)}"
    responses = view.responses
    said = trim(responses[-1], 60) if responses else ""
    if error == "unparseable":
        return f"{said or '—'} (unparseable)"
    read = trim(reading(view.parsed), 40)
    if not said:
        return f"(read: {read})" if read else "—"
    if not read or _words(read) == _words(said):
        return said
    return f"{said} (read: {read})"


def by_key(records: list[Record]) -> dict[Key, Record]:
    return {key_of(r): r for r in records}


def flipped_lines(title: str, keys: list[Key], before: dict[Key, Record],
                  now: dict[Key, Record], cell: Any, table: Any) -> list[str]:
    """A table of changed items: item, question, baseline answer, new answer."""
    if not keys:
        return []
    rows = []
    for suite, item in keys[:FLIPPED_ROWS]:
        cur = now.get((suite, item))
        shown = cur or before.get((suite, item))
        question = trim(RecordView(shown).question if shown is not None else None)
        rows.append([f"`{suite}::{item}`", question, answer_of(before.get((suite, item))),
                     answer_of(cur)])
    lines = [f"<details><summary>{title} ({len(keys)})</summary>", ""]
    lines += table(["item", "question", "baseline answer", "new answer"], rows)
    if len(keys) > FLIPPED_ROWS:
        lines.append(f"\n... and {len(keys) - FLIPPED_ROWS} more (see the JSON report)")
    return [*lines, "", "</details>", ""]


def weakest_lines(records: list[Record], table: Any) -> list[str]:
    """The tags and kinds with the lowest turn accuracy (judged items only)."""
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in records:
        view = RecordView(r)
        correct = view.correct
        if correct is None:
            continue
        groups = [("kind", view.kind_or_none or "")] + [("tag", t) for t in view.tags]
        for what, name in groups:
            c = counts[(view.suite, what, name)]
            c[0] += bool(correct)
            c[1] += 1
    ranked = sorted(((right / n, -n, key) for key, (right, n) in counts.items() if n >= MIN_ITEMS))
    if not ranked:
        return []
    rows = [[f"`{suite}`", what, f"`{name}`", f"{100 * acc:.1f}%", f"{counts[(suite, what, name)][0]}"
             f"/{-neg}"] for acc, neg, (suite, what, name) in ranked[:WEAKEST]]
    return ["### Weakest tags and kinds", "",
            *table(["suite", "by", "name", "turn acc", "right"], rows), "",
            f"Lowest turn accuracy first; groups of at least {MIN_ITEMS} judged items.", ""]
