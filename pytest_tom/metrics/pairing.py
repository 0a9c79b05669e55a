"""Joint scores of paired items: a dependent item counts only when its anchor is right too.

BigToM's "TB ∧ FB": a false-belief item counts as right only if the true-belief
item of the same template (same inference, same initial-belief variant) is
right as well; "TC ∧ FC" likewise for the controls. A model that always picks
the same answer, or guesses, cannot score well on the joint measure.

Pairs are formed among judged records (skipped and measured-only items are
left out; failed requests and unparseable answers are judged wrong). A
dependent item whose anchor was not run (deselected, say) is not paired and
is counted apart as `unpaired`, so a partial run never invents a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from pytest_tom.core.record_view import RecordView
from pytest_tom.metrics.accuracy import Record, judged, ratio


@dataclass(frozen=True)
class JointScore:
    """`both` of `pairs` pairs have both items right; `unpaired` dependents had no anchor."""

    both: int = 0
    pairs: int = 0
    unpaired: int = 0

    @property
    def accuracy(self) -> float | None:
        return ratio(self.both, self.pairs)

    def __add__(self, other: JointScore) -> JointScore:
        return JointScore(self.both + other.both, self.pairs + other.pairs,
                          self.unpaired + other.unpaired)


def duplicate_key(which: str | None, key: Hashable, item_id: object) -> ValueError:
    """The error of two `which` records sharing a pairing key (the key does not identify
    a pair), as every form of the joint score raises it."""
    return ValueError(f"two {which} records share the pairing key {key!r} "
                      f"(item {item_id!r}); the key must identify one pair")


class Pairs:
    """The anchor and dependent answers of one joint score, by pairing key, added one
    at a time (a family can fill several in one pass over its records)."""

    __slots__ = ("anchor", "dependent", "anchors", "dependents")

    def __init__(self, anchor: str, dependent: str) -> None:
        self.anchor, self.dependent = anchor, dependent
        self.anchors: dict[Hashable, bool] = {}
        self.dependents: dict[Hashable, bool] = {}

    def add(self, which: str | None, key: Hashable, right: bool, item_id: object = None) -> None:
        """Count a judged answer of role `which` (other roles are ignored). Two answers
        with the same key and role are an error (the key does not identify a pair)."""
        if which not in (self.anchor, self.dependent):
            return
        table = self.anchors if which == self.anchor else self.dependents
        if key in table:
            raise duplicate_key(which, key, item_id)
        table[key] = right

    def score(self) -> JointScore:
        both = pairs = unpaired = 0
        for k, ok in self.dependents.items():
            if k not in self.anchors:
                unpaired += 1
                continue
            pairs += 1
            both += ok and self.anchors[k]
        return JointScore(both=both, pairs=pairs, unpaired=unpaired)


def joint_score(records: Iterable[Record], *, key: Callable[[Record], Hashable],
                role: Callable[[Record], str | None], anchor: str, dependent: str) -> JointScore:
    """The joint score of the `dependent` items paired with the `anchor` items of the same key.

    `role(record)` names the record's role (records of other roles are ignored);
    `key(record)` is what the two items of a pair share. Two records with the
    same key and role are an error (the key does not identify a pair).
    """
    pairs = Pairs(anchor, dependent)
    for rec in judged(records):
        which = role(rec)
        if which in (anchor, dependent):
            view = RecordView(rec)
            pairs.add(which, key(rec), bool(view.correct), view.id)
    return pairs.score()
