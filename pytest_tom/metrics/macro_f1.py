"""Macro-averaged F1 over class labels, with unparseable answers as a class of their own.

A prediction of None stands for an answer that named no usable label (it could
not be parsed, or the request failed). It is given the label `unparsed` and
scored exactly as scikit-learn's

    f1_score(y_true, y_pred, labels=sorted(set(y_true) | set(y_pred)),
             average="macro", zero_division=0)

with y_pred holding `unparsed` for those answers. `unparsed` is never gold, so
it is a label with no true positive and contributes an F1 of 0 to the average
(whenever some answer is unparseable), besides lowering the recall of the gold
label it missed. This is the standard macro-F1 over every label that occurs; the
authors' OpenToM evaluator instead drops unparseable answers before scoring
(`src/evaluate.py` L70-91 at seacowx/OpenToM 57d2aef), see docs/differences.md.

Each label's F1 is 2·TP / (2·TP + FP + FN), 0 when that is 0/0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

UNPARSED = "unparsed"  # the label of an unparseable answer (or a failed request)


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
    correct: int = 0  # predictions equal to the gold label

    @property
    def unparsed_rate(self) -> float | None:
        return self.unparsed / self.items if self.items else None

    @property
    def accuracy(self) -> float | None:
        """Share of predictions equal to the gold label (unparseable ones are wrong)."""
        return self.correct / self.items if self.items else None


def macro_f1(gold: Sequence[str], predicted: Sequence[str | None]) -> MacroF1:
    """Macro F1 of `predicted` against `gold` (same length; None = no usable answer)."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    if UNPARSED in gold:
        raise ValueError(f"{UNPARSED!r} is reserved for unparseable predictions, not a gold label")
    pred = [UNPARSED if p is None else p for p in predicted]
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for g, p in zip(gold, pred, strict=True):
        if p == g:
            tp[g] += 1
            continue
        fn[g] += 1
        fp[p] += 1
    labels = sorted(set(gold) | set(pred))
    scores = tuple(LabelScore(lab, tp[lab], fp[lab], fn[lab]) for lab in labels)
    value = sum(s.f1 for s in scores) / len(scores) if scores else None
    return MacroF1(value=value, labels=scores, items=len(gold),
                   unparsed=sum(1 for p in predicted if p is None), correct=sum(tp.values()))
