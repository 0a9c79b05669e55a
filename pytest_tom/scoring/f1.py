"""Token F1 between an answer and a reference, on lower-cased whitespace tokens."""

from __future__ import annotations

from collections import Counter


def token_f1(prediction: str, reference: str) -> float:
    """F1 of shared tokens (counted with multiplicity); 0.0 when either side is empty."""
    pred = str(prediction).lower().split()
    ref = str(reference).lower().split()
    if not pred or not ref:
        return 0.0
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision = common / len(pred)
    recall = common / len(ref)
    return 2 * precision * recall / (precision + recall)
