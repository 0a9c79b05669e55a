"""The JSON report: every item with its outcome, every metric, model, settings, versions.

Written once, atomically (a temporary file renamed over the target), so a
reader never sees half a report.
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

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
                 started: float, finished: float) -> dict[str, Any]:
    return {
        "format": "pytest-tom-report/1",
        "model": settings["model"],
        "settings": settings,
        "versions": package_versions(),
        "started": iso(started),
        "finished": iso(finished),
        "duration_seconds": round(finished - started, 3),
        "suites": results["suites"],
        "totals": results["totals"],
        "items": sorted(records, key=lambda r: (r["item"]["suite"], r["item"]["id"])),
    }


def write_json_atomic(path: str | Path, data: Any) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, ensure_ascii=False, default=str)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_replay(path: str | Path, records: list[dict[str, Any]]) -> None:
    """Responses as a replay file (`--tom-model=replay:PATH` answers the same way)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        for rec in sorted(records, key=lambda r: (r["item"]["suite"], r["item"]["id"])):
            if rec["responses"]:
                fh.write(json.dumps({"suite": rec["item"]["suite"], "id": rec["item"]["id"],
                                     "responses": rec["responses"]}, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
