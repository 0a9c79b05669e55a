"""A suite's item records read once into columns, for metric definitions evaluated many
times over the same records (the headline metrics of `metrics.declare`: dozens per suite,
each with its own selection, resampling unit and summary).

Asking every definition to walk every record cost seconds for 100,000 records. Here

* a selection (`select(record) -> bool`) is evaluated once per **facet**: the records
  that agree on everything a selection may read (the item's tags and kind, the
  outcome's error and verdict, and the meta keys the table was built with) are one facet, and their one verdict is that of the
  facet's first record;
* a record-level value (a resampling unit, a label pair) is read once per function and
  interned as an integer code, so that summaries over units are numpy bincounts;
* whether each record was judged and right is an array (its facet's).

Which meta keys a selection reads is declared with its metric (`Metric.reads`, see
`metrics.declare`); a selection sees only those, its tags and kind, and the outcome's
`correct` and `error` (a guarded view: `UndeclaredRead` on anything else). A record's
*reasoning length* (`reasoning`, see `Reasoning`) is a quantity of the table instead: read
once for all the table's records into a float array, it is never part of a facet (every
record would be its own), so a selection cannot read it; a metric declares that it reads
it (`Metric.quantity`, and `band`: the records whose length lies in a range), and the
table answers with masks and arrays;
tests/test_interval_speed_paths.py checks on every bundled suite that the facets give each
selection the verdict it gives record by record. A table built with `meta_keys=None`
has one facet per record: any selection is then evaluated record by record.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_tom.core.lazy_numpy import np  # at its first use: an xdist worker never imports it
from pytest_tom.core.outcome import CUT_OFF, ERROR
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView, facet_rows, shows_reasoning
from pytest_tom.metrics.accuracy import is_judged, is_skipped

Select = Callable[[Record], bool]
# a record's value (a unit, a label), or a tuple of such functions (the tuple of values)
Key = Callable[[Record], Hashable] | tuple[Callable[[Record], Hashable], ...]


class _Missing:
    """A meta key a record does not have (apart from one holding None)."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()
_EMPTY: dict[str, Any] = {}


@dataclass
class Column:
    """A record-level value as integer codes: `codes[i]` indexes `labels` (-1: not read
    yet; values are read only for the records asked about)."""

    codes: np.ndarray
    labels: list[Hashable]
    index: dict[Hashable, int]

    def read(self, fn: Callable[[Record], Hashable], records: Sequence[Record],
             rows: np.ndarray) -> None:
        todo = rows[self.codes[rows] < 0]
        if not len(todo):
            return
        if len(todo) == len(records):
            values = list(map(fn, records))
        else:
            values = [fn(records[i]) for i in todo.tolist()]
        index = self.index
        for v in dict.fromkeys(values):  # the new values, in the order first read
            if v not in index:
                index[v] = len(self.labels)
                self.labels.append(v)
        self.codes[todo] = np.fromiter(map(index.__getitem__, values), dtype=np.int64,
                                       count=len(values))


