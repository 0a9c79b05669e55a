"""95% intervals for scores: Wilson for a proportion of independent units, a seeded
cluster bootstrap for everything computed over groups (goal accuracy, ALL*, macro-F1,
joint scores), and the paired versions of both used to compare two runs.

Why two methods. A turn accuracy is a count of right items out of n judged items:
the Wilson score interval is the standard interval for a binomial proportion and,
unlike the textbook p ± 1.96·se, it stays inside [0, 1] and keeps its coverage near
0% and 100% and for small n. A grouped metric is not a count of independent items
(a set is right only if all its questions are; an F1 pools labels), so its
uncertainty comes from resampling the units the benchmark is built of: the groups
(scenarios, FANToM sets, robustness sceneries) are drawn with replacement, the metric
is computed on each resample, and the 2.5th and 97.5th percentiles are the interval.

Fast and exact on any duplicate. Each group is first reduced to an additive summary
(e.g. `{"ok": 1, "n": 1}` for "all right", or counts of (gold, predicted) label pairs
for an F1); a resample sums the summaries of the drawn groups and the metric is
computed from the sum. A group drawn twice simply counts twice (no item ids to
collide). The summaries of all groups are one matrix (`Summaries`: groups × keys) and
the resampling is done with numpy, a chunk of resamples at a time: the draws are an
integer matrix of group indices (resamples × groups); a key whose summary is the same
in every group sums to that times the number of groups, a single other key is summed
by indexing its column with the draws, several are summed as draw counts (a bincount)
times their columns. Every metric has an array form (`finish.batch`) computed on the
summed columns of all resamples at once: ratios and means, and the F1s, whose array
forms add up the same terms in the same order as their scalar forms (so a resample
gets the same number either way). The point estimate always comes from the scalar form
on the summed `Counter`.

Reproducible: the resampling uses `numpy.random.default_rng(seed)` with a seed derived
from the run's seed, the scope and the metric's name, so the same report gives the same
intervals on any machine (numpy keeps the default generator's stream stable).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from pytest_tom.core.lazy_numpy import np  # at its first use: an xdist worker never imports it
from pytest_tom.metrics.macro_f1 import UNPARSED

LEVEL = 0.95
Z95 = 1.959963984540054  # the standard normal quantile of 0.975
RESAMPLES = 1000

Summary = Counter  # an additive summary of one group
Finish = Callable[[Counter], "float | None"]


class IntervalJSON(TypedDict, total=False):
    """An interval's JSON form (`Interval.to_dict`, `MetricInterval.to_dict`): a report's
    `intervals` blocks keep it (`results.results.interval_of` reads it back)."""

    value: float | None
    low: float | None
    high: float | None
    level: float
    method: str
    n: int
    resamples: int  # bootstrap only
    seed: int | None  # bootstrap only
    label: str  # a metric's (`MetricInterval`) from here on
    headline: bool
    display: str  # "amount" only


class PairedFiguresJSON(TypedDict):
    """The figures of a paired difference (`PairedDiff.figures`): what the comparison's and
    the sweep's JSON forms of one both hold."""

    a: float | None
    b: float | None
    delta: float | None
    low: float | None
    high: float | None
    p_value: float | None
    test: str
    n: int


class PairedDiffJSON(PairedFiguresJSON):
    """A paired difference's JSON form in a comparison (`PairedDiff.to_dict`)."""

    worse: int
    better: int


@dataclass(frozen=True)
class Interval:
    """A point estimate with its interval; `method` is "wilson" or "bootstrap"."""

    value: float | None
    low: float | None
    high: float | None
    method: str
    n: int  # items (Wilson) or groups (bootstrap) behind the estimate
    resamples: int = 0
    seed: int | None = None

    def to_dict(self) -> IntervalJSON:
        """The interval's JSON form (the report's `intervals` blocks)."""
        out: IntervalJSON = {"value": self.value, "low": self.low, "high": self.high,
                             "level": LEVEL, "method": self.method, "n": self.n}
        if self.method == "bootstrap":  # "wilson", "wilson over groups" need no more
            out["resamples"], out["seed"] = self.resamples, self.seed
        return out


