"""`--tom-limit N`: a seeded subset of at most N items per suite, in whole groups.

For smoke runs (the embedded model answers about one item a second): whole
groups (scenarios, sets, templates, sceneries) are taken in an order fixed by
`--tom-seed` and the group's name, until the next group would pass N items; a
suite always keeps at least one group, so goal accuracy stays meaningful. The
choice depends only on the seed and the ids, so every xdist worker makes the
same one. The other items are deselected, as `-k` would.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import Any


def _rank(seed: int, suite: str, group: str) -> str:
    return hashlib.sha256(f"{seed}:{suite}:{group}".encode()).hexdigest()


def limit_items(items: list[Any], limit: int, seed: int) -> tuple[list[Any], list[Any]]:
    """(kept, deselected) among TomItems (anything with `.spec`); other items are kept."""
    groups: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for item in items:
        spec = getattr(item, "spec", None)
        if spec is not None:
            groups[spec.suite][spec.group] += 1
    chosen: set[tuple[str, str]] = set()
    for suite, sizes in groups.items():
        total = 0
        for group in sorted(sizes, key=lambda g: _rank(seed, suite, g)):
            if total and total + sizes[group] > limit:
                break
            chosen.add((suite, group))
            total += sizes[group]
    kept, dropped = [], []
    for item in items:
        spec = getattr(item, "spec", None)
        (kept if spec is None or (spec.suite, spec.group) in chosen else dropped).append(item)
    return kept, dropped
