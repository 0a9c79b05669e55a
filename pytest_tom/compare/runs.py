"""Loading saved JSON reports for `compare` and `html`, with errors that name the file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_tom.engine.saved_report import SavedReportError, read_saved_report

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
    try:
        return read_saved_report(path, label=str(path),
                                 how_to_write=f"`pytest ... --tom-report={path}`")
    except SavedReportError as exc:
        raise ReportFileError(str(exc)) from None


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
