"""The JSON report written: every item with its outcome, every metric, model, settings,
versions (the model and its keys: `results/run_report.py`).

Written once, atomically (a temporary file renamed over the target), so a
reader never sees half a report. A run stopped by Ctrl-C or a crash writes
what it scored with `"status": "interrupted"`, and nothing at all (the previous
file stays) when it scored nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView, key_of
from pytest_tom.report.atomic import write_atomic
from pytest_tom.results.run_report import RunReport


def write_report(path: str | Path, report: RunReport) -> None:
    """The report (`results.run_report.RunReport`, built by the live run or a merge) as
    JSON, written atomically a record at a time."""
    write_atomic(path, report_chunks(report.data))


def report_text(data: Any) -> str:
    """The report as indented JSON, except that each item record is one line.

    Python's JSON encoder is in C only without `indent`; indenting thousands of item
    records in pure Python took longer than the rest of the end of a run. One record
    per line also reads well with grep and diff."""
    return "".join(report_chunks(data))


def report_chunks(data: Any) -> Iterator[str]:
    """`report_text` in pieces, a record at a time: a file of 100,000 records is written
    without ever holding its whole text."""
    # the records come last (`RunReport.build`): streamed one per line
    last = next(reversed(data.items()), None) if isinstance(data, dict) else None
    items = last[1] if last is not None and last[0] == "items" else None
    if not isinstance(items, list) or not items or len(data) < 2:
        yield json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n"
        return
    head = json.dumps({k: v for k, v in data.items() if k != "items"}, indent=1,
                      ensure_ascii=False, default=str)
    yield f'{head[:-2]},\n "items": [\n'
    last = len(items) - 1
    for i, r in enumerate(items):
        yield "  " + json.dumps(r, ensure_ascii=False, default=str) + (",\n" if i < last else "\n")
    yield " ]\n}\n"


def write_replay(path: str | Path, records: list[Record]) -> None:
    """Responses as a replay file (`--tom-model=replay:PATH` answers the same way)."""
    ordered = [RecordView(r) for r in sorted(records, key=key_of)]
    write_atomic(path, (json.dumps({"suite": r.suite, "id": r.id,
                                    "responses": r.responses, **reply_parts(r.record)},
                                   ensure_ascii=False) + "\n"
                        for r in ordered if r.responses))


class ReplyParts(TypedDict, total=False):
    """What a replay line holds beside `suite`, `id` and `responses`, when the record had it."""

    thoughts: list[str | None]
    finish: list[str | None]


def reply_parts(record: Record) -> ReplyParts:
    """A reasoning model's thoughts and finish reasons, when the record has them: a replay
    gives them back, so a cut-off answer stays cut off and the thought stays apart."""
    parts: ReplyParts = {}
    for key in ("thoughts", "finish"):
        if key in record:
            parts[key] = record[key]
    return parts