@dataclass(frozen=True)
class MetricInterval(Interval):
    """The interval of one metric of a suite or of the totals, as the reports show it: the
    `Interval` with the metric's label, whether it is a headline metric, and `display`
    (`metrics.numbers.AMOUNT` for a figure that is not a share, a mean of reasoning tokens;
    "": a share, shown as its metric is). It stays
    this object from `results.headline` to the JSON writer and back from a saved report
    (`results.results.interval_of`)."""

    label: str = ""
    headline: bool = False
    display: str = ""

    @classmethod
    def of(cls, iv: Interval, label: str, headline: bool, display: str = "") -> MetricInterval:
        return cls(iv.value, iv.low, iv.high, iv.method, iv.n, iv.resamples, iv.seed,
                   label, headline, display)

    def to_dict(self) -> IntervalJSON:
        out: IntervalJSON = {**super().to_dict(), "label": self.label, "headline": self.headline}
        if self.display:  # a share writes none
            out["display"] = self.display
        return out


def wilson(right: int, n: int, z: float = Z95) -> Interval:
    """The Wilson score interval of right/n (None bounds when n is 0)."""
    if n <= 0:
        return Interval(None, None, None, "wilson", 0)
    p = right / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # exact at the edges (rounding would otherwise put 0 or 1 a hair outside)
    low = 0.0 if right == 0 else max(0.0, centre - half)
    high = 1.0 if right == n else min(1.0, centre + half)
    return Interval(p, low, high, "wilson", n)


MEDIAN_METHOD = "order statistics"


def median_interval(values: Sequence[float] | np.ndarray) -> Interval:
    """The median of `values` with its distribution-free 95% interval: the order statistics
    x(l) and x(n+1-l), l the largest rank with P(B < l) <= 2.5% for B ~ Binomial(n, 1/2)
    (the number of values below the true median), so the interval covers the median with
    at least 95% whatever the distribution. The values are independent units, as the
    items of a turn accuracy's Wilson interval are. Fewer than 6 values: no interval."""
    data = np.sort(np.asarray(values, dtype=np.float64))
    n = len(data)
    if n == 0:
        return Interval(None, None, None, MEDIAN_METHOD, 0)
    value = float(np.median(data))
    rank = _median_rank(n)
    if rank < 1:
        return Interval(value, None, None, MEDIAN_METHOD, n)
    return Interval(value, float(data[rank - 1]), float(data[n - rank]), MEDIAN_METHOD, n)


def _median_rank(n: int, alpha: float = (1 - LEVEL) / 2) -> int:
    """The largest l with P(B <= l - 1) <= alpha, B ~ Binomial(n, 1/2) (0: none). The sum
    starts where the tail below is negligible (under 1e-11), so a large n costs a few
    hundred terms, each computed in logs."""
    start = max(0, math.floor(n / 2 - 3.5 * math.sqrt(n)))
    log_half = n * math.log(0.5)
    lg = math.lgamma(n + 1)
    cdf = 0.0
    for i in range(start, n + 1):
        cdf += math.exp(lg - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half)
        if cdf > alpha:
            return i  # P(B <= i - 1) <= alpha < P(B <= i): l = i
    return n


