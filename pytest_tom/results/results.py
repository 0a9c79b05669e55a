"""What aggregation gives, read through typed accessors: per suite its family, metrics,
intervals, tables and notes; the run's totals and their intervals; with `--tom-samples`
the spread over samples.

`Results` is what `results.aggregate.aggregate` returns and what a report holds (its
`suites`, `totals`, `totals_intervals`, `samples`, `totals_spread`). It is a dict of
exactly those keys, so it is its own JSON form: the report writer embeds it as it is, a
script can `json.dump` it, and a report read back gives the same object
(`results.run_report.RunReport.results`). Every other module reads it through the
accessors below (`results.suites`, `suite.metric(name)`, `results.totals.turn` ...);
this module is the one place that knows the keys (`tests/test_report_model.py` keeps
it so).

Adding a suite-level figure:

- a number per suite (a metric: a count, a share, a mean) is a declared metric
  (`metrics.declare.Metric`, in the family's `headline.py`, or in
  `results.headline.common_specs` for every suite): aggregation sets its value in the
  suite's metrics and its interval; gates, `compare`, the Markdown, HTML and terminal
  "every metric" lists show it with no other change;
- a count of the core block (beside errors and unparseable, e.g. answers cut off by the
  budget) is counted in `metrics/accuracy` (declared in its `CountsJSON`) and named once in `Counts` and
  `OUTCOME_COUNTS` below, which the terminal, Markdown and HTML tables read;
- anything else kept per suite (like `info`) is a key written by `suite_block` and one
  accessor of `SuiteResult`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from pytest_tom.core.json_value import JSONObject
from pytest_tom.families.base import MetricTable
from pytest_tom.metrics.accuracy import CountsJSON, Figure
from pytest_tom.metrics.intervals import Interval, IntervalJSON, MetricInterval, PairedFiguresJSON
from pytest_tom.metrics.table_json import TableJSON

# the keys of a report that hold the results, in the order the report writes them
RESULT_KEYS = ("suites", "totals", "totals_intervals", "samples", "totals_spread", "sweep",
               "probes")

# counts of outcomes that are neither right nor wrong, in the order the summaries show
# them: (key in the core block, label, shown when zero). The terminal, Markdown and HTML
# summaries read this list, so a new outcome status is named here once.
OUTCOME_COUNTS: tuple[tuple[str, str, bool], ...] = (
    ("errors", "errors", True),
    ("unparseable", "unparseable", True),
    ("cut_off", "cut off", False),  # the budget ran out: neither right nor wrong
    ("skipped", "skipped", False),
    # scored by a measure only (a FANToM free answer's token F1): neither right nor wrong, in
    # no accuracy; not a key of the report: items - judged - skipped (`Counts.get`)
    ("measured", "measured only", False),
)


# -- the JSON model ------------------------------------------------------------------------
# Every key the results hold, declared once: the report writes these shapes, this module
# (with results/run_report.py and results/saved_report.py) reads them, and
# tests/test_report_model.py takes the keys from these declarations to check that no other
# module reads one by key. A new key is declared here, beside the accessor that reads it.
# Three shapes are written below the results layer and declared where they are written:
# the core block (`metrics.accuracy.CountsJSON`), an interval (`metrics.intervals.
# IntervalJSON`) and a family table (`metrics.table_json.TableJSON`); the test reads those
# modules' declarations too.


class ResultsJSON(TypedDict, total=False):
    """The results of a run (`Results`), as the report holds them."""

    suites: dict[str, SuiteJSON]
    totals: CountsJSON
    totals_intervals: dict[str, IntervalJSON]
    samples: int  # --tom-samples k
    totals_spread: dict[str, float]
    sweep: SweepJSON
    probes: ProbesJSON


class SuiteJSON(TypedDict, total=False):
    """One suite's figures (`SuiteResult`)."""

    family: str
    path: str
    metrics: dict[str, Figure]  # the core block (`CountsJSON`), its tags, the family's
    tables: list[TableJSON]
    info: JSONObject  # the family's notes (the embedding model used ...), free-form
    reasoning: ReasoningJSON
    intervals: dict[str, IntervalJSON]
    samples: int
    spread: dict[str, float]






