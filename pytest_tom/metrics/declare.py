"""How a family declares its headline metrics and their plots: as data, once.

A `Metric` says how the metric is computed from the item records (the proportion or
grouped forms below: selection, resampling unit, additive summary, finish), whether
higher or lower is better, how it is shown (percent, or 0–1 where the paper uses that
scale) and which `Plot` shows it. Everything else comes from that one declaration: the
point value in the report (`results.aggregate`), its 95% interval (`results.headline`),
the paired test of `pytest-tom compare` and the gates' direction, and the HTML plot.

* a **proportion** of judged items (`select` picks the items): Wilson interval, exact
  McNemar test between runs;
* a **grouped** metric: each resampling unit (the suite's groups: scenarios, FANToM
  sets, robustness sceneries) is reduced to an additive summary by `summarize`, and
  `finish` turns a sum of summaries into the metric: seeded cluster bootstrap interval,
  paired bootstrap between runs.

* the **median** of a quantity of the records (`quantity`: their reasoning length):
  distribution-free order-statistic interval over the items.

A selection is evaluated once per facet of the records (`metrics.record_table`): it may
read the item's `tags` and `kind`, the outcome's `correct` and `error`, and the meta keys
the metric lists in `reads`. Reading anything else raises `UndeclaredRead` at the first
record, never a silently wrong count. A record's reasoning length is no part of a facet:
a metric that reads it names it as its `quantity` (`REASONING`), then selects only records
whose length is known, and may keep those in a `band` of lengths; the table answers
with arrays (a proportion of the items in a reasoning-length quartile, the mean of the
lengths with `QuantityMean`, their median).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from pytest_tom.core.lazy_numpy import np  # at its first use: an xdist worker never imports it
from pytest_tom.core.record_view import RecordView, meta_of
from pytest_tom.core.record_view import scenario_of as scenario_of_record
from pytest_tom.metrics.accuracy import Record, group_key
from pytest_tom.metrics.intervals import (
    RESAMPLES,
    Finish,
    Interval,
    Summaries,
    bootstrap,
    derive_seed,
    macro_f1_of,
    median_interval,
    ratio_batch,
    ratio_of,
    weighted_f1_of,
    wilson,
)
from pytest_tom.metrics.numbers import AMOUNT, PERCENT, UNIT_SCALE, pct_of
from pytest_tom.metrics.pairing import duplicate_key
from pytest_tom.metrics.record_table import REASONING, Key, RecordTable, UndeclaredRead

__all__ = ["AMOUNT", "GROUPED", "MEDIAN", "PERCENT", "PROPORTION", "REASONING", "UNIT_SCALE",
           "AllRight", "DeclarationError", "Joint", "LabelPairs", "Metric", "NO_VALUE", "Plot",
           "QuantityMean", "UndeclaredRead", "Value", "ValueMean", "check_declarations", "evaluate",
           "macro_f1_of", "mean_of", "meta", "outcome_value", "ratio_of", "scenario_of",
           "weighted_f1_of"]

PROPORTION = "proportion"
GROUPED = "grouped"
MEDIAN = "median"  # the median of the metric's quantity over the selected records
# display: PERCENT, shares in percent with one decimal; UNIT_SCALE, three decimals on 0–1,
# where the paper reports that scale (an F1); AMOUNT, a mean or median of a count (tokens)
DISPLAYS = (PERCENT, UNIT_SCALE, AMOUNT)
QUANTITIES = (REASONING,)


class DeclarationError(ValueError):
    """A metric or plot declaration that cannot work (said when the family is defined)."""


def everything(rec: Record) -> bool:
    return True


class Summary(Protocol):
    """How a grouped metric reduces the selected records of each unit to an additive
    summary: one row per unit, read from the table's arrays (see `Summaries`)."""

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries: ...


