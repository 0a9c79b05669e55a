"""Token F1 between an answer and a reference, on whitespace tokens."""

from __future__ import annotations

from collections import Counter


def token_f1(prediction: str, reference: str, *, lowercase: bool = True) -> float:
    """F1 of shared tokens (counted with multiplicity); 0.0 when either side is empty.

    `lowercase=False` compares tokens as written: FANToM's authors lower-case only
    for the fact question's token F1, not for the belief questions' ("He" and "he"
    are different tokens there).
    """
    pred = str(prediction).split()
    ref = str(reference).split()
    if lowercase:
        pred = [t.lower() for t in pred]
        ref = [t.lower() for t in ref]
    if not pred or not ref:
        return 0.0
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision = common / len(pred)
    recall = common / len(ref)
    return 2 * precision * recall / (precision + recall)