class ReasoningJSON(TypedDict, total=False):
    """How long the model reasoned (`Reasoning`; `results.reasoning.reasoning_length`,
    `results.reasoning.thought_stats`)."""

    unit: str
    measure: str
    source: str
    items: int
    quartiles: list[QuartileJSON]
    selections: list[ReasoningSelectionJSON]
    cut_off: CutOffJSON
    contrasts: list[ContrastJSON]
    conditions: list[ConditionJSON]


class QuartileJSON(TypedDict, total=False):
    """A quartile of reasoning length (`Quartile`)."""

    metric: str
    low: float | None
    high: float | None
    judged: int
    median: float | None


class ReasoningSelectionJSON(TypedDict, total=False):
    """The accuracy a `reasoning.mean.<metric>` is of."""

    metric: str
    of: str
    label: str
    items: int
    headline: bool


class CutOffJSON(TypedDict, total=False):
    """Cut-off items and the lower bounds of their thought lengths (`CutOff`)."""

    items: int
    with_length: int
    low: float | None
    median: float | None
    high: float | None


class ContrastJSON(TypedDict, total=False):
    """A family's contrast of thought length (`Contrast`)."""

    name: str
    label: str
    reference: str | None
    reference_label: str
    paired: bool
    levels: list[LevelJSON]


class LevelJSON(TypedDict, total=False):
    """One level of a contrast: its mean thought length's ratio to the reference's."""

    name: str
    label: str
    ratio: float | None
    low: float | None
    high: float | None
    reference_mean: float | None
    reference_items: int
    mean: float | None
    items: int
    groups: int
    paired: bool
    method: str
    resamples: int
    seed: int


class ConditionJSON(TypedDict, total=False):
    """One condition of the contrasts (`Condition`)."""

    name: str
    label: str
    items: int
    mean: float | None
    quartiles: list[ConditionQuartileJSON]
    cut_off: CutOffJSON


class ConditionQuartileJSON(TypedDict, total=False):
    """A quartile of thought length within a condition (`ConditionQuartile`)."""

    low: float | None
    high: float | None
    judged: int
    right: int
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None


class SweepJSON(TypedDict, total=False):
    """--tom-sweep (`SweepView`; `results.reasoning.sweep_results`)."""

    setting: str
    values: list[Any]
    suites: dict[str, SweepSuiteJSON]


class SweepSuiteJSON(TypedDict, total=False):
    values: list[SweepRowJSON]
    paired: list[SweepPairJSON]


class SweepRowJSON(TypedDict, total=False):
    """One value of a sweep in one suite (`SweepRow`)."""

    value: Any
    label: str
    suite: str | None
    family: str | None
    items: float
    right: float
    wrong: float
    unparseable: float
    cut_off: float
    errors: float
    turn: float | None
    answered: int
    answered_accuracy: IntervalJSON
    thought_mean: float | None
    thought_mean_interval: IntervalJSON | None
    thought_median: float | None
    thought_unit: str
    reasoning_tokens: int | None
    metrics: dict[str, IntervalJSON]


# `from` is a keyword: the functional form
SweepPairJSON = TypedDict("SweepPairJSON", {"from": Any, "to": Any, "turn": "SweepTurnJSON",
                                            "thought_mean": "SweepThoughtJSON | None"},
                          total=False)


class SweepTurnJSON(TypedDict, total=False):
    """McNemar on turn accuracy between two adjacent values (`SweepTest`)."""

    test: str
    n: int
    a: float | None
    b: float | None
    delta: float | None
    worse: int
    better: int
    p_value: float | None


class SweepThoughtJSON(PairedFiguresJSON):
    """The paired bootstrap of the mean thought length (`SweepTest`): its figures, the
    items it is over and their unit."""

    items: int
    unit: str


class ProbesJSON(TypedDict, total=False):
    """--tom-probe (`ProbesView`; `results.reasoning.probe_results`)."""

    suites: list[ProbeSuiteJSON]
    not_applicable: list[NotApplicableJSON]


class ProbeSuiteJSON(TypedDict, total=False):
    suite: str
    base: ProbeCountsJSON
    probes: list[ProbeRowJSON]
    no_story: NoStoryJSON
    shuffle: ShuffleJSON


class ProbeCountsJSON(TypedDict, total=False):
    n: int
    right: int
    accuracy: float | None


class ProbeRowJSON(TypedDict, total=False):
    label: str
    probe: str
    n: int
    right: int
    accuracy: float | None
    paired: ProbePairedJSON