class RecordTable:
    """The records of one suite (or of several, `concat`) as arrays and facets."""

    def __init__(self, records: Sequence[Record], meta_keys: Iterable[str] | None = ()):
        self.records = list(records)
        self.meta_keys: frozenset[str] | None = None if meta_keys is None else frozenset(meta_keys)
        if self.meta_keys is None:
            self.facet = np.arange(len(self.records), dtype=np.int64)
            self.representatives = self.records
        else:
            self.facet, self.representatives = _facets(self.records, sorted(self.meta_keys))
        # the outcome is part of every facet: each record's status is its facet's
        status = np.array([_status(r) for r in self.representatives], dtype=bool).reshape(-1, 4)
        self.skipped, self.judged, self.right, self.true = status[self.facet].T
        self._columns: dict[Any, Column] = {}
        self._orders: dict[Any, tuple[int, np.ndarray]] = {}
        self._facet_counts: np.ndarray | None = None
        self._views: dict[frozenset[str], list[Any]] = {}
        # results computed over this table (`keep`): a run evaluates each declared metric
        # for its value and again for its interval (a selection's verdicts, its summaries)
        self._kept: dict[Any, Any] = {}
        self._reasoning: Reasoning | None = None  # read at the first use (`reasoning`)

    def constant(self, fn: Callable[[Record], Hashable], value: Hashable) -> None:
        """Declare that `fn` gives `value` for every record (the suite of a suite's table),
        so that it is never read record by record."""
        self._columns[fn] = Column(np.zeros(len(self), dtype=np.int64), [value], {value: 0})

    def __len__(self) -> int:
        return len(self.records)

    def kept(self, key: Any) -> Any:
        """What `keep` stored under `key` (None when nothing, or `key` cannot be hashed)."""
        try:
            return self._kept.get(key)
        except TypeError:
            return None

    def keep(self, key: Any, value: Any) -> None:
        """Store a result computed over this table (its records never change), e.g. a
        metric's unit summaries, needed for its value and again for its interval."""
        with contextlib.suppress(TypeError):  # a key that cannot be hashed: computed again
            self._kept[key] = value

    # -- selections ------------------------------------------------------------------
    def verdicts(self, select: Select, reads: Iterable[str] = (), who: str = "") -> np.ndarray:
        """`select` of every facet (of its first record). On a faceted table the selection
        sees a guarded view of the record: the item's tags and kind, the outcome's
        `correct` and `error`, and the meta keys in `reads` (which the facets must
        include); reading anything else raises `UndeclaredRead`."""
        reads = frozenset(reads)
        kept = self.kept(("verdicts", select, reads))
        if kept is not None:
            return kept
        if self.meta_keys is None:
            verdicts = np.array([bool(select(r)) for r in self.representatives], dtype=bool)
        else:
            verdicts = self._guarded_verdicts(select, reads, who)
        verdicts.flags.writeable = False
        self.keep(("verdicts", select, reads), verdicts)
        return verdicts

    def _guarded_verdicts(self, select: Select, reads: frozenset[str], who: str) -> np.ndarray:
        assert self.meta_keys is not None
        if not reads <= self.meta_keys:
            raise UndeclaredRead(
                f"metric {who!r} reads meta key(s) {', '.join(sorted(reads - self.meta_keys))} "
                f"that the records were not read by (the table knows "
                f"{', '.join(sorted(self.meta_keys)) or 'none'}); declare them in the metric's "
                f"`reads`")
        views = self._views.get(reads)
        if views is None:
            views = self._views[reads] = [guarded(r, reads) for r in self.representatives]
        try:
            return np.array([bool(select(v)) for v in views], dtype=bool)
        except UndeclaredRead as exc:
            raise UndeclaredRead(f"metric {who!r}: {exc}") from None

    def selected(self, select: Select, reads: Iterable[str] = (), who: str = "") -> np.ndarray:
        """The mask of the records `select` picks (evaluated once per facet)."""
        verdicts = self.verdicts(select, reads, who)
        return verdicts[self.facet] if len(verdicts) else np.zeros(len(self), dtype=bool)

    def counts(self, select: Select, reads: Iterable[str] = (), who: str = "") -> tuple[int, int]:
        """(right, judged) among the records `select` picks."""
        if self._facet_counts is None:  # (right, judged) of every facet
            n = len(self.representatives)
            self._facet_counts = np.stack([np.bincount(self.facet[self.right], minlength=n),
                                           np.bincount(self.facet[self.judged], minlength=n)])
        verdicts = self.verdicts(select, reads, who)
        right, judged = self._facet_counts[:, verdicts].sum(axis=1).tolist()
        return right, judged

    # -- quantities: a number per record, read once into an array ------------------------
    @property
    def reasoning(self) -> Reasoning:
        """Every record's reasoning length and what it counts (read at the first use)."""
        if self._reasoning is None:
            self._reasoning = reasoning_of(self.records)
        return self._reasoning

    def quantity(self, name: str) -> np.ndarray:
        """The float array of quantity `name` (NaN: unknown for that record)."""
        if name != REASONING:
            raise KeyError(f"unknown quantity {name!r}: a metric may read {REASONING!r}")
        return self.reasoning.lengths

    def known(self, name: str) -> np.ndarray:
        """The mask of the records whose quantity `name` is known."""
        return ~np.isnan(self.quantity(name))

    def in_band(self, name: str, low: float | None, high: float | None) -> np.ndarray:
        """The mask of the records whose quantity `name` lies in (low, high] (None: open)."""
        values = self.quantity(name)
        mask = self.known(name)
        if low is not None:
            mask &= values > low
        if high is not None:
            mask &= values <= high
        return mask

    # -- record-level values -----------------------------------------------------------
    def codes(self, key: Key, rows: np.ndarray) -> tuple[np.ndarray, list[Hashable]]:
        """The codes of `key` for the records `rows` (indices) and the labels they index.
        A tuple of functions gives tuples of their values."""
        if isinstance(key, tuple):
            return self._joint_codes(key, rows)
        col = self._column(key)
        col.read(key, self.records, rows)
        return col.codes[rows], col.labels

    def units(self, key: Key, rows: np.ndarray) -> tuple[np.ndarray, list[Hashable]]:
        """`key`'s values for `rows` as units: (index of each row's unit, the units). The
        units are those the rows have, sorted by `str` (the order intervals resample)."""
        codes, labels = self.codes(key, rows)
        rank = self._order(key, labels)
        ranked = rank[codes]
        present = np.bincount(ranked, minlength=len(labels)) > 0
        new_index = np.cumsum(present) - 1
        by_rank = np.empty(len(labels), dtype=np.int64)
        by_rank[rank] = np.arange(len(labels))
        return new_index[ranked], [labels[i] for i in by_rank[present].tolist()]

    def values(self, fn: Callable[[Record], float], rows: np.ndarray) -> np.ndarray:
        """`fn` of the records `rows`, as floats."""
        return np.array([fn(self.records[i]) for i in rows.tolist()], dtype=np.float64)

    def _column(self, fn: Any) -> Column:
        col = self._columns.get(fn)
        if col is None:
            col = self._columns[fn] = Column(np.full(len(self), -1, dtype=np.int64), [], {})
        return col

    def _order(self, key: Key, labels: list[Hashable]) -> np.ndarray:
        if isinstance(key, tuple):  # labels of the rows asked about only: nothing to keep
            return _ranks(labels)
        cached = self._orders.get(key)
        if cached is None or cached[0] != len(labels):  # more labels read since
            cached = self._orders[key] = (len(labels), _ranks(labels))
        return cached[1]

    def _joint_codes(self, key: tuple[Callable[[Record], Hashable], ...],
                     rows: np.ndarray) -> tuple[np.ndarray, list[Hashable]]:
        parts = [self.codes(fn, rows) for fn in key]
        combined = np.zeros(len(rows), dtype=np.int64)
        for codes, labels in parts:
            combined = combined * max(1, len(labels)) + codes
        space = int(np.prod([max(1, len(labels)) for _, labels in parts], dtype=np.float64))
        if space <= 4 * len(rows) + 1024:  # few combinations: found by counting, not sorting
            present = np.bincount(combined, minlength=space) > 0
            uniq = np.flatnonzero(present)
            inverse = (np.cumsum(present) - 1)[combined]
        else:
            uniq, inverse = np.unique(combined, return_inverse=True)
        values = []  # each part's label of every combination, last part first
        for _, labels in reversed(parts):
            uniq, index = np.divmod(uniq, max(1, len(labels)))
            values.append([labels[i] for i in index.tolist()])
        return inverse.reshape(-1), list(zip(*reversed(values), strict=True))

    # -- several suites ------------------------------------------------------------------
    @classmethod
    def concat(cls, tables: Sequence[RecordTable]) -> RecordTable:
        """One table of the records of `tables` (in order), keeping what they have read:
        facets stay those of each table, values read by all of them are merged."""
        out = cls.__new__(cls)
        out.records = [r for t in tables for r in t.records]
        keys = [t.meta_keys for t in tables]
        out.meta_keys = (None if any(k is None for k in keys)
                         else frozenset.intersection(*keys) if keys else frozenset())
        for name in ("skipped", "judged", "right", "true"):
            setattr(out, name, np.concatenate([getattr(t, name) for t in tables])
                    if tables else np.zeros(0, dtype=bool))
        offsets = np.cumsum([0] + [len(t.representatives) for t in tables])
        out.facet = (np.concatenate([t.facet + off for t, off in zip(tables, offsets, strict=False)])
                     if tables else np.zeros(0, dtype=np.int64))
        out.representatives = [r for t in tables for r in t.representatives]
        out._columns = {}
        out._orders = {}
        out._facet_counts = None
        out._views = {}
        out._kept = {}
        out._reasoning = None
        shared = set.intersection(*(set(t._columns) for t in tables)) if tables else set()
        for fn in shared:
            col = out._column(fn)
            parts = []
            for t in tables:
                part = t._columns[fn]
                remap = [col.index.setdefault(v, len(col.index)) for v in part.labels]
                parts.append(np.append(np.array(remap, dtype=np.int64), -1)[part.codes])
            col.labels.extend(col.index)
            col.codes = np.concatenate(parts)
        return out


