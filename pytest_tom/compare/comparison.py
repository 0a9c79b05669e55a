"""What a comparison of saved runs finds (`compare.paired.compare_runs`), typed: the runs,
per suite a row per metric (each run's value and 95% interval, each later run's paired
difference to the first), the totals, the flipped items. `report/` renders it (terminal,
Markdown, HTML); `to_dict` is its JSON form (`pytest-tom compare --json`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from pytest_tom.metrics.intervals import Interval, MetricInterval, PairedDiff
from pytest_tom.metrics.numbers import PERCENT

FORMAT = "pytest-tom-compare/1"


def bounds_json(iv: Interval | None) -> dict[str, Any] | None:
    """A run's interval in the comparison's JSON: its bounds and method."""
    return None if iv is None else {"low": iv.low, "high": iv.high, "method": iv.method}


@dataclass
class RunInfo:
    """A run as the comparison names it."""

    label: str
    model: str
    path: str
    settings: dict[str, Any]
    finished: str | None
    items: int


@dataclass
class Row:
    """One metric of one suite: a value, an interval and (after the first) a paired
    difference to the first run, per run."""

    metric: str
    label: str
    kind: str
    headline: bool
    values: list[Any]
    intervals: list[Interval | None]
    diffs: list[PairedDiff | None]
    # how the values are shown (`metrics.numbers`): percent, 0-1, or "amount" (a mean or
    # median of reasoning tokens, whose difference is in tokens)
    display: str = PERCENT
    # a share of items (the cut-off row): (items counted, items) per run, None: no such run
    counts: list[tuple[int, int] | None] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"metric": self.metric, "label": self.label, "kind": self.kind,
               "headline": self.headline, "values": self.values,
               "intervals": [bounds_json(iv) for iv in self.intervals],
               "diffs": [None if d is None else d.to_dict() for d in self.diffs]}
        if self.display != PERCENT:
            out["display"] = self.display
        if self.counts is not None:
            out["counts"] = [None if c is None else list(c) for c in self.counts]
        return out


@dataclass
class SuiteComparison:
    name: str
    family: str
    items: list[int]  # items of each run in the suite
    rows: list[Row] = field(default_factory=list)

    @property
    def headline_rows(self) -> list[Row]:
        return [r for r in self.rows if r.headline]

    @property
    def other_rows(self) -> list[Row]:
        return [r for r in self.rows if not r.headline]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "family": self.family, "items": self.items,
                "rows": [r.to_dict() for r in self.rows]}


@dataclass
class TotalRow:
    """Turn or goal accuracy over every suite of each run (no paired test)."""

    metric: str
    label: str
    values: list[Any]
    # turn and goal: each report's interval (`MetricInterval`); cut off: a Wilson interval
    intervals: list[Interval | None]
    # a share of items (cut off): (items counted, items) per run
    counts: list[tuple[int, int] | None] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "label": self.label, "values": self.values,
                "intervals": [None if iv is None else iv.to_dict() if isinstance(
                    iv, MetricInterval) else bounds_json(iv) for iv in self.intervals],
                "counts": None if self.counts is None else [
                    None if c is None else list(c) for c in self.counts]}


@dataclass
class Answer:
    verdict: str  # core.outcome.status
    answer: str  # what the run answered, short


@dataclass
class Flip:
    """An item judged in both runs whose verdict changed."""

    suite: str
    id: str
    kind: str | None
    question: str
    gold: Any
    direction: str  # "worse" | "better"
    before: Answer
    after: Answer


@dataclass
class Flips:
    """The flipped items of one later run against the first."""

    against: str  # the later run's label
    worse: int
    better: int
    items: list[Flip]


@dataclass
class SettingDifference:
    """A setting that decides what the model was asked, different in a later run than in
    the first (`results/run_report.ReportSettings.differences`)."""

    field: str  # its dotted path in the report: settings.asked.thinking_tokens
    first: Any
    later: Any


@dataclass
class AskedDifferently:
    """The settings of one later run that differ from the first run's (none: asked alike)."""

    against: str  # the later run's label
    fields: list[SettingDifference]


@dataclass
class Comparison:
    seed: int
    resamples: int
    runs: list[RunInfo]
    suites: list[SuiteComparison]
    totals: list[TotalRow]
    flips: list[Flips]
    asked: list[AskedDifferently] = field(default_factory=list)

    @property
    def labels(self) -> list[str]:
        return [r.label for r in self.runs]

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "seed": self.seed, "resamples": self.resamples,
                "runs": [asdict(r) for r in self.runs],
                "suites": [s.to_dict() for s in self.suites],
                "totals": [t.to_dict() for t in self.totals],
                "flips": [asdict(f) for f in self.flips],
                "asked_differently": [asdict(a) for a in self.asked if a.fields]}
