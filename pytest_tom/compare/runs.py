"""Loading saved JSON reports for `compare` and `html`, with errors that name the file."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Record = dict[str, Any]


class ReportFileError(ValueError):
    """A file given as a report is missing, not JSON, or not a pytest-tom report."""


@dataclass
class Run:
    path: Path
    data: dict[str, Any]
    label: str = ""
    by_suite: dict[str, list[Record]] = field(default_factory=dict)

    @property
    def model(self) -> str:
        return str(self.data.get("model") or self.data.get("settings", {}).get("model") or "?")

    @property
    def seed(self) -> int:
        try:
            return int(self.data.get("settings", {}).get("seed") or 0)
        except (TypeError, ValueError):
            return 0

    def records(self, suite: str) -> list[Record]:
        return self.by_suite.get(suite, [])


def load_report(path: str | Path) -> dict[str, Any]:
    """A JSON report written by `--tom-report`, checked enough to be read safely."""
    p = Path(path)
    if not p.is_file():
        raise ReportFileError(f"{p}: no such file; write one with "
                              f"`pytest ... --tom-report={p}`")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ReportFileError(f"{p}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg}); expected "
                              f"a pytest-tom JSON report (--tom-report)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportFileError(f"{p}: cannot be read ({exc})") from None
    if not (isinstance(data, dict) and str(data.get("format", "")).startswith("pytest-tom-report/")
            and isinstance(data.get("suites"), dict) and isinstance(data.get("totals"), dict)
            and isinstance(data.get("items"), list)):
        raise ReportFileError(f"{p}: not a pytest-tom report (expected \"format\": "
                              f"\"pytest-tom-report/1\" with suites, totals and items; "
                              f"write one with --tom-report)")
    for i, rec in enumerate(data["items"]):
        item = rec.get("item") if isinstance(rec, dict) else None
        if not (isinstance(item, dict) and isinstance(item.get("suite"), str)
                and isinstance(item.get("id"), str) and isinstance(rec.get("outcome"), dict)):
            raise ReportFileError(f"{p}: items[{i}] is not an item record (expected "
                                  f"{{\"item\": {{\"suite\", \"id\", ...}}, \"outcome\": {{...}}}})")
    return data


def load_runs(paths: list[str | Path], labels: list[str] | None = None) -> list[Run]:
    """The runs in the order given; labels are the ones given, else the model names, made
    unique with the file name when two runs name the same model."""
    if labels and len(labels) != len(paths):
        raise ReportFileError(f"{len(labels)} labels given for {len(paths)} reports")
    runs = [Run(Path(p), load_report(p)) for p in paths]
    models = [r.model for r in runs]
    for run in runs:
        run.label = run.model if models.count(run.model) == 1 else f"{run.model} ({run.path.name})"
        for rec in run.data["items"]:
            run.by_suite.setdefault(rec["item"]["suite"], []).append(rec)
    if labels:
        for run, label in zip(runs, labels, strict=True):
            run.label = label
    taken = [r.label for r in runs]
    for i, run in enumerate(runs):  # the same label twice: number them
        if taken.count(run.label) > 1:
            run.label = f"{run.label} #{i + 1}"
    return runs