# -- the reasoning length ---------------------------------------------------------------
REASONING = "reasoning"  # the quantity: how long a record's model reasoned before answering
TOKENS, CHARACTERS = "tokens", "characters"
MEASURES = {TOKENS: "reasoning tokens", CHARACTERS: "thought length in characters"}
SOURCES = {TOKENS: "the reasoning tokens the model reported (usage.reasoning_tokens)",
           CHARACTERS: "the characters of the thought (no token count in every record)"}


@dataclass(frozen=True)
class Reasoning:
    """How long each record's model reasoned, and in what unit.

    `unit` is decided once for the records of a table: `tokens` when every answered
    record has a reasoning token count (`usage` and `cached_usage`: calls made now and
    calls answered by the response cache), else `characters`, the length of the record's
    thoughts (a server that gives no count: the thought's text is still known; a record
    with a token count but no thought text has no length then); "" when no record has a
    thought or a positive reasoning token count (a plain model: nothing to show). An
    errored record (no reply) has no length (NaN), nor one without a count or a text.

    A cut-off record (the budget ran out) was never answered: its length is only how far
    the thought got, a lower bound of the length it would have had. It is in `bounds`,
    never in `lengths` (so in no mean, median or quartile), and not asked whether it has
    a token count when the unit is decided."""

    lengths: np.ndarray  # float64, one per record; NaN: unknown (or cut off)
    unit: str  # TOKENS | CHARACTERS | ""
    bounds: np.ndarray | None = None  # float64: a cut-off record's lower bound, else NaN

    @property
    def measure(self) -> str:
        """What the lengths count, as the reports name it ("reasoning tokens")."""
        return MEASURES.get(self.unit, "")

    @property
    def source(self) -> str:
        """Where the lengths come from, in a few words."""
        return SOURCES.get(self.unit, "")


