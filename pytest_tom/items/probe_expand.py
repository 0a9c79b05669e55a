"""`--tom-probe`'s copies of the items, as their families declare them (core/probe.py
builds them; the family says which probes apply and how the options move)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pytest_tom import families
from pytest_tom.core import probe
from pytest_tom.core.model import ItemSpec


def applies(name: str, spec: ItemSpec) -> bool:
    """Whether `spec`'s family declares probe `name` for it (a family names the probes it
    does not take in `probes_not_applicable`); no-options and shuffle need two options or
    more (an open question has none to take away or move)."""
    if name in families.get(spec.family).probes_not_applicable:
        return False
    return name == "no-story" or len(spec.choices) > 1


def _reorder(spec: ItemSpec, order: tuple[int, ...]) -> ItemSpec:
    return families.get(spec.family).reordered(spec, order)


def _gold_place(spec: ItemSpec) -> int:
    return families.get(spec.family).gold_place(spec)


def probe_copies(specs: Iterable[ItemSpec], options: Any) -> list[ItemSpec]:
    """Each item, then its probes' copies (`options.probe`; `probe_orders` orders of its
    options under shuffle, seeded by `options.seed`); without probes, `specs` as they are."""
    return probe.expand(specs, options.probe, applies, _reorder, _gold_place,
                        options.probe_orders, options.seed)


def not_applicable(family_names: Iterable[str], probes: probe.Probes) -> list[str]:
    """One line per (family, probe asked) its family does not take, with the reason."""
    lines = []
    for name in sorted(set(family_names)):
        skip = families.get(name).probes_not_applicable
        lines.extend(f"{name}: no {p} probe ({skip[p]})" for p in probes.names if p in skip)
    return lines