@dataclass(frozen=True)
class Metric:
    """One headline metric, declared by its family (see the module docstring)."""

    name: str  # the metric's name in the suite's metrics (gates: `<family>.<name>`)
    label: str  # a row label for tables ("TB accuracy")
    kind: str = PROPORTION  # PROPORTION | GROUPED | MEDIAN
    select: Callable[[Record], bool] = everything
    summarize: Summary | None = None  # GROUPED: the units' summaries
    finish: Finish | None = None  # GROUPED: metric of a summed summary
    unit: Key = group_key  # GROUPED: the resampling unit
    reads: tuple[str, ...] = ()  # the meta keys `select` reads
    higher_is_better: bool = True  # the gates' direction (False: a ceiling, a rise is a drop)
    display: str = PERCENT  # PERCENT | UNIT_SCALE | AMOUNT
    plot: str = ""  # the id of the family's `Plot` that shows it ("": none)
    short: str = ""  # its bar label in that plot (default: `label`)
    headline: bool = True  # shown in the short interval line of the terminal
    of_groups: bool = False  # GROUPED and a share of groups (summaries ok / n)
    # a quantity of the record table the metric reads (REASONING: the reasoning length):
    # then only records whose quantity is known are selected; a MEDIAN's value, a
    # QuantityMean's summary, a band's lengths
    quantity: str = ""
    band: tuple[float | None, float | None] | None = None  # keep quantity in (low, high]

    def __post_init__(self) -> None:
        where = f"metric {self.name!r}"
        if not self.name or not isinstance(self.name, str):
            raise DeclarationError("a metric needs a name (a non-empty string)")
        if self.kind not in (PROPORTION, GROUPED, MEDIAN):
            raise DeclarationError(f"{where}: kind must be {PROPORTION!r}, {GROUPED!r} or "
                                   f"{MEDIAN!r}, not {self.kind!r}")
        if self.kind == GROUPED and (self.summarize is None or self.finish is None):
            raise DeclarationError(f"{where}: a grouped metric needs `summarize` (AllRight, "
                                   f"Joint, LabelPairs, ValueMean, ...) and `finish`")
        if self.kind != GROUPED and (self.summarize is not None or self.finish is not None):
            raise DeclarationError(f"{where}: a {self.kind} takes no `summarize`/`finish` "
                                   f"(declare kind={GROUPED!r} for a grouped metric)")
        if self.quantity and self.quantity not in QUANTITIES:
            raise DeclarationError(f"{where}: quantity must be one of "
                                   f"{', '.join(map(repr, QUANTITIES))}, not {self.quantity!r}")
        if self.kind == MEDIAN and not self.quantity:
            raise DeclarationError(f"{where}: a median needs the `quantity` it is the median "
                                   f"of, e.g. quantity={REASONING!r}")
        if self.band is not None and (not self.quantity or len(self.band) != 2):
            raise DeclarationError(f"{where}: a band is (low, high] of the metric's "
                                   f"`quantity` (declare quantity={REASONING!r})")
        if isinstance(self.reads, str) or not all(isinstance(k, str) for k in self.reads):
            raise DeclarationError(f"{where}: `reads` is a tuple of meta keys, e.g. "
                                   f"reads=('condition',)")
        if self.display not in DISPLAYS:
            raise DeclarationError(f"{where}: display must be one of "
                                   f"{', '.join(map(repr, DISPLAYS))}")
        if not callable(self.select):
            raise DeclarationError(f"{where}: `select` must be a function of a record")

    @property
    def percent(self) -> bool:
        return self.display == PERCENT

    def selected(self, table: RecordTable) -> np.ndarray:
        """The mask of the records the metric selects (with a quantity: those whose
        quantity is known, and in the band when it has one)."""
        mask = table.selected(self.select, self.reads, self.name)
        if not self.quantity:
            return mask
        if self.band is not None:
            return mask & table.in_band(self.quantity, *self.band)
        return mask & table.known(self.quantity)

    def counts(self, records: list[Record] | RecordTable) -> tuple[int, int]:
        """PROPORTION: (right, judged) among the selected records."""
        table = as_table(records)
        if not self.quantity:
            return table.counts(self.select, self.reads, self.name)
        mask = self.selected(table)
        return (int(np.count_nonzero(table.right & mask)),
                int(np.count_nonzero(table.judged & mask)))

    def quantities(self, table: RecordTable) -> np.ndarray:
        """MEDIAN (or any metric with a quantity): the quantity of the selected records."""
        return table.quantity(self.quantity)[self.selected(table)]

    def unit_summaries(self, table: RecordTable) -> tuple[list[Hashable], Summaries]:
        """GROUPED: the units that have selected records (sorted by `str`) and their
        summaries."""
        assert self.summarize is not None
        # kept on the table: a run evaluates each metric for its value, then its interval
        kept = table.kept(("unit_summaries", self))
        if kept is not None:
            return kept
        rows = np.flatnonzero(self.selected(table))
        unit_of, units = table.units(self.unit, rows)
        result = (units, self.summarize(table, rows, unit_of, len(units)))
        table.keep(("unit_summaries", self), result)
        return result

    def summaries(self, records: list[Record] | RecordTable) -> dict[Hashable, Counter]:
        """GROUPED: unit -> summary of its selected records (units without any are left out)."""
        units, summaries = self.unit_summaries(as_table(records))
        return dict(zip(units, summaries.rows(), strict=True))

    def value(self, records: list[Record] | RecordTable) -> float | None:
        """The point value (None when nothing is selected)."""
        return self.evaluate(records).value

    def evaluate(self, records: list[Record] | RecordTable) -> Value:
        """The point value with the counts it comes from (what a table in the paper's
        layout shows next to it)."""
        table = as_table(records)
        if self.kind == PROPORTION:
            right, n = self.counts(table)
            return Value(right / n if n else None, Counter({"ok": right, "n": n}), n)
        if self.kind == MEDIAN:
            values = self.quantities(table)
            return Value(float(np.median(values)) if len(values) else None,
                         Counter({"n": len(values)}), len(values))
        assert self.finish is not None
        units, summaries = self.unit_summaries(table)
        total = summaries.total()
        return Value(self.finish(total), total, len(units))

    def interval(self, records: list[Record] | RecordTable, seed: int, scope: str,
                 resamples: int = RESAMPLES) -> Interval:
        """The point value with its 95% interval."""
        table = as_table(records)
        if self.kind == PROPORTION:
            return wilson(*self.counts(table))
        if self.kind == MEDIAN:
            return median_interval(self.quantities(table))
        assert self.finish is not None
        _, summaries = self.unit_summaries(table)
        if self.of_groups:
            sums = summaries.total()
            value = self.finish(sums)
            if value in (0.0, 1.0):
                # every group right (or none): a bootstrap has no spread; the groups are then
                # a plain binomial sample and the Wilson interval over them is the honest one
                w = wilson(sums["ok"], sums["n"])
                return Interval(value, w.low, w.high, "wilson over groups", sums["n"])
        return bootstrap(summaries, self.finish, derive_seed(seed, scope, self.name), resamples)


