"""What a comparison of saved runs finds (`compare.paired.compare_runs`), typed: the runs,
per suite a row per metric (each run's value and 95% interval, each later run's paired
difference to the first), the totals, the flipped items. `report/` renders it (terminal,
Markdown, HTML); `to_dict` is its JSON form (`pytest-tom compare --json`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict, cast

from pytest_tom.metrics.accuracy import Figure
from pytest_tom.metrics.intervals import (
    Interval,
    IntervalJSON,
    MetricInterval,
    PairedDiff,
    PairedDiffJSON,
)
from pytest_tom.metrics.numbers import PERCENT
from pytest_tom.results.run_report import SettingsJSON

FORMAT = "pytest-tom-compare/1"


# -- the JSON form (`Comparison.to_dict`), in the order the writer puts the keys ----------


class ComparisonJSON(TypedDict):
    format: str
    seed: int
    resamples: int
    runs: list[RunInfoJSON]
    suites: list[SuiteComparisonJSON]
    totals: list[TotalRowJSON]
    flips: list[FlipsJSON]
    asked_differently: list[AskedDifferentlyJSON]


class BoundsJSON(TypedDict):
    """A run's interval: its bounds and method (`bounds_json`)."""

    low: float | None
    high: float | None
    method: str


class RunInfoJSON(TypedDict):
    label: str
    model: str
    path: str
    settings: SettingsJSON
    finished: str | None
    items: int


class RowJSON(TypedDict, total=False):
    metric: str
    label: str
    kind: str
    headline: bool
    values: list[Figure]
    intervals: list[BoundsJSON | None]
    diffs: list[PairedDiffJSON | None]
    display: str  # not a share only
    counts: list[list[int] | None]  # a share of items only


class SuiteComparisonJSON(TypedDict):
    name: str
    family: str
    items: list[int]
    rows: list[RowJSON]


class TotalRowJSON(TypedDict):
    metric: str
    label: str
    values: list[Figure]
    intervals: list[IntervalJSON | BoundsJSON | None]
    counts: list[list[int] | None] | None


class AnswerJSON(TypedDict):
    verdict: str
    answer: str


class FlipJSON(TypedDict):
    suite: str
    id: str
    kind: str | None
    question: str
    gold: Any  # the item's gold, as its suite gives it
    direction: str
    before: AnswerJSON
    after: AnswerJSON


class FlipsJSON(TypedDict):
    against: str
    worse: int
    better: int
    items: list[FlipJSON]


class SettingDifferenceJSON(TypedDict):
    field: str
    first: Any  # the setting's value in each run (results/asked.py)
    later: Any


class AskedDifferentlyJSON(TypedDict):
    against: str
    fields: list[SettingDifferenceJSON]


def bounds_json(iv: Interval | None) -> BoundsJSON | None:
    """A run's interval in the comparison's JSON: its bounds and method."""
    return None if iv is None else {"low": iv.low, "high": iv.high, "method": iv.method}


@dataclass
class RunInfo:
    """A run as the comparison names it."""

    label: str
    model: str
    path: str
    settings: SettingsJSON
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

    def to_dict(self) -> RowJSON:
        out: RowJSON = {"metric": self.metric, "label": self.label, "kind": self.kind,
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

    def to_dict(self) -> SuiteComparisonJSON:
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

    def to_dict(self) -> TotalRowJSON:
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

    def to_dict(self) -> ComparisonJSON:
        # `asdict` writes each dataclass's fields by name: the keys its TypedDict declares
        return {"format": FORMAT, "seed": self.seed, "resamples": self.resamples,
                "runs": [cast(RunInfoJSON, asdict(r)) for r in self.runs],
                "suites": [s.to_dict() for s in self.suites],
                "totals": [t.to_dict() for t in self.totals],
                "flips": [cast(FlipsJSON, asdict(f)) for f in self.flips],
                "asked_differently": [cast(AskedDifferentlyJSON, asdict(a))
                                      for a in self.asked if a.fields]}
