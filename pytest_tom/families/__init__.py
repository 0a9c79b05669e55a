"""The family registry: built-in families, imported on first use, and entry points.

A family is a folder `families/<name>/` whose `family.py` holds the `Family`
subclass; adding a built-in family is one line in `BUILTIN`. Other packages add
families through the entry-point group `pytest_tom.families` (name ->
`module:Class`).

Importing this module imports no family and no YAML: the inert plugin reads
the families' option declarations (`<package>/options.py`, plain data) and
nothing else.
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.util
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_tom.core.option_table import Opt
    from pytest_tom.families.base import Family
    from pytest_tom.metrics.declare import Metric

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
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


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


def options_module(target: str) -> str | None:
    """The module declaring a family's options: `options` beside the family's module."""
    module = target.partition(":")[0]
    package, dot, _ = module.rpartition(".")
    return f"{package}.options" if dot else None


def declared_options() -> list[Opt]:
    """The options every available family declares (`OPTIONS` of its `options.py`),
    read without importing the families themselves (the inert plugin registers them)."""
    out: list[Opt] = []
    for target in available().values():
        name = options_module(target)
        if name is None or not _importable(name):
            continue
        out.extend(getattr(importlib.import_module(name), "OPTIONS", ()))
    return out


def declared(family: str | None, metric: str) -> Metric | None:
    """The declaration of `metric` by `family` (None: not a declared headline metric)."""
    if family is None:
        return None
    try:
        fam = get(family)
    except KeyError:
        return None
    return next((m for m in fam.headline_metrics if m.name == metric), None)


def lower_is_better(family: str | None, metric: str) -> bool:
    """Does the family declare `metric` as one where lower is better (an error rate)?"""
    decl = declared(family, metric)
    if decl is not None:
        return not decl.higher_is_better
    if family is None:
        return False
    try:
        fam = get(family)
    except KeyError:
        return False
    return any(fnmatch.fnmatchcase(metric, pattern) for pattern in fam.lower_is_better)


def in_percent(family: str | None, metric: str) -> bool:
    """Is `metric` shown in percent (else on 0–1, as its family declares: OpenToM's F1)?"""
    decl = declared(family, metric)
    return decl is None or decl.percent


def converters() -> dict[str, str]:
    """`pytest-tom convert` subcommand -> converter module, as the families declare them."""
    out: dict[str, str] = {}
    for name in available():
        try:
            out.update(get(name).converters)
        except ImportError:
            continue
    return out