@dataclass(frozen=True)
class Value:
    """A declared metric's point value and what it was computed from, as the engine
    hands it to the family's tables (`Family.aggregate(records, settings, declared)`):
    a table in the paper's layout shows these, never a count of its own.

    `total`: for a proportion `ok` (right) and `n` (judged); for a grouped metric its
    units' summaries summed (`ok`/`n` of AllRight and Joint, the (gold, predicted) pair
    counts of LabelPairs, `sum`/`n` of ValueMean). `units`: judged items of a proportion,
    units with selected records of a grouped metric."""

    value: float | None
    total: Counter = field(default_factory=Counter)
    units: int = 0

    def count(self, num: str = "ok", den: str = "n") -> tuple[int, int]:
        """(numerator, denominator) of a share: (right, judged), (pairs both right, pairs),
        (groups all right, groups)."""
        return int(self.total.get(num, 0)), int(self.total.get(den, 0))


NO_VALUE = Value(None)


class Declared(Mapping[str, Value]):
    """The declared values a family's tables read (`aggregate(records, settings, declared)`
    of a family's metrics part): `declared[name]` is metric `name`'s value, `NO_VALUE`
    where this run has none (a metric its options do not declare), so a table asks for
    any name it lays out; with the cell every table writes and the metrics a suite reports
    as unavailable."""

    def __init__(self, values: Mapping[str, Value]):
        self._values = values

    def __getitem__(self, name: str) -> Value:
        return self._values.get(name, NO_VALUE)

    def __contains__(self, name: object) -> bool:
        return name in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def judged(self, name: str) -> int:
        """How many the share of `name` is over (judged items, pairs, groups): 0 when none
        of its items ran."""
        return self[name].count()[1]

    def cell(self, name: str, na: str | None = "") -> str | None:
        """`45.0% (9/20)`: the share of metric `name` with its counts; `na` when none of
        its items was judged."""
        ok, n = self[name].count()
        return na if n == 0 else pct_of(ok, n)

    def unrun(self, names: Iterable[str]) -> dict[str, None]:
        """`name -> None` for each of `names` none of whose items ran: a suite reports
        those as unavailable rather than as 0."""
        return {name: None for name in names if self[name].value is None}


