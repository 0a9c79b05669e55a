"""`--tom-probe no-story,no-options,shuffle`: shortcut probes, each item asked again with a
part taken away or moved, beside the item itself.

A probe's copy of an item is built the way a sweep's is (core/sweep.py): its suite is
`<suite>[probe=no-story]`, so every layer that groups by suite (aggregation, gates,
compare, merge, shards, replay, the cache) keeps it apart from the base without knowing
of probes; its `probe` field (`ProbePoint`) says which probe, and its pytest name is
`q1[probe=no-story]`. `shuffle` makes `--tom-probe-orders K` copies, one per seeded order
of the options (`<suite>[probe=shuffle-1]` ...).

The family says how (families/base.py `Family.probes_not_applicable`, `probe_messages`,
`reordered`): a probe it names as not applicable (with a one-line reason) gives its items
no such copy. A probe run and a sweep together are refused (a usage error): the probes'
paired tests pair each copy with the base item of the same suite, which a sweep renames
per value.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, TypedDict

from pytest_tom.core.model import ItemSpec, ProbePoint

FLAG = "--tom-probe"
PROBES = ("no-story", "no-options", "shuffle")
EXAMPLE = "e.g. --tom-probe no-story,no-options,shuffle"


class ProbesSetting(TypedDict, total=False):
    """The probes in a report's settings (`settings.asked.probes`)."""

    probes: list[str]
    orders: int  # with shuffle only: the orders each item is asked in


@dataclass(frozen=True)
class Probes:
    """The probes asked for, in the order of `PROBES`."""

    names: tuple[str, ...]

    def as_dict(self, orders: int) -> ProbesSetting:
        """The probes in a report's settings (`settings.asked.probes`)."""
        out: ProbesSetting = {"probes": list(self.names)}
        if "shuffle" in self.names:
            out["orders"] = orders
        return out

    def __str__(self) -> str:
        return ",".join(self.names)


def parse_probes(raw: Any) -> Probes | None:
    """`no-story,no-options,shuffle` (any of them, any order) as `Probes`; empty or `off`:
    None. ValueError names the problem and the fix, starting with the option's name."""
    text = str(raw).strip()
    if not text or text.lower() in ("off", "none"):
        return None
    names = [n.strip().lower().replace("_", "-") for n in text.split(",")]
    bad = [n for n in names if n not in PROBES]
    if bad:
        raise ValueError(f"{FLAG} {text!r}: {', '.join(repr(b) for b in bad)} is not a probe; "
                         f"give one or more of {', '.join(PROBES)} ({EXAMPLE})")
    return Probes(tuple(p for p in PROBES if p in names))


def probe_problems(options: Any) -> list[str]:
    """Options that clash with the probes (a usage error before anything runs)."""
    problems = []
    if options.probe_orders < 2:
        problems.append(f"--tom-probe-orders {options.probe_orders}: at least 2 orders "
                        f"(the default is 4)")
    if options.probe is not None and options.sweep is not None:
        problems.append(f"{FLAG} with --tom-sweep: not in one run (the probes pair each copy "
                        f"with its base item in the same suite, which the sweep renames per "
                        f"value); run the probes at one value of the setting instead")
    return problems


def orders(spec: ItemSpec, count: int, seed: int, gold: int) -> list[tuple[int, ...]]:
    """`count` orders of `spec`'s options (`order[k]`: the place in `spec.choices` of the
    option shown k-th), seeded by the run's seed and the item (the same orders in every
    run and shard). The gold option (at `gold`) is shown at each place in turn, from a
    seeded first place, so the positions are balanced and no two adjacent orders show it
    at one place: position bias is read off evenly spread positions, and an answerer
    that always picks one place is never right in every order. The other options are
    shuffled around it."""
    n = len(spec.choices)
    rng = random.Random(f"{seed}:{spec.suite}:{spec.id}")
    start = rng.randrange(n)
    out = []
    for k in range(count):
        others = [i for i in range(n) if i != gold]
        rng.shuffle(others)
        others.insert((start + k) % n, gold)
        out.append(tuple(others))
    return out


Declared = Callable[[str, ItemSpec], bool]  # (probe, item) -> whether it applies


def expand(specs: Iterable[ItemSpec], probes: Probes | None, applies: Declared,
           reorder: Callable[[ItemSpec, tuple[int, ...]], ItemSpec],
           gold_place: Callable[[ItemSpec], int], count: int = 4,
           seed: int = 0) -> list[ItemSpec]:
    """Each item, then its probes' copies (where its family declares the probe applies);
    without probes, `specs` as they are. `reorder(item, order)` is the family's item with
    its options shown in `order`; `gold_place(item)`: where the gold option is shown."""
    specs = list(specs)
    if probes is None:
        return specs
    out = []
    for spec in specs:
        out.append(spec)
        for probe in probes.names:
            if not applies(probe, spec):
                continue
            if probe != "shuffle":
                label = f"probe={probe}"
                out.append(replace(spec, suite=f"{spec.suite}[{label}]",
                                   probe=ProbePoint(probe, label, spec.suite)))
                continue
            for k, order in enumerate(orders(spec, count, seed, gold_place(spec)), 1):
                label = f"probe=shuffle-{k}"
                shown = reorder(spec, order)
                point = ProbePoint(probe, label, spec.suite, order, gold_place(shown))
                out.append(replace(shown, suite=f"{spec.suite}[{label}]", probe=point))
    return out


def node_name(spec: ItemSpec, name: str) -> str:
    """The pytest name of a probe copy's last id part: `q1[probe=no-story]`."""
    return f"{name}[{spec.probe.label}]" if spec.probe is not None else name
