"""The selections of the plugin beyond `-k` and `-m`.

`--tom-limit N`: a seeded subset of at most N items per suite, in whole groups.

For smoke runs (the embedded model answers about one item a second): whole
groups (scenarios, sets, templates, sceneries) are taken in an order fixed by
`--tom-seed` and the group's name, until the next group would pass N items; a
suite always keeps at least one group, so goal accuracy stays meaningful. The
choice depends only on the seed and the ids, so every xdist worker makes the
same one. The other items are deselected, as `-k` would.

`--tom-shard K/N` (after `--tom-limit`): this job's whole units of the selection
(`engine/shards.py`).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import Any

from pytest_tom import families
from pytest_tom.core.settings import Settings
from pytest_tom.engine.shards import Shard, Unit, assign, selection_record


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


def shard_items(items: list[Any], shard: Shard, settings: Settings,
                how: dict[str, Any]) -> tuple[list[Any], list[Any], dict[str, Any]]:
    """(kept, deselected, record) for `--tom-shard`: the TomItems of the whole units
    `engine.shards.assign` gives this shard; other items are kept in every shard. The
    record (for the report) names the shard and the selection it was cut from."""
    unit_of: dict[int, Unit] = {}
    sizes: dict[Unit, int] = defaultdict(int)
    files: dict[str, set[str]] = defaultdict(set)
    keys: list[tuple[str, str]] = []
    for n, item in enumerate(items):
        spec = getattr(item, "spec", None)
        if spec is None:
            continue
        unit = (spec.suite, families.get(spec.family).shard_unit(spec, settings))
        unit_of[n] = unit
        sizes[unit] += 1
        keys.append((spec.suite, spec.id))
        files[spec.suite].add(str(spec.source.get("file", "")))
    owner = assign(sizes, shard.total)
    kept, dropped = [], []
    for n, item in enumerate(items):
        unit = unit_of.get(n)
        (kept if unit is None or owner[unit] == shard.index else dropped).append(item)
    mine = [u for u in sizes if owner[u] == shard.index]
    record = {"index": shard.index, "total": shard.total, "source": shard.source,
              "items": sum(sizes[u] for u in mine), "units": len(mine),
              "selection": selection_record(keys, len(sizes), files, how)}
    return kept, dropped, record