def reasoning_tokens(rec: Record) -> int | None:
    """The record's reasoning tokens (summed over its calls, cached ones included), or
    None when no call of it reported a count."""
    total = None
    view = RecordView(rec)
    for usage in (view.usage, view.cached_usage):
        if usage:
            count = usage.get("reasoning_tokens")
            if count is not None:
                total = (total or 0) + int(count)
    return total


def thought_characters(rec: Record) -> int | None:
    """The characters of the record's thoughts (0: no reply of it had one; None: the
    record has no thoughts but a positive reasoning token count, a reasoning kept
    hidden by the server)."""
    thoughts = RecordView(rec).thoughts
    if thoughts:
        return sum(len(t) for t in thoughts if t)
    return None if reasoning_tokens(rec) else 0


def reasoning_of(records: Sequence[Record]) -> Reasoning:
    """The reasoning length of every record (see `Reasoning`). A run that shows no
    reasoning costs one look at each record."""
    n = len(records)
    if not any(map(shows_reasoning, records)):
        return Reasoning(np.full(n, np.nan), "")
    statuses = [RecordView(r).status for r in records]
    answered = [s not in (ERROR, CUT_OFF) for s in statuses]
    cut = [s == CUT_OFF for s in statuses]
    tokens = [reasoning_tokens(r) for r in records]
    decide = answered if any(answered) else cut  # every item cut off: their unit
    if all(t is not None for t, ok in zip(tokens, decide, strict=True) if ok):
        unit, values = TOKENS, tokens
    else:
        unit, values = CHARACTERS, [thought_characters(r) for r in records]
    lengths = np.array([float(v) if ok and v is not None else np.nan
                        for v, ok in zip(values, answered, strict=True)], dtype=np.float64)
    bounds = np.array([float(v) if c and v is not None else np.nan
                       for v, c in zip(values, cut, strict=True)], dtype=np.float64)
    return Reasoning(lengths.reshape(n), unit, bounds.reshape(n))


def _ranks(labels: list[Hashable]) -> np.ndarray:
    """Each label's rank when the labels are sorted by their `str` (the order of units in
    an interval's resampling; ties keep the order the labels were first read)."""
    order = sorted(range(len(labels)), key=lambda i: str(labels[i]))
    out = np.empty(len(order), dtype=np.int64)
    out[order] = np.arange(len(order))
    return out


def _status(rec: Record) -> tuple[bool, bool, bool, bool]:
    """(skipped, judged, judged and right, `correct is True`), as `metrics.accuracy`
    counts them."""
    correct = RecordView(rec).correct
    judged = is_judged(rec)
    return is_skipped(rec), judged, judged and bool(correct), correct is True


