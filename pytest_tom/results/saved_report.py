"""Reading a saved JSON report (`--tom-report`, `--tom-save-baseline`, `pytest-tom merge`):
the one reader, for the baseline gate, `merge`, `gate`, `compare` and `html`.

It checks what every reader needs before it reads the data (the file exists, is JSON,
is a pytest-tom report of a version this package reads, has suites, totals and items,
every suite a family and metrics, every item an item record), brings an older version
to the current shape (`results.run_report.upgrade`) and gives a `RunReport`. Callers add
their own label (`--tom-baseline PATH` or the path) and the way to write one.
"""

from __future__ import annotations

import json
from pathlib import Path

from pytest_tom.results.run_report import FORMAT, READS, RunReport, format_version, upgrade


class SavedReportError(ValueError):
    """A file given as a report is missing, not JSON, or not a pytest-tom report."""


def read_saved_report(path: str | Path, *, label: str, how_to_write: str) -> RunReport:
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
    version = format_version(data) if isinstance(data, dict) else None
    if version is not None and version > max(READS):
        raise SavedReportError(f"{label}: written by a newer pytest-tom (\"format\": "
                               f"\"{data['format']}\"; this one reads {FORMAT} and older): "
                               f"pip install -U pytest-tom")
    if not (isinstance(data, dict) and version in READS
            and isinstance(data.get("suites"), dict) and isinstance(data.get("totals"), dict)
            and isinstance(data.get("items"), list)):
        raise SavedReportError(f"{label}: not a pytest-tom report (expected \"format\": "
                               f"\"{FORMAT}\" with suites, totals and items; "
                               f"write one with {how_to_write})")
    for name, suite in data["suites"].items():
        if not (isinstance(suite, dict) and isinstance(suite.get("family"), str)
                and isinstance(suite.get("metrics"), dict)):
            raise SavedReportError(f"{label}: suites.{name} is not a suite's figures "
                                   f"(expected {{\"family\": ..., \"metrics\": {{...}}, ...}})")
    for i, rec in enumerate(data["items"]):
        item = rec.get("item") if isinstance(rec, dict) else None
        if not (isinstance(item, dict) and isinstance(item.get("suite"), str)
                and isinstance(item.get("id"), str) and isinstance(rec.get("outcome"), dict)):
            raise SavedReportError(f"{label}: items[{i}] is not an item record (expected "
                                   f"{{\"item\": {{\"suite\", \"id\", ...}}, "
                                   f"\"outcome\": {{...}}}})")
    return RunReport(upgrade(data))
