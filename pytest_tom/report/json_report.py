"""The JSON report: every item with its outcome, every metric, model, settings, versions.

Written once, atomically (a temporary file renamed over the target), so a
reader never sees half a report. A run stopped by Ctrl-C or a crash writes
what it scored with `"status": "interrupted"`, and nothing at all (the previous
file stays) when it scored nothing.
"""

from __future__ import annotations

import json
import platform
from collections.abc import Iterator
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from pytest_tom.engine.token_usage import usage_by_endpoint
from pytest_tom.report.atomic import write_atomic

PACKAGES = ("pytest-tom", "pytest", "pyyaml", "tabulate", "openai", "pytest-xdist",
            "sentence-transformers", "torch", "xllamacpp")


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")


def build_report(results: dict[str, Any], records: list[dict[str, Any]], settings: dict[str, Any],
                 started: float, finished: float, status: str = "complete") -> dict[str, Any]:
    """The report; `status` is "complete", or "interrupted" (Ctrl-C, a crash: only the items
    scored before it; never a baseline)."""
    extra: dict[str, Any] = {}
    if results.get("samples"):  # --tom-samples: the spread of the totals over samples
        extra = {"samples": results["samples"], "totals_spread": results.get("totals_spread", {})}
    endpoints = usage_by_endpoint(records)  # several endpoints of one model: counts of each
    if endpoints:
        extra["endpoints"] = [{"endpoint": k, **v} for k, v in endpoints.items()]
    return {
        "format": "pytest-tom-report/1",
        "status": status,
        "model": settings["model"],
        "settings": settings,
        "versions": package_versions(),
        "started": iso(started),
        "finished": iso(finished),
        "duration_seconds": round(finished - started, 3),
        "suites": results["suites"],
        "totals": results["totals"],
        "totals_intervals": results.get("totals_intervals", {}),
        **extra,
        "items": sorted(records, key=lambda r: (r["item"]["suite"], r["item"]["id"])),
    }


def write_json_atomic(path: str | Path, data: Any) -> None:
    write_atomic(path, report_chunks(data))


def report_text(data: Any) -> str:
    """The report as indented JSON, except that each item record is one line.

    Python's JSON encoder is in C only without `indent`; indenting thousands of item
    records in pure Python took longer than the rest of the end of a run. One record
    per line also reads well with grep and diff."""
    return "".join(report_chunks(data))


def report_chunks(data: Any) -> Iterator[str]:
    """`report_text` in pieces, a record at a time: a file of 100,000 records is written
    without ever holding its whole text."""
    items = data.get("items") if isinstance(data, dict) else None
    if (not isinstance(items, list) or not items or len(data) < 2
            or next(reversed(data)) != "items"):
        yield json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n"
        return
    head = json.dumps({k: v for k, v in data.items() if k != "items"}, indent=1,
                      ensure_ascii=False, default=str)
    yield f'{head[:-2]},\n "items": [\n'
    last = len(items) - 1
    for i, r in enumerate(items):
        yield "  " + json.dumps(r, ensure_ascii=False, default=str) + (",\n" if i < last else "\n")
    yield " ]\n}\n"


def write_replay(path: str | Path, records: list[dict[str, Any]]) -> None:
    """Responses as a replay file (`--tom-model=replay:PATH` answers the same way)."""
    ordered = sorted(records, key=lambda r: (r["item"]["suite"], r["item"]["id"]))
    write_atomic(path, (json.dumps({"suite": r["item"]["suite"], "id": r["item"]["id"],
                                    "responses": r["responses"]}, ensure_ascii=False) + "\n"
                        for r in ordered if r["responses"]))