def _facets(records: Sequence[Record], meta_keys: list[str]) -> tuple[np.ndarray, list[Record]]:
    """Each record's facet and one record of every facet (the first). A facet is what a
    selection may read, and the record's outcome status (so that it is the facet's)."""
    index: dict[Hashable, int] = {}
    representatives: list[Record] = []
    codes: list[int] = []
    append = codes.append
    missing = (MISSING,) * len(meta_keys)
    frozen = False  # once a meta value is unhashable (a list, say): every facet frozen
    for r, meta, tags, kind, error, correct in facet_rows(records, MISSING):
        metas = tuple(map((meta or _EMPTY).get, meta_keys, missing))
        if frozen:
            metas = tuple(map(_hashable, metas))
        facet = (tags, kind, error, correct, correct is True, *metas)
        try:
            code = index.get(facet)
        except TypeError:
            frozen = True  # the facets so far hold hashable values, which `_hashable` keeps
            facet = facet[:5] + tuple(map(_hashable, metas))
            code = index.get(facet)
        if code is None:
            code = index[facet] = len(representatives)
            representatives.append(r)
        append(code)
    return np.array(codes, dtype=np.int64), representatives


def _hashable(value: Any) -> Hashable:
    """`value` as a facet can hold it: a list or tuple as a tagged tuple of its elements, a
    dict as a tagged tuple of its items, anything else unhashable by its repr."""
    if isinstance(value, list | tuple):
        return ("<seq>", *map(_hashable, value))
    if isinstance(value, dict):
        return ("<dict>", *sorted((repr(k), _hashable(v)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        return ("<unhashable>", type(value).__name__, repr(value))
    return value


class UndeclaredRead(ValueError):
    """A selection read a field of the record it did not declare."""


ITEM_FIELDS = frozenset({"tags", "kind", "meta"})
OUTCOME_FIELDS = frozenset({"correct", "error"})


class _Guarded(Mapping):
    """A read-only view of a record's dict that allows only the declared keys; `views`
    holds the views of its nested dicts, made once (a selection runs for every facet of
    every declared metric: its reads must cost little).

    What a selection may see (the declared keys the dict has, a nested dict as its view)
    is read into `_visible` when the view is made, and whether there is any of it into
    `_any`: a read is then one lookup, and `meta(r) or {}` in a selection one attribute
    (the views are made once per facet and read by every selection, tens of thousands of
    times in a large run's aggregation). The records do not change while a table reads
    them."""

    __slots__ = ("_visible", "_allowed", "_path", "_any")

    def __init__(self, data: Any, allowed: frozenset[str], path: str,
                 views: dict[str, Any] | None = None) -> None:
        data = data if isinstance(data, dict) else _EMPTY
        visible = {k: v for k, v in data.items() if k in allowed}
        if views:
            visible.update((k, v) for k, v in views.items() if k in visible)
        self._visible: dict[str, Any] = visible
        self._allowed, self._path, self._any = allowed, path, bool(visible)

    def _refuse(self, key: object) -> UndeclaredRead:
        return UndeclaredRead(
            f"its selection reads {self._path}[{key!r}], which a selection may not read "
            f"(it sees the item's tags and kind, the outcome's correct and error, and the "
            f"meta keys it declares in `reads`); declare the meta key in `reads`, or "
            f"compute the value in the metric's summary instead of its selection (a "
            f"record's reasoning length: the metric's `quantity` and `band`)")

    def __getitem__(self, key: str) -> Any:
        value = self._visible.get(key, MISSING)
        if value is not MISSING:
            return value
        if key in self._allowed:
            raise KeyError(key)
        raise self._refuse(key)

    def get(self, key: str, default: Any = None) -> Any:
        value = self._visible.get(key, MISSING)
        if value is not MISSING:
            return value
        if key in self._allowed:
            return default
        raise self._refuse(key)

    def __contains__(self, key: object) -> bool:
        if key in self._visible:
            return True
        if key in self._allowed:
            return False
        raise self._refuse(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._visible)

    def __len__(self) -> int:
        return len(self._visible)

    def __bool__(self) -> bool:  # `meta(r) or {}` in selections
        return self._any


def guarded(rec: Record, reads: frozenset[str]) -> Any:
    """`rec` as a selection may see it: `UndeclaredRead` on any other field."""
    view = RecordView(rec)
    meta = view.meta_or_none
    views = {} if meta is None else {"meta": _Guarded(meta, reads, "item['meta']")}
    item = _Guarded(view.item, ITEM_FIELDS, "item", views)
    outcome = _Guarded(view.outcome, OUTCOME_FIELDS, "outcome")
    return _Guarded({"item": item, "outcome": outcome}, frozenset({"item", "outcome"}),
                    "record")