def derive_seed(seed: int, *names: str) -> int:
    """A 64-bit seed from the run's seed and names (stable across processes and runs)."""
    text = "\x1f".join([str(seed), *names])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) by linear interpolation between order statistics."""
    if len(sorted_values) == 0:
        raise ValueError("no values")
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return float(sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo))


def total(summaries: Sequence[Counter]) -> Counter:
    out: Counter = Counter()
    for s in summaries:
        out.update(s)
    return out


@dataclass(frozen=True)
class Summaries:
    """The additive summaries of n groups as one matrix: a row per group, a column per
    key (keys in the order of their `repr`, so that any two builds agree)."""

    keys: tuple[Hashable, ...]
    matrix: np.ndarray  # float64, (groups, keys); counts are exact in float64

    @classmethod
    def of(cls, counters: Sequence[Counter]) -> Summaries:
        keys = tuple(sorted({k for c in counters for k in c}, key=repr))
        matrix = np.array([[float(c.get(k, 0)) for k in keys] for c in counters],
                          dtype=np.float64).reshape(len(counters), len(keys))
        return cls(keys, matrix)

    def __len__(self) -> int:
        return len(self.matrix)

    def total(self) -> Counter:
        """The sum over groups as a `Counter`: added up group after group (a cumulative
        sum, so float sums come out as the running sum of the groups in order), counts
        back to ints."""
        if not len(self):
            return Counter()
        sums = np.cumsum(self.matrix, axis=0)[-1]
        return Counter({k: _number(v) for k, v in zip(self.keys, sums.tolist(), strict=True)})

    def rows(self) -> list[Counter]:
        """One `Counter` per group (counts as ints)."""
        return [Counter({k: _number(v) for k, v in zip(self.keys, row, strict=True)})
                for row in self.matrix.tolist()]


# how many drawn group indices (resamples × groups) one chunk of resamples may hold: a
# chunk's arrays stay within the processor's caches. The chunking does not change the
# draws: numpy draws bounded integers below 2**32 from a 32-bit stream whose leftover
# half-word the generator keeps between calls (tests/test_intervals.py checks it).
CHUNK_CELLS = 1 << 16
# up to this many keys that differ between groups are summed column by column (indexing
# with the draws); more, as draw counts times their columns (with einsum: a BLAS product
# may start threads, which on a busy machine cost more than they save)
GATHER_KEYS = 3


class Resampler:
    """Sums of group summaries over resamples (see the module docstring)."""

    def __init__(self, summaries: Summaries):
        self.keys = summaries.keys
        self.n = len(summaries)
        matrix = summaries.matrix
        same = (matrix == matrix[:1]).all(axis=0) if self.n else np.ones(len(self.keys), bool)
        # a key equal in every group sums to n times its value in any resample
        self.fixed = {k: float(matrix[0, j]) * self.n if self.n else 0.0
                      for j, k in enumerate(self.keys) if same[j]}
        self.varying = [k for j, k in enumerate(self.keys) if not same[j]]
        self.columns = np.asfortranarray(matrix[:, ~same])  # a column's values contiguous

    def resamples(self, rng: np.random.Generator,
                  resamples: int) -> Iterator[tuple[int, dict[Hashable, np.ndarray]]]:
        """(m, the summed summaries of m resamples) chunk by chunk. When no key differs
        between groups every resample sums to the same, and nothing needs drawing."""
        for m in chunks(resamples, self.n):
            draws = (self.draws(rng, m) if self.varying
                     else np.empty((m, 0), dtype=np.int32))
            yield m, self.sums(draws)

    def draws(self, rng: np.random.Generator, resamples: int) -> np.ndarray:
        """Group indices of `resamples` resamples of the n groups (with replacement), one
        row per resample. 32-bit indices are the same draws as 64-bit ones, faster."""
        dtype = np.int32 if self.n < 2**31 else np.int64
        return rng.integers(0, self.n, size=(resamples, self.n), dtype=dtype)

    def sums(self, draws: np.ndarray) -> dict[Hashable, np.ndarray]:
        """Key -> the summed summary of every resample (one value per row of `draws`)."""
        m = len(draws)
        out = {k: np.full(m, v) for k, v in self.fixed.items()}
        if len(self.varying) <= GATHER_KEYS:
            for j, k in enumerate(self.varying):
                out[k] = np.take(self.columns[:, j], draws).sum(axis=1)
        else:
            flat = draws + (np.arange(m, dtype=draws.dtype) * self.n)[:, None]
            counts = np.bincount(flat.ravel(), minlength=m * self.n).reshape(m, self.n)
            summed = np.einsum("mn,nk->mk", counts.astype(np.float64), self.columns)
            out.update({k: summed[:, j] for j, k in enumerate(self.varying)})
        return out


def chunks(resamples: int, n: int) -> list[int]:
    """Resamples per chunk, so that no chunk's draw matrix exceeds CHUNK_CELLS cells."""
    size = max(1, CHUNK_CELLS // max(1, n))
    return [min(size, resamples - i) for i in range(0, resamples, size)]


def apply(finish: Finish, sums: dict[Hashable, np.ndarray], m: int) -> np.ndarray:
    """The metric of each of m resamples (NaN where undefined): with the finish's array
    form when it has one (`finish.batch`), else one `Counter` per resample."""
    batch = getattr(finish, "batch", None)
    if batch is not None:
        return np.asarray(batch(sums, m), dtype=np.float64)
    out = np.empty(m, dtype=np.float64)
    keys = list(sums)
    cols = [sums[k].tolist() for k in keys]
    for i in range(m):
        c = Counter({k: _number(col[i]) for k, col in zip(keys, cols, strict=True) if col[i]})
        v = finish(c)
        out[i] = np.nan if v is None else v
    return out


def _number(x: float) -> float | int:
    """Counts back to ints (sums of integer summaries are exact in float64)."""
    return int(x) if float(x).is_integer() else x


MIN_GROUPS = 2  # a bootstrap over fewer groups has no interval


def bootstrap(summaries: Sequence[Counter] | Summaries, finish: Finish, seed: int,
              resamples: int = RESAMPLES) -> Interval:
    """Percentile interval of `finish(sum of summaries)` over resamples of the groups.

    Resamples where the metric is undefined (None: no item of its kind was drawn) are
    left out; if fewer than half are defined the interval is not given. With fewer than
    2 groups there is no spread to resample: no interval (not a zero-width one).
    """
    if not isinstance(summaries, Summaries):
        summaries = Summaries.of(summaries)
    value = finish(summaries.total())
    n = len(summaries)
    if value is None or n < MIN_GROUPS:
        return Interval(value, None, None, "bootstrap", n, resamples, seed)
    rng = np.random.default_rng(seed)
    sampler = Resampler(summaries)
    parts = [apply(finish, sums, m) for m, sums in sampler.resamples(rng, resamples)]
    stats = np.concatenate(parts) if parts else np.empty(0)
    stats = np.sort(stats[~np.isnan(stats)])
    if len(stats) < resamples / 2 or not len(stats):
        return Interval(value, None, None, "bootstrap", n, resamples, seed)
    alpha = (1 - LEVEL) / 2
    return Interval(value, percentile(stats, alpha), percentile(stats, 1 - alpha), "bootstrap",
                    n, resamples, seed)


@dataclass(frozen=True)
class PairedDiff:
    """Difference B − A on shared units, its interval, and a two-sided p-value."""

    a: float | None
    b: float | None
    delta: float | None
    low: float | None
    high: float | None
    p_value: float | None
    test: str  # "mcnemar" or "paired bootstrap"
    n: int  # paired items (McNemar) or shared groups (bootstrap)
    worse: int = 0  # McNemar: right in A, wrong in B
    better: int = 0  # McNemar: wrong in A, right in B

    def figures(self) -> PairedFiguresJSON:
        return {"a": self.a, "b": self.b, "delta": self.delta, "low": self.low,
                "high": self.high, "p_value": self.p_value, "test": self.test, "n": self.n}

    def to_dict(self) -> PairedDiffJSON:
        return {**self.figures(), "worse": self.worse, "better": self.better}


def paired_bootstrap(pairs: Sequence[tuple[Counter, Counter]], finish: Finish, seed: int,
                     resamples: int = RESAMPLES) -> PairedDiff:
    """Resample shared groups (the same draw for both runs). The interval of the difference
    is the percentile interval; the p-value is that of the bootstrap test of "no
    difference" (Efron and Tibshirani 1993, 16.4): the resampled differences, shifted to
    centre on zero, as far from zero as the observed one, (1 + count) / (1 + resamples).
    """
    n = len(pairs)
    a = finish(total([p[0] for p in pairs]))
    b = finish(total([p[1] for p in pairs]))
    if a is None or b is None or n == 0:
        return PairedDiff(a, b, None, None, None, None, "paired bootstrap", n)
    rng = np.random.default_rng(seed)
    first = Resampler(Summaries.of([p[0] for p in pairs]))
    second = Resampler(Summaries.of([p[1] for p in pairs]))
    parts = []
    for m in chunks(resamples, n):
        draws = first.draws(rng, m)  # the same draw of groups for both runs
        parts.append(apply(finish, second.sums(draws), m) - apply(finish, first.sums(draws), m))
    diffs = np.concatenate(parts) if parts else np.empty(0)
    diffs = np.sort(diffs[~np.isnan(diffs)])
    delta = b - a
    if len(diffs) < resamples / 2 or not len(diffs):
        return PairedDiff(a, b, delta, None, None, None, "paired bootstrap", n)
    alpha = (1 - LEVEL) / 2
    m = len(diffs)
    far = int(np.count_nonzero(np.abs(diffs - delta) >= abs(delta) - 1e-12))
    p = min(1.0, (1 + far) / (1 + m))
    return PairedDiff(a, b, delta, percentile(diffs, alpha), percentile(diffs, 1 - alpha), p,
                      "paired bootstrap", n)


# -- additive summaries and their metrics ------------------------------------------------
def ratio_of(num: str = "ok", den: str = "n") -> Finish:
    """`sum[num] / sum[den]` (None when the denominator is 0)."""
    def finish(c: Counter) -> float | None:
        return c[num] / c[den] if c[den] else None
    finish.batch = ratio_batch(num, den)  # type: ignore[attr-defined]
    return finish


def ratio_batch(num: Hashable, den: Hashable) -> Callable[[dict[Hashable, np.ndarray], int],
                                                            np.ndarray]:
    """The array form of `sum[num] / sum[den]` over resamples (NaN when the denominator is 0)."""
    def batch(sums: dict[Hashable, np.ndarray], m: int) -> np.ndarray:
        zero = np.zeros(m)
        top, bottom = sums.get(num, zero), sums.get(den, zero)
        out = np.full(m, np.nan)
        np.divide(top, bottom, out=out, where=bottom != 0)
        return out
    return batch


def label_pairs(gold: Sequence[Hashable], predicted: Sequence[Hashable | None]) -> Counter:
    """Counts of (gold, predicted) pairs: the additive summary behind any F1."""
    return Counter(("pair", g, p) for g, p in zip(gold, predicted, strict=True))


def _pairs(c: Counter | dict[Hashable, Any]) -> list[tuple[Hashable, Hashable, Any]]:
    """The (gold, predicted, count) of the label-pair keys of a summary (or of its sums
    over resamples); other keys are not label pairs and are ignored."""
    return [(key[1], key[2], count) for key, count in c.items()
            if isinstance(key, tuple) and len(key) == 3 and key[0] == "pair"]


def macro_f1_of(c: Counter) -> float | None:
    """Macro F1 of summed (gold, predicted) pair counts, exactly as `metrics.macro_f1`: a
    None prediction (no usable answer) is the label `unparsed`, a class with no true
    positive, and the average runs over every label seen as gold or as a prediction."""
    tp: Counter = Counter()
    fp: Counter = Counter()
    fn: Counter = Counter()
    for g, p, count in _pairs(c):
        if count <= 0:
            continue
        p = UNPARSED if p is None else p
        if p == g:
            tp[g] += count
        else:
            fn[g] += count
            fp[p] += count
    labels = sorted(set(tp) | set(fp) | set(fn), key=repr)  # a fixed order: same float sum
    if not labels:
        return None
    return sum(2 * tp[lab] / (2 * tp[lab] + fp[lab] + fn[lab]) for lab in labels) / len(labels)


def _macro_f1_batch(sums: dict[Hashable, np.ndarray], m: int) -> np.ndarray:
    """`macro_f1_of` of every resample: the same terms added in the same order (a label
    no pair of a resample names adds nothing there and is not counted)."""
    zero = np.zeros(m)
    tp: dict[Hashable, np.ndarray] = {}
    fp: dict[Hashable, np.ndarray] = {}
    fn: dict[Hashable, np.ndarray] = {}
    for g, p, count in _pairs(sums):
        count = np.maximum(count, 0.0)
        p = UNPARSED if p is None else p
        if p == g:
            tp[g] = tp.get(g, zero) + count
        else:
            fn[g] = fn.get(g, zero) + count
            fp[p] = fp.get(p, zero) + count
    total = np.zeros(m)
    labels = np.zeros(m)
    with np.errstate(divide="ignore", invalid="ignore"):
        for lab in sorted(set(tp) | set(fp) | set(fn), key=repr):
            t, f_p, f_n = tp.get(lab, zero), fp.get(lab, zero), fn.get(lab, zero)
            seen = t + f_p + f_n > 0
            total += np.where(seen, 2 * t / (2 * t + f_p + f_n), 0.0)
            labels += seen
        return np.where(labels > 0, total / labels, np.nan)


macro_f1_of.batch = _macro_f1_batch  # type: ignore[attr-defined]


def weighted_f1_of(c: Counter) -> float | None:
    """Support-weighted F1 (as `metrics.weighted_f1`): every prediction is a label there,
    so a None prediction is kept as a label of its own."""
    tp: Counter = Counter()
    n_pred: Counter = Counter()
    n_gold: Counter = Counter()
    for g, p, count in _pairs(c):
        if count <= 0:
            continue
        n_gold[g] += count
        n_pred[p] += count
        if g == p:
            tp[g] += count
    n = sum(n_gold.values())
    if not n:
        return None
    out = 0.0
    for label, support in sorted(n_gold.items(), key=lambda kv: repr(kv[0])):
        prec = tp[label] / n_pred[label] if n_pred[label] else 0.0
        rec = tp[label] / support
        out += support * (2 * prec * rec / (prec + rec) if prec + rec else 0.0)
    return out / n


def _weighted_f1_batch(sums: dict[Hashable, np.ndarray], m: int) -> np.ndarray:
    """`weighted_f1_of` of every resample: the same terms added in the same order (a gold
    label absent from a resample adds nothing there)."""
    zero = np.zeros(m)
    tp: dict[Hashable, np.ndarray] = {}
    n_pred: dict[Hashable, np.ndarray] = {}
    n_gold: dict[Hashable, np.ndarray] = {}
    for g, p, count in _pairs(sums):
        count = np.maximum(count, 0.0)
        n_gold[g] = n_gold.get(g, zero) + count
        n_pred[p] = n_pred.get(p, zero) + count
        if g == p:
            tp[g] = tp.get(g, zero) + count
    n = sum(n_gold.values(), zero)
    out = np.zeros(m)
    with np.errstate(divide="ignore", invalid="ignore"):
        for label in sorted(n_gold, key=repr):
            support, t, pred = n_gold[label], tp.get(label, zero), n_pred.get(label, zero)
            prec = np.where(pred > 0, t / pred, 0.0)
            rec = t / support
            f1 = np.where(prec + rec > 0, 2 * prec * rec / (prec + rec), 0.0)
            out += np.where(support > 0, support * f1, 0.0)
        return np.where(n > 0, out / n, np.nan)


weighted_f1_of.batch = _weighted_f1_batch  # type: ignore[attr-defined]
