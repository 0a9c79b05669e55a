"""The family registry: the built-in families, found by their folders, and entry points.

A built-in family is a folder `families/<name>/` whose `family.py` defines the `Family`
subclass named `<name>` (`name = "<name>"`): the folder is all it takes, no line
elsewhere. Other packages add families through the entry-point group
`pytest_tom.families` (name -> `module:Class`, or the module alone, whose class of that
name is taken). Both are one `core.registry.Registry`, as the backends are. A family
names its parts itself (`parts = Parts(...)` in its family.py, `families/parts.py`);
its converter, named there as an import path, is imported by `converter` alone.

Importing this module imports no family and no YAML: the inert plugin reads the
families' option declarations (`<package>/options.py`, plain data) and nothing else;
`options_agree` checks that a family names that same module as its options part.
"""

from __future__ import annotations

import difflib
import fnmatch
import importlib
import importlib.util
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from pytest_tom.core.download import Download
from pytest_tom.core.registry import BrokenTarget
from pytest_tom.core.registry import Registry
from pytest_tom.core.registry import RegistryError
from pytest_tom.core.registry import UnknownName
from pytest_tom.core.registry import folder_targets

if TYPE_CHECKING:
    from pytest_tom.core.option_table import Opt
    from pytest_tom.families.base import Family
    from pytest_tom.metrics.declare import Metric

ENTRY_POINT_GROUP = "pytest_tom.families"
# name -> the module of its Family subclass, one per folder holding a family.py (read at
# every lookup: a test may add a line)
BUILTIN: dict[str, str] = folder_targets(Path(__file__).parent, __name__, "family")
_cache: dict[str, Family] = {}  # the instances, one per family


def family_class(module: ModuleType, name: str) -> type[Family]:
    """The class of family `name` in `module`: the one class it defines with that `name`
    (a folder's family is named as its folder, an entry point's as the entry point)."""
    found = [value for value in vars(module).values()
             if isinstance(value, type) and value.__module__ == module.__name__
             and getattr(value, "name", None) == name]
    if len(found) != 1:
        raise LookupError(f"{module.__name__} should define one Family subclass with "
                          f"name = {name!r}, and defines {len(found)}")
    return found[0]


REGISTRY = Registry("family", "families", ENTRY_POINT_GROUP, BUILTIN, pick=family_class)


def available() -> dict[str, str]:
    """Family name -> import target, built-ins first, then installed entry points."""
    return REGISTRY.targets()


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
    """The family instance registered under `name`: `core.registry.UnknownName` (a
    KeyError) lists the installed families, `BrokenTarget` names the package of one
    that does not load."""
    if name not in _cache:
        _cache[name] = REGISTRY.load(name)()
    return _cache[name]


def options_module(target: str) -> str | None:
    """The module declaring a family's options: `options` beside the family's module."""
    module = target.partition(":")[0]
    package, dot, _ = module.rpartition(".")
    return f"{package}.options" if dot else None


def options_of(name: str) -> tuple[Opt, ...]:
    """The options family `name` declares (`OPTIONS` of its `options.py`), read without
    importing the family; () for none."""
    module = options_module(available()[name])
    if module is None or not _importable(module):
        return ()
    return tuple(getattr(importlib.import_module(module), "OPTIONS", ()))


def sets_options(name: str, values: Mapping[str, object]) -> bool:
    """True when `values` (the run's option values by name) give one of family `name`'s
    options a value other than its declared default (read without importing the family)."""
    return any(values.get(o.name, o.default) != o.default for o in options_of(name))


def declared_options() -> list[Opt]:
    """The options every available family declares (`OPTIONS` of its `options.py`),
    read without importing the families themselves (the inert plugin registers them)."""
    return [opt for name in available() for opt in options_of(name)]


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
        except (ImportError, RegistryError):  # a broken family: its suites will say so
            continue
    return out


def converter(subcommand: str) -> ModuleType:
    """The module of `pytest-tom convert <subcommand>`, imported now: the one place a
    family's converter (named by its import path, `Parts(convert=...)`) is resolved.
    `UnknownName` lists the converters there are; `BrokenTarget` says which family named
    a module that does not import, or one without `add_arguments(parser)` and `run(args)`."""
    declared = converters()
    if subcommand not in declared:
        known = list(declared)
        close = difflib.get_close_matches(subcommand, known, n=1, cutoff=0.6)
        near = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownName(f"no converter {subcommand!r}{near}; installed converters: "
                          f"{', '.join(known) or 'none'}", subcommand, known)
    target = declared[subcommand]
    try:
        module = importlib.import_module(target)
        missing = [n for n in ("add_arguments", "run") if not callable(getattr(module, n, None))]
        if missing:
            raise AttributeError(f"it defines no {' and no '.join(missing)}")
    except Exception as exc:
        raise BrokenTarget(f"converter {subcommand!r} ({target}, declared by a family's "
                           f"`Parts(convert=...)` or `converters`) cannot be loaded: "
                           f"{type(exc).__name__}: {exc}") from exc
    return module


def options_agree(name: str) -> None:
    """Raise `BrokenTarget` unless family `name` declares as its options exactly what the
    inert plugin registers for it: the `OPTIONS` of `options.py` beside its family module
    (read without importing the family), or none when there is no such module."""
    module = options_module(available()[name])
    read = options_of(name)
    declared = tuple(get(name).options)
    if declared != read:
        where = module if read else f"{module} (there is none)"
        raise BrokenTarget(f"family {name!r} declares the options "
                           f"{[o.name for o in declared]}, and the inert plugin registers "
                           f"{[o.name for o in read]} from {where}: name that module as the "
                           f"family's options part (`Parts(options=options)`)")


def downloads() -> dict[str, Download]:
    """`pytest-tom fetch` name -> its declaration (`DOWNLOADS` of a family's `download.py`),
    each with the family that declares it; a name declared twice is an error naming both."""
    out: dict[str, Download] = {}
    for name in available():
        try:
            declared_here = get(name).downloads
        except (ImportError, RegistryError):  # a broken family: its suites will say so
            continue
        for download in declared_here:
            if download.name in out:
                raise LookupError(f"`pytest-tom fetch {download.name}` is declared by the "
                                  f"families {out[download.name].family} and {name}; "
                                  f"one name, one download")
            out[download.name] = replace(download, family=name)
    return out
