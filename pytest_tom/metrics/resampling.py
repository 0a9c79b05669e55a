"""Disjoint seeded samples of groups (narratives, say) and their mean ± standard deviation.

The OpenToM paper reports each score as the mean and standard deviation over
5 disjoint samples of 50 narratives. The standard deviation here is the
population one (divide by n), the usual `numpy.std` default.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence


def disjoint_samples(groups: Iterable[str], count: int, size: int,
                     rng: random.Random) -> list[list[str]] | None:
    """`count` disjoint samples of `size` groups, drawn with `rng`; None when too few groups.

    The groups are sorted first, so the samples depend only on the seed and the
    set of groups, not on the order the records arrived in.
    """
    pool = sorted(set(groups))
    if count < 1 or size < 1 or count * size > len(pool):
        return None
    rng.shuffle(pool)
    return [sorted(pool[i * size:(i + 1) * size]) for i in range(count)]


def mean_std(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    """Mean and population standard deviation; (None, None) if any value is missing."""
    if not values or any(v is None for v in values):
        return None, None
    vals = [float(v) for v in values if v is not None]
    mean = sum(vals) / len(vals)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