def evaluate(metrics: Iterable[Metric], records: list[Record] | RecordTable) -> dict[str, Value]:
    """name -> `Value` of each metric, over one table of the records."""
    table = as_table(records)
    return {m.name: m.evaluate(table) for m in metrics}


@dataclass(frozen=True)
class Plot:
    """A bar chart of the HTML report: one bar per metric declaring `plot=id` (in their
    order, labelled `short`), then the `also` rows ((metric, label): reported values that
    are not declared metrics, drawn without an interval), one bar per run side by side.

    With `series` ((name, template) pairs), one chart per run instead: `also` holds
    (key, label) rows and each row gets one bar per series, of metric `template.format(key)`
    (OpenToM's mover and observer F1 per question)."""

    id: str
    title: str
    ylabel: str = "%"
    baselines: tuple[tuple[str, float], ...] = ()  # (label, value on 0–1): dashed lines
    also: tuple[tuple[str, str], ...] = ()
    series: tuple[tuple[str, str], ...] = ()


def check_declarations(owner: str, metrics: Iterable[Metric], plots: Iterable[Plot]) -> None:
    """DeclarationError when names repeat or a metric names a plot not declared."""
    metrics, plots = list(metrics), list(plots)
    for m in metrics:
        if not isinstance(m, Metric):
            raise DeclarationError(f"{owner}: headline_metrics holds {m!r}, not a Metric")
    for p in plots:
        if not isinstance(p, Plot):
            raise DeclarationError(f"{owner}: plots holds {p!r}, not a Plot")
    for what, names in (("metric", [m.name for m in metrics]), ("plot", [p.id for p in plots])):
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise DeclarationError(f"{owner}: {what} {twice[0]!r} is declared twice")
    ids = {p.id for p in plots}
    for m in metrics:
        if m.plot and m.plot not in ids:
            raise DeclarationError(f"{owner}: metric {m.name!r} names plot {m.plot!r}, which "
                                   f"is not declared (plots: {', '.join(sorted(ids)) or 'none'})")


def as_table(records: list[Record] | RecordTable) -> RecordTable:
    """The records as a table; a plain list gets one facet per record (any selection)."""
    return records if isinstance(records, RecordTable) else RecordTable(records, None)


def _summaries(columns: dict[str, np.ndarray]) -> Summaries:
    keys = sorted(columns, key=repr)
    matrix = np.column_stack([columns[k].astype(np.float64) for k in keys])
    return Summaries(tuple(keys), matrix.reshape(-1, len(keys)))


# a record's meta (what selections read: the view's reader itself, no call between)
meta = meta_of


scenario_of = scenario_of_record


def outcome_value(rec: Record) -> float:
    return float(RecordView(rec).value or 0.0)


def mean_of(c: Counter) -> float | None:
    return c["sum"] / c["n"] if c["n"] else None


mean_of.batch = ratio_batch("sum", "n")  # type: ignore[attr-defined]  # the array form


# -- summaries ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AllRight:
    """A unit is right when every one of its judged selected records is right (with
    `include_skipped`, every selected record, a skipped or unjudged one counting as
    wrong): `ok` 1 or 0, `n` 1, or 0 for a unit with no such record."""

    include_skipped: bool = False

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        pool = slice(None) if self.include_skipped else table.judged[rows]
        counted = np.bincount(unit_of[pool], minlength=units) > 0
        wrong = np.bincount(unit_of[pool][~table.true[rows][pool]], minlength=units) > 0
        return _summaries({"ok": counted & ~wrong, "n": counted})


