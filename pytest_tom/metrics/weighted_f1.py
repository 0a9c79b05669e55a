"""Per-label F1 and its support-weighted average (the `average="weighted"` F1 of
scikit-learn, written out so that no heavy dependency is needed).

Labels are the union of the gold and predicted labels; each label's F1 is
weighted by its number of gold occurrences, so a label that is only ever
predicted (say "irrelevant" for an answer that is neither yes nor no) weighs
nothing itself but still costs the recall of the gold label it replaced.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence


def per_label_f1(gold: Sequence[Hashable], pred: Sequence[Hashable]) -> dict[Hashable, float]:
    """F1 of each label (precision or recall with an empty denominator count as 0)."""
    if len(gold) != len(pred):
        raise ValueError(f"gold and predictions differ in length ({len(gold)} vs {len(pred)})")
    tp: Counter[Hashable] = Counter()
    n_gold: Counter[Hashable] = Counter(gold)
    n_pred: Counter[Hashable] = Counter(pred)
    for g, p in zip(gold, pred, strict=True):
        if g == p:
            tp[g] += 1
    out: dict[Hashable, float] = {}
    for label in set(n_gold) | set(n_pred):
        precision = tp[label] / n_pred[label] if n_pred[label] else 0.0
        recall = tp[label] / n_gold[label] if n_gold[label] else 0.0
        out[label] = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return out


def weighted_f1(gold: Sequence[Hashable], pred: Sequence[Hashable]) -> float | None:
    """Support-weighted mean of the per-label F1; None when there is nothing to score."""
    if not gold:
        return None
    f1 = per_label_f1(gold, pred)
    support = Counter(gold)
    return sum(f1[label] * n for label, n in support.items()) / len(gold)
