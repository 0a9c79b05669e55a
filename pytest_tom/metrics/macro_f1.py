"""Macro-averaged F1 over class labels, with unparseable answers kept as wrong predictions.

A prediction of None stands for an answer that named no usable label (it could
not be parsed, or the request failed). It is a wrong prediction: it is a miss
(false negative) of the item's gold label and a hit of no label. None is not a
label of its own in the average: it is never gold, so its F1 would be zero by
construction and one bad answer would add a constant zero term; instead it
lowers the recall of the label it missed.

The labels averaged are those that occur as gold or as a parsed prediction
(as scikit-learn's `f1_score(average="macro")` does without `labels=`); each
label's F1 is 2·TP / (2·TP + FP + FN), zero when it has no true positive.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class LabelScore:
    label: str
    tp: int
    fp: int
    fn: int

    @property
    def f1(self) -> float:
        den = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / den if den else 0.0

    @property
    def support(self) -> int:
        return self.tp + self.fn


@dataclass(frozen=True)
class MacroF1:
    """The macro F1 (None for no items) with its per-label parts."""

    value: float | None
    labels: tuple[LabelScore, ...]
    items: int
    unparsed: int  # predictions that were None

    @property
    def unparsed_rate(self) -> float | None:
        return self.unparsed / self.items if self.items else None


def macro_f1(gold: Sequence[str], predicted: Sequence[str | None]) -> MacroF1:
    """Macro F1 of `predicted` against `gold` (same length; None = no usable answer)."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for g, p in zip(gold, predicted, strict=True):
        if p == g:
            tp[g] += 1
            continue
        fn[g] += 1
        if p is not None:
            fp[p] += 1
    labels = sorted(set(gold) | {p for p in predicted if p is not None})
    scores = tuple(LabelScore(lab, tp[lab], fp[lab], fn[lab]) for lab in labels)
    value = sum(s.f1 for s in scores) / len(scores) if scores else None
    return MacroF1(value=value, labels=scores, items=len(gold),
                   unparsed=sum(1 for p in predicted if p is None))