@dataclass(frozen=True)
class Joint:
    """Pairs of a `dependent` record and the `anchor` record of the same `key` within
    the unit (among judged records) with both right: `ok` such pairs of `n` pairs, as
    `metrics.pairing.joint_score` counts them in each unit (a dependent without anchor is
    no pair). The key need not name the unit: records of two units never pair."""

    key: Callable[[Record], Hashable]
    role: Callable[[Record], Hashable]
    anchor: str
    dependent: str

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        pool = table.judged[rows]
        rows, unit_of = rows[pool], unit_of[pool]
        roles, role_labels = table.codes(self.role, rows)
        keys, key_labels = table.codes(self.key, rows)
        pair_key = unit_of * max(1, len(key_labels)) + keys
        code = {label: i for i, label in enumerate(role_labels)}
        anchors = roles == code.get(self.anchor, -1)
        dependents = roles == code.get(self.dependent, -1)
        for which, mask in ((self.anchor, anchors), (self.dependent, dependents)):
            _unique_or_raise(table, which, rows[mask], pair_key[mask], keys[mask], key_labels)
        anchor_keys = pair_key[anchors]
        order = np.argsort(anchor_keys)
        anchor_keys = anchor_keys[order]
        anchor_right = table.right[rows[anchors]][order]
        dep_keys = pair_key[dependents]
        at = np.minimum(np.searchsorted(anchor_keys, dep_keys), max(0, len(anchor_keys) - 1))
        if len(anchor_keys):
            paired = anchor_keys[at] == dep_keys
            both = paired & table.right[rows[dependents]] & anchor_right[at]
        else:
            paired = both = np.zeros(len(dep_keys), dtype=bool)
        dep_units = unit_of[dependents]
        return _summaries({"ok": np.bincount(dep_units[both], minlength=units),
                           "n": np.bincount(dep_units[paired], minlength=units)})


def _unique_or_raise(table: RecordTable, which: str, rows: np.ndarray, pair_key: np.ndarray,
                     keys: np.ndarray, key_labels: list[Hashable]) -> None:
    """Two records of one role and pairing key are an error (as in `joint_score`)."""
    uniq, count = np.unique(pair_key, return_counts=True)
    if len(uniq) and count.max() > 1:
        dup = pair_key == uniq[int(np.argmax(count > 1))]
        second = rows[np.flatnonzero(dup)[1]]
        k = key_labels[int(keys[np.flatnonzero(dup)[0]])]
        raise duplicate_key(which, k, RecordView(table.records[int(second)]).id)


@dataclass(frozen=True)
class LabelPairs:
    """Counts of (gold, predicted) label pairs of the selected records, keyed
    `("pair", gold, predicted)`: the additive summary behind any F1."""

    pair: Callable[[Record], tuple[Hashable, Hashable]]

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        codes, labels = table.codes(self.pair, rows)
        seen = np.unique(codes)
        cells = np.bincount(unit_of * len(labels) + codes, minlength=units * len(labels))
        cells = cells.reshape(units, len(labels))
        if not len(seen):  # nothing selected: no pair counted, no F1
            return Summaries((), np.zeros((units, 0)))
        return _summaries({("pair", *labels[c]): cells[:, c] for c in seen.tolist()})


@dataclass(frozen=True)
class QuantityMean:
    """The mean of a quantity of the table (REASONING) over the selected records whose
    quantity is known (the metric's `quantity` keeps only those): `sum` and `n`."""

    quantity: str = REASONING

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        values = table.quantity(self.quantity)[rows]
        known = ~np.isnan(values)
        return _summaries({"sum": np.bincount(unit_of[known], weights=values[known],
                                              minlength=units),
                           "n": np.bincount(unit_of[known], minlength=units)})


@dataclass(frozen=True)
class ValueMean:
    """The mean of a value over the selected records: `sum` and `n`."""

    value: Callable[[Record], float]

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        values = table.values(self.value, rows)
        return _summaries({"sum": np.bincount(unit_of, weights=values, minlength=units),
                           "n": np.bincount(unit_of, minlength=units)})
