"""The family registry: built-in families, imported on first use, and entry points."""

from __future__ import annotations

import importlib
import importlib.util
from importlib.metadata import entry_points

from pytest_tom.families.base import Family

BUILTIN: dict[str, str] = {
    "generic": "pytest_tom.families.generic.family:GenericFamily",
    "fantom": "pytest_tom.families.fantom.family:FantomFamily",
    "opentom": "pytest_tom.families.opentom.family:OpenTomFamily",
    "robustness": "pytest_tom.families.robustness.family:RobustnessFamily",
    "bigtom": "pytest_tom.families.bigtom.family:BigTomFamily",
}
ENTRY_POINT_GROUP = "pytest_tom.families"
_cache: dict[str, Family] = {}


def _load(target: str) -> type[Family]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def available() -> dict[str, str]:
    """Family name -> import target, built-ins first, then installed entry points."""
    names = {n: t for n, t in BUILTIN.items() if _importable(t)}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        names.setdefault(ep.name, ep.value)
    return names


def _importable(target: str) -> bool:
    module = target.partition(":")[0]
    return importlib.util.find_spec(module) is not None


def method_offers(method: str) -> tuple[list[str], list[str]]:
    """(families offering `method`, families that do not) among the installed ones."""
    offering, others = [], []
    for name in available():
        try:
            fam = get(name)
        except Exception:  # a broken third-party family: its suites will say so
            continue
        (offering if method in fam.methods else others).append(name)
    return offering, others


def all_methods() -> list[str]:
    """Every method some installed family offers."""
    out: dict[str, None] = {}
    for name in available():
        try:
            out.update(dict.fromkeys(get(name).methods))
        except Exception:
            continue
    return list(out)


def get(name: str) -> Family:
    """The family instance registered under `name` (KeyError when unknown)."""
    if name not in _cache:
        targets = available()
        if name not in targets:
            raise KeyError(name)
        _cache[name] = _load(targets[name])()
    return _cache[name]