class ProbePairedJSON(TypedDict, total=False):
    n: int
    newly_right: int
    newly_wrong: int
    p_value: float


class NoStoryJSON(TypedDict, total=False):
    n: int
    right: int
    chance: float | None
    p_value: float
    right_items: list[str]


class ShuffleJSON(TypedDict, total=False):
    orders: int
    items: int
    consistent: int
    consistency: float | None
    by_position: list[PositionJSON]


class PositionJSON(TypedDict, total=False):
    position: int
    n: int
    right: int
    accuracy: float


class NotApplicableJSON(TypedDict, total=False):
    family: str
    probe: str
    reason: str




def interval_of(data: Mapping[str, Any]) -> MetricInterval:
    """A metric's interval read back from its JSON form (the inverse of `to_dict`; a key a
    report lacks takes the value `to_dict` leaves it out for)."""
    seed = data.get("seed")
    return MetricInterval(value=data.get("value"), low=data.get("low"), high=data.get("high"),
                          method=str(data.get("method") or ""), n=int(data.get("n") or 0),
                          resamples=int(data.get("resamples") or 0),
                          seed=None if seed is None else int(seed),
                          label=str(data.get("label") or ""),
                          headline=bool(data.get("headline")),
                          display=str(data.get("display") or ""))


def intervals_of(block: Mapping[str, Any] | None) -> dict[str, MetricInterval]:
    """Name -> interval of a report's `intervals` (or `totals_intervals`) block."""
    return {name: interval_of(iv) for name, iv in (block or {}).items() if iv}


def intervals_json(intervals: Mapping[str, MetricInterval]) -> dict[str, IntervalJSON]:
    """The JSON form of name -> interval (what a report writes)."""
    return {name: IntervalJSON(**iv.to_dict()) for name, iv in intervals.items()}


class Counts:
    """The core block of a suite (within its metrics) or of the run (the totals): items,
    judged, right, wrong, errors, unparseable, cut off, skipped, turn and goal accuracy,
    groups (`metrics.accuracy`). A view: it reads the figures it is given."""

    __slots__ = ("_figures",)

    def __init__(self, figures: Mapping[str, Any]):
        self._figures = figures

    def get(self, name: str) -> Figure:
        """Any figure of the block by its report name (`tag.belief.turn`, a family's), and
        `measured`: the items neither judged nor skipped (so that right + wrong + cut off +
        measured + skipped = items, every count of the table accounted for)."""
        if name == "measured" and name not in self._figures:
            return self.measured
        return self._figures.get(name)

    @property
    def measured(self) -> Figure:
        """Items scored by a measure only (`correct` None): in no accuracy, not wrong."""
        items, judged = self._figures.get("items"), self._figures.get("judged")
        if items is None or judged is None:
            return None
        left = items - judged - (self._figures.get("skipped") or 0)
        return round(left, 9) if isinstance(left, float) else left

    def __contains__(self, name: object) -> bool:
        return name in self._figures

    def names(self) -> list[str]:
        return list(self._figures)

    def as_dict(self) -> dict[str, Figure]:
        """The figures by name, as the report keeps them (a copy)."""
        return dict(self._figures)

    @property
    def items(self) -> Figure:
        return self._figures.get("items")

    @property
    def judged(self) -> Figure:
        return self._figures.get("judged")

    @property
    def correct(self) -> Figure:
        return self._figures.get("correct")

    @property
    def wrong(self) -> Figure:
        return self._figures.get("wrong")

    @property
    def errors(self) -> Figure:
        return self._figures.get("errors")

    @property
    def unparseable(self) -> Figure:
        return self._figures.get("unparseable")

    @property
    def cut_off(self) -> Figure:
        """Answers the budget cut off (0 in a report made before they were counted)."""
        return self._figures.get("cut_off", 0)

    @property
    def skipped(self) -> Figure:
        return self._figures.get("skipped")

    @property
    def turn(self) -> float | None:
        return self._figures.get("turn")

    @property
    def goal(self) -> float | None:
        return self._figures.get("goal")

    @property
    def groups(self) -> Figure:
        return self._figures.get("groups")

    @property
    def groups_correct(self) -> Figure:
        return self._figures.get("groups_correct")

    @property
    def parse_failure_rate(self) -> float | None:
        return self._figures.get("parse_failure_rate")

    def tag_names(self) -> list[str]:
        """The tags with a `tag.<tag>.*` figure, sorted."""
        return sorted({k.split(".")[1] for k in self._figures if k.startswith("tag.")})


