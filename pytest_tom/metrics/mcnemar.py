"""Paired comparison of two runs on the items they share, and the exact McNemar test.

Two runs answer the same items; each shared item is either unchanged, or it
got worse (right -> wrong: a *newly wrong* item, the count `b`) or better
(wrong -> right: *newly right*, the count `c`). Under the hypothesis that
the two runs are equally good, each of the `n = b + c` discordant items is
equally likely to have gone either way, so `b` follows Binomial(n, 1/2). The
exact (two-sided) McNemar test is that binomial test:

    p = min(1, 2 * P(X <= min(b, c)))   with X ~ Binomial(n, 1/2)

Computed with exact integers (`math.comb` and its recurrence), no scipy; above
20,000 discordant pairs the same sum is taken in log space with floats.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView
from pytest_tom.core.record_view import key_of as record_key

Key = tuple[str, str]  # (suite, item id)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for `b` and `c` discordant pairs (1.0 when none)."""
    if b < 0 or c < 0:
        raise ValueError("counts of discordant pairs cannot be negative")
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    if n > EXACT_LIMIT:
        return min(1.0, 2 * math.exp(_log_tail(n, k)))
    # exact integers: C(n, k), then C(n, i-1) = C(n, i) * i / (n - i + 1) down to i = 0
    term = math.comb(n, k)
    tail = term
    for i in range(k, 0, -1):
        term = term * i // (n - i + 1)
        tail += term
    return min(1.0, 2 * tail / (1 << n))


def smallest_significant(paired: int, alpha: float) -> int | None:
    """The fewest newly wrong items (none newly right) among `paired` shared items that the
    exact McNemar test calls significant at `alpha`; None when even all of them would not
    be. The power statement of a baseline gate: no smaller drop can fail it."""
    if alpha >= 1:
        return 1 if paired else None
    # p(k, 0) = 2 / 2**k halves with each item: k = ceil(log2(2 / alpha)), checked exactly
    k = max(1, math.ceil(math.log2(2 / alpha)) - 1)
    while k <= paired and mcnemar_exact(k, 0) > alpha:
        k += 1
    return k if k <= paired else None


EXACT_LIMIT = 20_000  # above this many discordant pairs, sum in log space (floats)


def _log_tail(n: int, k: int) -> float:
    """log P(X <= k), X ~ Binomial(n, 1/2), by a log-sum-exp of the terms."""
    log_half_n = n * math.log(2)
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - log_half_n
            for i in range(k + 1)]
    top = max(logs)
    return top + math.log(sum(math.exp(v - top) for v in logs))


def key_of(rec: Record) -> Key:
    return record_key(rec)


def score_of(rec: Record, measured: bool = False) -> float | None:
    """1/0 for an item judged right/wrong; with `measured`, the value of a measured item.

    None for what cannot be compared: skipped items, and measured items unless asked.
    """
    view = RecordView(rec)
    if view.outcome_or_none is None:
        return None
    if view.error == "unavailable":
        return None
    if view.correct is not None:
        return 1.0 if view.correct else 0.0
    value = view.value
    if measured and isinstance(value, int | float):
        return float(value)
    return None


@dataclass(slots=True)
class Pair:
    key: Key
    before: Record
    after: Record
    scores: tuple[float | None, float | None, float | None, float | None] = (None,) * 4

    def __post_init__(self) -> None:
        # (before, after) judged only, then (before, after) with measured values
        self.scores = (score_of(self.before), score_of(self.after),
                       score_of(self.before, True), score_of(self.after, True))


@dataclass
class Pairing:
    """The items of two runs matched by (suite, item id)."""

    pairs: list[Pair] = field(default_factory=list)
    new: list[Key] = field(default_factory=list)  # only in the current run
    removed: list[Key] = field(default_factory=list)  # only in the baseline

    _by_suite: dict[str, list[Pair]] | None = field(default=None, repr=False)

    def of_suite(self, suite: str) -> list[Pair]:
        if self._by_suite is None:
            self._by_suite = {}
            for p in self.pairs:
                self._by_suite.setdefault(p.key[0], []).append(p)
        return self._by_suite.get(suite, [])

    def changes(self, keep: Callable[[Record], bool] = lambda r: True,
                measured: bool = False, suite: str | None = None) -> Comparison:
        """Newly wrong / newly right items among the pairs (of one suite, if given) whose
        current record passes `keep`."""
        cmp = Comparison()
        for p in self.pairs if suite is None else self.of_suite(suite):
            if not keep(p.after):
                continue
            a, b = (p.scores[2], p.scores[3]) if measured else (p.scores[0], p.scores[1])
            if a is None or b is None:
                if a is not None or b is not None:
                    cmp.incomparable.append(p.key)
                continue
            cmp.paired += 1
            if b < a:
                cmp.worse.append(p.key)
            elif b > a:
                cmp.better.append(p.key)
        return cmp


@dataclass
class Comparison:
    paired: int = 0  # items judged (or measured) in both runs
    worse: list[Key] = field(default_factory=list)  # newly wrong (or lower value)
    better: list[Key] = field(default_factory=list)  # newly right (or higher value)
    incomparable: list[Key] = field(default_factory=list)  # judged in one run only

    @property
    def p_value(self) -> float:
        return mcnemar_exact(len(self.worse), len(self.better))


def pair_records(baseline: Iterable[Record], current: Iterable[Record]) -> Pairing:
    before = {key_of(r): r for r in baseline}
    after = {key_of(r): r for r in current}
    pairing = Pairing()
    for key in sorted(after):
        if key in before:
            pairing.pairs.append(Pair(key, before[key], after[key]))
        else:
            pairing.new.append(key)
    pairing.removed = sorted(k for k in before if k not in after)
    return pairing

