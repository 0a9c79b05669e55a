"""The saved runs a comparison (or an HTML page) is made of: each report read by the one
reader (`results.saved_report`), with a label and its records by suite."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView
from pytest_tom.core.settings import Settings
from pytest_tom.results.results import Results
from pytest_tom.results.run_report import RunReport
from pytest_tom.results.saved_report import read_saved_report


@dataclass
class Run:
    """One run of a comparison: its report, where it came from, and its label."""

    path: Path
    report: RunReport
    label: str = ""
    by_suite: dict[str, list[Record]] = field(default_factory=dict)

    @classmethod
    def of(cls, path: str | Path, report: RunReport, label: str = "") -> Run:
        run = cls(Path(path), report, label)
        for rec in report.records:
            run.by_suite.setdefault(RecordView(rec).suite, []).append(rec)
        return run

    @property
    def model(self) -> str:
        return self.report.model or "?"

    @property
    def seed(self) -> int:
        return self.report.settings.seed

    @property
    def settings(self) -> Settings:
        """The settings its metrics were defined with (`ReportSettings.to_settings`)."""
        return self.report.settings.to_settings()

    @property
    def results(self) -> Results:
        return self.report.results

    def records(self, suite: str) -> list[Record]:
        return self.by_suite.get(suite, [])


def load_report(path: str | Path) -> RunReport:
    """A JSON report written by `--tom-report` (`SavedReportError` naming the file if not)."""
    return read_saved_report(path, label=str(path), how_to_write=f"`pytest ... --tom-report={path}`")


def load_runs(paths: list[str | Path], labels: list[str] | None = None) -> list[Run]:
    """The runs in the order given; labels are the ones given, else the model names, made
    unique with the file name when two runs name the same model. A report that cannot be
    read raises `SavedReportError`; labels that do not match the reports, ValueError."""
    if labels and len(labels) != len(paths):
        raise ValueError(f"{len(labels)} labels given for {len(paths)} reports")
    runs = [Run.of(p, load_report(p)) for p in paths]
    models = [r.model for r in runs]
    for run in runs:
        run.label = run.model if models.count(run.model) == 1 else f"{run.model} ({run.path.name})"
    if labels:
        for run, label in zip(runs, labels, strict=True):
            run.label = label
    taken = [r.label for r in runs]
    for i, run in enumerate(runs):  # the same label twice: number them
        if taken.count(run.label) > 1:
            run.label = f"{run.label} #{i + 1}"
    return runs
