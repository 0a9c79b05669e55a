"""Reading a saved JSON report (`--tom-report`), for the baseline gate and for `compare`/`html`.

One reader checks what both need before they index into the data: the file exists, is JSON,
has the report's format tag with suites, totals and items, and every item is an item record.
Callers add their own label (`--tom-baseline PATH` or the path) and the way to write one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class SavedReportError(ValueError):
    """A file given as a report is missing, not JSON, or not a pytest-tom report."""


def read_saved_report(path: str | Path, *, label: str, how_to_write: str) -> dict[str, Any]:
    """The report at `path`; errors start with `label` and end with `how_to_write`."""
    p = Path(path)
    if not p.is_file():
        raise SavedReportError(f"{label}: no such file; write one with {how_to_write}")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SavedReportError(
            f"{label}:{exc.lineno}:{exc.colno}: not JSON (line {exc.lineno}, column "
            f"{exc.colno}: {exc.msg}); expected a pytest-tom JSON report ({how_to_write})"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SavedReportError(f"{label}: cannot be read ({exc})") from None
    if not (isinstance(data, dict) and str(data.get("format", "")).startswith("pytest-tom-report/")
            and isinstance(data.get("suites"), dict) and isinstance(data.get("totals"), dict)
            and isinstance(data.get("items"), list)):
        raise SavedReportError(f"{label}: not a pytest-tom report (expected \"format\": "
                               f"\"pytest-tom-report/1\" with suites, totals and items; "
                               f"write one with {how_to_write})")
    for i, rec in enumerate(data["items"]):
        item = rec.get("item") if isinstance(rec, dict) else None
        if not (isinstance(item, dict) and isinstance(item.get("suite"), str)
                and isinstance(item.get("id"), str) and isinstance(rec.get("outcome"), dict)):
            raise SavedReportError(f"{label}: items[{i}] is not an item record (expected "
                                   f"{{\"item\": {{\"suite\", \"id\", ...}}, "
                                   f"\"outcome\": {{...}}}})")
    return data