def suite_block(family: str, path: str, metrics: dict[str, Figure], tables: list[TableJSON],
                info: JSONObject, reasoning: ReasoningJSON | None = None) -> SuiteJSON:
    """One suite's figures as aggregation makes them (intervals are added after); the
    `reasoning` block only when its records show reasoning (`results.reasoning.reasoning_length.block`)."""
    out: SuiteJSON = {"family": family, "path": path, "metrics": metrics, "tables": tables,
                      "info": info}
    if reasoning:
        out["reasoning"] = reasoning
    return out


class Quartile:
    """One quartile of reasoning length: its turn accuracy's metric, the lowest and highest
    length in it, its judged items and their median length."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]):
        self._data = data

    @property
    def metric(self) -> str:
        return str(self._data.get("metric", ""))

    @property
    def low(self) -> float | None:
        return self._data.get("low")

    @property
    def high(self) -> float | None:
        return self._data.get("high")

    @property
    def judged(self) -> int:
        return int(self._data.get("judged") or 0)

    @property
    def median(self) -> float | None:
        return self._data.get("median")


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


@dataclass(frozen=True)
class CutOff:
    """The cut-off items of a suite or condition and the lower bounds of their thought
    lengths (`results.reasoning.thought_stats`): how many, how many with a length, the least, median
    and greatest bound."""

    items: int
    with_length: int
    low: float | None
    median: float | None
    high: float | None

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> CutOff:
        return cls(int(data.get("items") or 0), int(data.get("with_length") or 0),
                   _float(data.get("low")), _float(data.get("median")), _float(data.get("high")))


@dataclass(frozen=True)
class Level:
    """One level of a contrast: its answered items' mean thought length, the reference's,
    and their ratio with its bootstrap interval over groups."""

    name: str
    label: str
    ratio: float | None
    low: float | None
    high: float | None
    mean: float | None
    items: int
    reference_mean: float | None
    reference_items: int
    groups: int
    paired: bool
    method: str

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Level:
        return cls(str(data.get("name") or ""), str(data.get("label") or ""),
                   _float(data.get("ratio")), _float(data.get("low")), _float(data.get("high")),
                   _float(data.get("mean")), int(data.get("items") or 0),
                   _float(data.get("reference_mean")), int(data.get("reference_items") or 0),
                   int(data.get("groups") or 0), bool(data.get("paired")),
                   str(data.get("method") or ""))


@dataclass(frozen=True)
class Contrast:
    """A family's contrast of thought length: its levels against a reference condition
    (None: each level against the suite's other items)."""

    name: str
    label: str
    reference: str | None
    reference_label: str
    paired: bool
    levels: list[Level]

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Contrast:
        ref = data.get("reference")
        return cls(str(data.get("name") or ""), str(data.get("label") or ""),
                   None if ref is None else str(ref), str(data.get("reference_label") or ""),
                   bool(data.get("paired")), [Level.of(v) for v in data.get("levels") or []])


@dataclass(frozen=True)
class ConditionQuartile:
    """Turn accuracy in one quartile of thought length within a condition."""

    low: float | None
    high: float | None
    judged: int
    right: int
    accuracy: float | None
    interval: Interval  # Wilson over the judged items (bounds None: none)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> ConditionQuartile:
        judged = int(data.get("judged") or 0)
        return cls(_float(data.get("low")), _float(data.get("high")), judged,
                   int(data.get("right") or 0), _float(data.get("accuracy")),
                   Interval(_float(data.get("accuracy")), _float(data.get("ci_low")),
                            _float(data.get("ci_high")), "wilson", judged))


@dataclass(frozen=True)
class Condition:
    """One condition of the contrasts: its mean, quartile accuracies and cut-off items."""

    name: str
    label: str
    items: int
    mean: float | None
    quartiles: list[ConditionQuartile]
    cut_off: CutOff

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Condition:
        return cls(str(data.get("name") or ""), str(data.get("label") or ""),
                   int(data.get("items") or 0), _float(data.get("mean")),
                   [ConditionQuartile.of(q) for q in data.get("quartiles") or []],
                   CutOff.of(data.get("cut_off") or {}))


class Reasoning:
    """A suite's `reasoning` block (`results.reasoning.reasoning_length`): what the reasoning length counts
    (`unit` tokens or characters, `measure` as the reports name it, `source`), the items
    with a length, the quartiles, and the accuracies each `reasoning.mean.<metric>` is of
    (`selections`)."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]):
        self._data = data

    def __bool__(self) -> bool:
        return bool(self._data)

    @property
    def unit(self) -> str:
        return str(self._data.get("unit") or "")

    @property
    def measure(self) -> str:
        return str(self._data.get("measure") or "")

    @property
    def source(self) -> str:
        return str(self._data.get("source") or "")

    @property
    def items(self) -> int:
        return int(self._data.get("items") or 0)

    @property
    def quartiles(self) -> list[Quartile]:
        return [Quartile(q) for q in self._data.get("quartiles") or []]

    @property
    def cut_off(self) -> CutOff | None:
        """The cut-off items and the lower bounds of their thought lengths (None: none
        was cut off; `results.reasoning.thought_stats`)."""
        block = self._data.get("cut_off")
        return CutOff.of(block) if block else None

    @property
    def contrasts(self) -> list[Contrast]:
        """The family's contrasts of thought length, each level's ratio to the reference
        with its interval (`results.reasoning.thought_stats`)."""
        return [Contrast.of(c) for c in self._data.get("contrasts") or []]

    @property
    def conditions(self) -> list[Condition]:
        """Each condition of the contrasts: mean, quartile accuracies, cut-off items."""
        return [Condition.of(c) for c in self._data.get("conditions") or []]

    @property
    def selections(self) -> list[tuple[str, str, str, int, bool]]:
        """(reasoning metric, the accuracy's metric, its label, items with a length,
        whether the accuracy is a headline metric) of each `reasoning.mean.<metric>`."""
        return [(str(s.get("metric", "")), str(s.get("of", "")), str(s.get("label", "")),
                 int(s.get("items") or 0), bool(s.get("headline")))
                for s in self._data.get("selections") or []]


def table_of(data: Mapping[str, Any]) -> MetricTable:
    """A family table as a report keeps it (`MetricTable.to_dict`)."""
    return MetricTable(title=str(data.get("title", "")), headers=list(data.get("headers") or []),
                       rows=[list(r) for r in data.get("rows") or []],
                       note=str(data.get("note") or ""), caption=str(data.get("caption") or ""))


class SuiteResult:
    """The figures of one suite of a run: a view of its block in the results."""

    __slots__ = ("name", "_block")

    def __init__(self, name: str, block: SuiteJSON):
        self.name = name
        self._block = block

    @property
    def family(self) -> str:
        return str(self._block.get("family", ""))

    @property
    def path(self) -> str:
        return str(self._block.get("path", ""))

    @property
    def metrics(self) -> dict[str, Figure]:
        """Every figure of the suite by name: the core block, its tags, the family's."""
        return self._block.get("metrics") or {}

    @property
    def counts(self) -> Counts:
        return Counts(self.metrics)

    def metric(self, name: str) -> Figure:
        return self.metrics.get(name)

    def has(self, name: str) -> bool:
        return name in self.metrics

    @property
    def intervals(self) -> dict[str, MetricInterval]:
        """Name -> the 95% interval of each metric that has one (with the metric's label,
        whether it is a headline metric and how it is shown)."""
        return intervals_of(self._block.get("intervals"))

    @intervals.setter  # right after its getter: a type checker reads the pair only so
    def intervals(self, value: Mapping[str, MetricInterval]) -> None:
        self._block["intervals"] = intervals_json(value)

    def interval(self, name: str) -> MetricInterval | None:
        block = (self._block.get("intervals") or {}).get(name)
        return interval_of(block) if block else None

    @property
    def tables(self) -> list[MetricTable]:
        """The family's tables in the paper's layout."""
        return [table_of(t) for t in self._block.get("tables") or []]

    @property
    def table_data(self) -> list[TableJSON]:
        """The tables as the report keeps them."""
        return list(self._block.get("tables") or [])

    @property
    def info(self) -> JSONObject:
        """Notes of the family (the embedding model used ...)."""
        return self._block.get("info") or {}

    @property
    def reasoning(self) -> Reasoning:
        """How long the model reasoned (empty, and false, when the records show no
        reasoning or the report was made before)."""
        return Reasoning(self._block.get("reasoning") or {})

    @property
    def samples(self) -> int | None:
        """--tom-samples k: the figures are means over k samples."""
        return self._block.get("samples")

    @property
    def spread(self) -> dict[str, float]:
        """--tom-samples k: the standard deviation of each figure over the samples."""
        return self._block.get("spread") or {}

    def over_samples(self, metrics: dict[str, Figure], tables: list[TableJSON],
                     spread: dict[str, float], samples: int) -> SuiteJSON:
        """This suite's block with figures that are means over `samples` samples."""
        return {**self._block, "metrics": metrics, "tables": tables, "spread": spread,
                "samples": samples}


class Results(dict[str, Any]):
    """The results of a run (see the module docstring): read them through the accessors."""

    @classmethod
    def build(cls, suites: dict[str, SuiteJSON], totals: CountsJSON) -> Results:
        """Results of one aggregation pass: the suites' blocks (`suite_block`) and totals."""
        return cls(suites=suites, totals=totals)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Results:
        """The results a report holds (its result keys, shared, not copied)."""
        out = cls((k, data[k]) for k in RESULT_KEYS if k in data)
        out.setdefault("suites", {})
        out.setdefault("totals", {})
        return out

    @property
    def suites(self) -> dict[str, SuiteResult]:
        """Every suite by name, in the report's order (sorted by name)."""
        return {name: SuiteResult(name, block) for name, block in self["suites"].items()}

    def suite(self, name: str) -> SuiteResult | None:
        block = self["suites"].get(name)
        return None if block is None else SuiteResult(name, block)

    @property
    def suite_names(self) -> list[str]:
        return list(self["suites"])

    @property
    def totals(self) -> Counts:
        """The core block over every suite (a group is a suite's group)."""
        return Counts(self["totals"])

    def figure(self, suite: str | None, metric: str) -> Figure:
        """A metric of one suite, or of the totals (suite None); None when absent."""
        if suite is None:
            return self["totals"].get(metric)
        block = self["suites"].get(suite)
        return None if block is None else (block.get("metrics") or {}).get(metric)

    @property
    def totals_intervals(self) -> dict[str, MetricInterval]:
        """Turn and goal accuracy over every suite with their intervals."""
        return intervals_of(self.get("totals_intervals"))

    @totals_intervals.setter  # right after its getter, as `SuiteResult.intervals`
    def totals_intervals(self, value: Mapping[str, MetricInterval]) -> None:
        self["totals_intervals"] = intervals_json(value)

    def total_interval(self, name: str) -> MetricInterval | None:
        """The interval of turn or goal accuracy over every suite (None: none)."""
        block = (self.get("totals_intervals") or {}).get(name)
        return interval_of(block) if block else None

    @property
    def samples(self) -> int | None:
        """--tom-samples k: every number is a mean over k samples (None: one sample)."""
        return self.get("samples")

    @property
    def totals_spread(self) -> dict[str, float]:
        return self.get("totals_spread") or {}

    @property
    def sweep(self) -> SweepView | None:
        """--tom-sweep: each suite's values side by side and the paired tests between
        adjacent values (`results.reasoning.sweep_results`); None without a sweep."""
        block = self.get("sweep")
        return SweepView(block) if block else None

    @property
    def probes(self) -> ProbesView | None:
        """--tom-probe: each suite's probes beside its base with the paired tests
        (`results.reasoning.probe_results`); None without probes."""
        block = self.get("probes")
        return ProbesView(block) if block else None

    @classmethod
    def over_samples(cls, first: Results, suites: dict[str, SuiteJSON],
                     totals: dict[str, Figure], totals_spread: dict[str, float],
                     samples: int) -> Results:
        """The results of a k-sample run: means over the samples and their spread."""
        return cls({**first, "suites": suites, "totals": totals, "totals_spread": totals_spread,
                    "samples": samples})


class SweepRow:
    """One value of a sweep in one suite of the file (`results.reasoning.sweep_results._row`)."""

    __slots__ = ("_row",)

    def __init__(self, row: Mapping[str, Any]):
        self._row = row

    def get(self, key: str) -> Figure:
        """A count or figure of the row by its report name (`right`, `cut_off`,
        `thought_mean`, `reasoning_tokens` ...)."""
        return self._row.get(key)

    @property
    def value(self) -> Any:
        return self._row.get("value")

    @property
    def label(self) -> str:
        return str(self._row.get("label") or "")

    @property
    def shown_value(self) -> str:
        """The value as the item names show it (`1024` of `thinking-tokens=1024`)."""
        return self.label.partition("=")[2] or str(self.value)

    @property
    def turn(self) -> float | None:
        """Turn accuracy at this value (its interval: `interval("turn")`)."""
        return self._row.get("turn")

    @property
    def items(self) -> float:
        return self._row.get("items") or 0

    @property
    def thought_unit(self) -> str:
        """What the thought lengths count ("tokens", "characters"; "": none shown)."""
        return str(self._row.get("thought_unit") or "")

    @property
    def thought_mean(self) -> float | None:
        return self._row.get("thought_mean")

    @property
    def thought_median(self) -> float | None:
        return self._row.get("thought_median")

    @property
    def reasoning_tokens(self) -> int | None:
        """Reasoning tokens the server reported, over every item (None: none reported)."""
        return self._row.get("reasoning_tokens")

    @property
    def answered(self) -> int:
        """The items answered at this value (neither cut off nor failed)."""
        return int(self._row.get("answered") or 0)

    @property
    def suite(self) -> str | None:
        return self._row.get("suite")

    @property
    def family(self) -> str | None:
        return self._row.get("family")

    @property
    def intervals(self) -> dict[str, MetricInterval]:
        """Every declared metric of the value's suite with its interval."""
        return intervals_of(self._row.get("metrics"))

    def interval(self, name: str) -> MetricInterval | None:
        block = (self._row.get("metrics") or {}).get(name)
        return interval_of(block) if block else None

    @property
    def answered_accuracy(self) -> MetricInterval | None:
        """The accuracy on the answered items (Wilson), None in a row without it."""
        block = self._row.get("answered_accuracy")
        return interval_of(block) if block else None

    @property
    def thought_mean_interval(self) -> MetricInterval | None:
        block = self._row.get("thought_mean_interval")
        return interval_of(block) if block else None


class SweepSuite:
    """The values of one suite of the file side by side, and the paired tests."""

    __slots__ = ("name", "_block")

    def __init__(self, name: str, block: Mapping[str, Any]):
        self.name = name
        self._block = block

    @property
    def rows(self) -> list[SweepRow]:
        return [SweepRow(r) for r in self._block.get("values") or []]

    @property
    def paired(self) -> list[SweepPair]:
        """Per pair of adjacent values: McNemar on turn accuracy, the paired bootstrap of
        the mean thought length (None without lengths)."""
        return [SweepPair.of(p) for p in self._block.get("paired") or []]


@dataclass(frozen=True)
class SweepTest:
    """A paired test between two adjacent values of a sweep: `mcnemar` on turn accuracy
    (`worse`, `better` of `n` paired items) or the `paired bootstrap` of the mean thought
    length (`low`, `high`: the interval of `delta`; `items` answered at both, `unit`)."""

    test: str
    n: int
    a: float | None
    b: float | None
    delta: float | None
    p_value: float | None
    worse: int = 0
    better: int = 0
    low: float | None = None
    high: float | None = None
    items: int = 0
    unit: str = ""

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> SweepTest:
        return cls(str(data.get("test") or ""), int(data.get("n") or 0), _float(data.get("a")),
                   _float(data.get("b")), _float(data.get("delta")), _float(data.get("p_value")),
                   int(data.get("worse") or 0), int(data.get("better") or 0),
                   _float(data.get("low")), _float(data.get("high")),
                   int(data.get("items") or 0), str(data.get("unit") or ""))


@dataclass(frozen=True)
class SweepPair:
    """Two adjacent values of a sweep (`first` → `second`) and their paired tests."""

    first: Any
    second: Any
    turn: SweepTest | None
    thought_mean: SweepTest | None

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> SweepPair:
        turn, thought = data.get("turn"), data.get("thought_mean")
        return cls(data.get("from"), data.get("to"), SweepTest.of(turn) if turn else None,
                   SweepTest.of(thought) if thought is not None else None)


@dataclass(frozen=True)
class ProbeCounts:
    """Items asked, right, and their share (the base, or one probe's copies)."""

    n: int
    right: int
    accuracy: float | None

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> ProbeCounts:
        return cls(int(data.get("n") or 0), int(data.get("right") or 0),
                   _float(data.get("accuracy")))


@dataclass(frozen=True)
class ProbeRow:
    """One probe's copies of a suite beside the base: their counts, and McNemar on the
    items both judged (`newly_right`, `newly_wrong` of `paired`)."""

    label: str
    probe: str
    counts: ProbeCounts
    paired: int
    newly_right: int
    newly_wrong: int
    p_value: float | None

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> ProbeRow:
        pair = data.get("paired") or {}
        return cls(str(data.get("label") or ""), str(data.get("probe") or ""),
                   ProbeCounts.of(data), int(pair.get("n") or 0),
                   int(pair.get("newly_right") or 0), int(pair.get("newly_wrong") or 0),
                   _float(pair.get("p_value")))


@dataclass(frozen=True)
class NoStory:
    """The no-story probe against chance: right of n, chance, the binomial test, and the
    items answered right without the story."""

    n: int
    right: int
    chance: float | None
    p_value: float | None
    right_items: list[str]

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> NoStory:
        return cls(int(data.get("n") or 0), int(data.get("right") or 0),
                   _float(data.get("chance")), _float(data.get("p_value")),
                   [str(i) for i in data.get("right_items") or []])


@dataclass(frozen=True)
class Position:
    """Accuracy when the gold option was shown at `position` (from 1)."""

    position: int
    n: int
    right: int
    accuracy: float | None


@dataclass(frozen=True)
class Shuffle:
    """The shuffle probe: items right in all `orders`, and accuracy by the gold's place."""

    orders: int
    items: int
    consistent: int
    consistency: float | None
    by_position: list[Position]

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Shuffle:
        return cls(int(data.get("orders") or 0), int(data.get("items") or 0),
                   int(data.get("consistent") or 0), _float(data.get("consistency")),
                   [Position(int(p.get("position") or 0), int(p.get("n") or 0),
                             int(p.get("right") or 0), _float(p.get("accuracy")))
                    for p in data.get("by_position") or []])


@dataclass(frozen=True)
class ProbeSuite:
    """One suite of the files under --tom-probe: its base and each probe's copies."""

    suite: str
    base: ProbeCounts
    probes: list[ProbeRow]
    no_story: NoStory | None
    shuffle: Shuffle | None

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> ProbeSuite:
        story, shuffle = data.get("no_story"), data.get("shuffle")
        return cls(str(data.get("suite") or ""), ProbeCounts.of(data.get("base") or {}),
                   [ProbeRow.of(r) for r in data.get("probes") or []],
                   NoStory.of(story) if story else None, Shuffle.of(shuffle) if shuffle else None)


@dataclass(frozen=True)
class NotApplicable:
    """A probe a family does not take, and its reason."""

    family: str
    probe: str
    reason: str


class ProbesView:
    """The `probes` block of the results (`results.reasoning.probe_results`): per suite of the files
    its base and each probe's figures, and the probes each family does not take."""

    __slots__ = ("_block",)

    def __init__(self, block: Mapping[str, Any]):
        self._block = block

    @property
    def suites(self) -> list[ProbeSuite]:
        return [ProbeSuite.of(s) for s in self._block.get("suites") or []]

    @property
    def not_applicable(self) -> list[NotApplicable]:
        return [NotApplicable(str(r.get("family") or ""), str(r.get("probe") or ""),
                              str(r.get("reason") or ""))
                for r in self._block.get("not_applicable") or []]

    def as_dict(self) -> ProbesJSON:
        """The block as the report keeps it (passed through to the report)."""
        return ProbesJSON(**self._block)  # type: ignore[typeddict-item]


class SweepView:
    """The `sweep` block of the results (`results.reasoning.sweep_results`)."""

    __slots__ = ("_block",)

    def __init__(self, block: Mapping[str, Any]):
        self._block = block

    @property
    def setting(self) -> str:
        return str(self._block.get("setting") or "")

    @property
    def values(self) -> list[Any]:
        return list(self._block.get("values") or [])

    @property
    def suites(self) -> list[SweepSuite]:
        return [SweepSuite(name, block) for name, block in
                (self._block.get("suites") or {}).items()]

    def as_dict(self) -> SweepJSON:
        """The block as the report keeps it (passed through to the report)."""
        return SweepJSON(**self._block)  # type: ignore[typeddict-item]

