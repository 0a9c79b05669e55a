"""Whether a question is right: the majority vote of its tries (one try under the default
protocol, where the vote is that answer), and the summaries of the grouped metrics built on
it.

Each try's outcome carries the file's letter its reply stands for (`extra["vote"]`, None
when it stands for none: an unreadable reply or a failed request).

* Correct reading: the question is right when its right letter has more votes than any
  other letter and more than the tries that named none; a tie is no majority, so not right.
* Authors' reading, as get_results.py: the most frequent vote, a tie going to the vote met
  first in try order, compared with the answer as the release writes it (so the one
  question whose answer is written `"A. "` is never right).

A question is one resampling unit (its scenario): the summaries below give each question
one `ok`/`n` (a share of questions), or one `ok`/`n` per group it belongs to (a task, an
ability) for the averages over groups."""

from __future__ import annotations

from collections import Counter
from collections import defaultdict
from collections.abc import Callable
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from pytest_tom.families.kit import Record
from pytest_tom.families.kit import RecordTable
from pytest_tom.families.kit import RecordView
from pytest_tom.families.kit import Summaries
from pytest_tom.families.kit import np


def vote_of(rec: Record) -> str | None:
    return RecordView(rec).extra.get("vote")


def majority_right(tries: list[Record], as_authors: bool) -> bool:
    """Is a question right by the vote of its tries (in try order)?"""
    meta = RecordView(tries[0]).meta
    votes = [vote_of(r) for r in tries]
    if as_authors:
        counts = Counter(v or "" for v in votes)
        top = max(counts, key=counts.__getitem__)  # the first met of the most frequent
        return top == meta["answer_as_released"]
    counts = Counter(votes)
    gold = meta["answer"]
    return counts[gold] > max((c for v, c in counts.items() if v != gold), default=0)


def question_right(table: RecordTable, as_authors: bool) -> np.ndarray:
    """For every record of the table: is its question right by the vote of all its tries
    in the table? Computed once per table and reading."""
    key = ("tombench-question-right", as_authors)
    kept = table.kept(key)
    if kept is not None:
        return kept
    rows_of: dict[Hashable, list[int]] = defaultdict(list)
    for i, rec in enumerate(table.records):
        rows_of[RecordView(rec).scenario].append(i)
    right = np.zeros(len(table), dtype=bool)
    for rows in rows_of.values():
        tries = sorted((table.records[i] for i in rows), key=lambda r: RecordView(r).meta["try"])
        right[rows] = majority_right(tries, as_authors)
    table.keep(key, right)
    return right


def _columns(columns: dict[Hashable, np.ndarray], units: int) -> Summaries:
    keys = sorted(columns, key=repr)
    if not keys:
        return Summaries((), np.zeros((units, 0)))
    matrix = np.column_stack([columns[k].astype(np.float64) for k in keys])
    return Summaries(tuple(keys), matrix.reshape(units, len(keys)))


@dataclass(frozen=True)
class QuestionRight:
    """A question is `ok` when right by the vote of its tries: `ok` 1 or 0, `n` 1."""

    as_authors: bool

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        right = question_right(table, self.as_authors)[rows]
        counted = np.bincount(unit_of, minlength=units) > 0
        ok = np.bincount(unit_of[right], minlength=units) > 0
        return _columns({"n": counted, "ok": ok & counted}, units)


@dataclass(frozen=True)
class GroupShares:
    """Per group a question belongs to (`groups`: its task, or its abilities): `("n", g)`
    1 and `("ok", g)` 1 when the question is right; summed over questions these are each
    group's right and asked questions, which `mean_of_shares` averages."""

    groups: Callable[[Record], tuple[Any, ...]]
    as_authors: bool

    def __call__(self, table: RecordTable, rows: np.ndarray, unit_of: np.ndarray,
                 units: int) -> Summaries:
        right = question_right(table, self.as_authors)[rows]
        members: dict[Any, list[int]] = defaultdict(list)
        for pos, row in enumerate(rows.tolist()):
            for group in self.groups(table.records[row]):
                members[group].append(pos)
        columns: dict[Hashable, np.ndarray] = {}
        for group, positions in members.items():
            at = np.array(positions, dtype=np.int64)
            counted = np.bincount(unit_of[at], minlength=units) > 0
            columns[("n", group)] = counted
            columns[("ok", group)] = (np.bincount(unit_of[at][right[at]], minlength=units) > 0) & counted
        return _columns(columns, units)


def _groups(c: Counter | dict[Hashable, Any]) -> list[Any]:
    return sorted((k[1] for k in c if isinstance(k, tuple) and len(k) == 2 and k[0] == "n"),
                  key=repr)


def mean_of_shares(c: Counter) -> float | None:
    """The unweighted mean over groups of each group's share of right questions (groups with
    no question left out; None when there is none)."""
    shares = [c[("ok", g)] / c[("n", g)] for g in _groups(c) if c[("n", g)]]
    return sum(shares) / len(shares) if shares else None


def _mean_of_shares_batch(sums: dict[Hashable, np.ndarray], m: int) -> np.ndarray:
    """`mean_of_shares` of every resample at once (a group no question of a resample
    belongs to is left out of that resample's mean)."""
    total, count = np.zeros(m), np.zeros(m)
    for g in _groups(sums):
        n = sums[("n", g)]
        ok = sums.get(("ok", g), np.zeros(m))
        defined = n > 0
        total += np.divide(ok, n, out=np.zeros(m), where=defined)
        count += defined
    out = np.full(m, np.nan)
    np.divide(total, count, out=out, where=count > 0)
    return out


mean_of_shares.batch = _mean_of_shares_batch  # type: ignore[attr-defined]  # the array form
