"""A family's parts, found in its folder by convention.

A `Family` subclass defined in a package's `family.py` takes what it does not define itself
from the modules beside it, by their names (`PARTS`): the schemas and checks from
`schema.py`, the items from `expand.py`, the methods and messages from `prompts.py`, the
answer rule from `scoring.py`, the tables from `metrics.py`, the declared metrics, plots
and contrasts of thought length from `headline.py`, the options from `options.py`, the official files `pytest-tom fetch`
downloads from `download.py`, how its items are probed (`--tom-probe`) from `probes.py`, and `converters` when there is a `convert.py`. A module function has the signature of the hook it becomes, without `self`
(`expand(suite, data, settings, line_of)`, `score(item, response, ctx)` ...).
So a family's `family.py` says only what is particular to it (its name, description,
answer length, lower-is-better patterns ...), and no family forwards hook by hook.

What the class (or a class between it and `Family`) sets itself wins; a hook found in two
modules is an error when the class is defined (unless one imports it from the other). A family class defined anywhere else (a
test, a script) is taken as written.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from pytest_tom.core.settings import Settings
from pytest_tom.metrics.declare import Value, evaluate

# module of the family's folder -> {name in that module: Family attribute it gives}
PARTS: dict[str, dict[str, str]] = {
    "schema": {"SCENARIO": "scenario_schema", "DEFAULTS": "defaults_schema", "check": "check"},
    "expand": {"expand": "expand", "unavailable": "unavailable"},
    "prompts": {"METHODS": "methods", "conversation": "conversation", "sampling": "sampling"},
    "scoring": {"score": "score", "prepare_scoring": "prepare_scoring",
                "unavailable": "unavailable", "option_problems": "option_problems"},
    "metrics": {"aggregate": "aggregate"},
    "headline": {"METRICS": "headline_metrics", "PLOTS": "plots",
                 "declared_metrics": "declared_metrics", "CONTRASTS": "thought_contrasts"},
    "options": {"OPTIONS": "options"},
    "download": {"DOWNLOADS": "downloads"},
    "probes": {"NOT_APPLICABLE": "probes_not_applicable", "probe_messages": "probe_messages",
               "reordered": "reordered", "gold_place": "gold_place"},
}
CONVERTER = "convert"  # `pytest-tom convert <family name>`, when the folder has convert.py
FAMILY_MODULE = "family"


def folder_of(cls: type) -> str | None:
    """The package whose `family.py` defines `cls`, or None (defined elsewhere)."""
    package, _, module = cls.__module__.rpartition(".")
    return package if package and module == FAMILY_MODULE else None


def fill_from_folder(cls: type, base: type) -> None:
    """Set on `cls` every attribute of `PARTS` that the modules beside its `family.py` give
    and that no class from `cls` up to `base` (the `Family` class) sets itself."""
    package = folder_of(cls)
    if package is None:
        return
    found: dict[str, tuple[str, Any]] = {}  # attribute -> (module, value)
    for part, names in PARTS.items():
        module = _module(f"{package}.{part}")
        if module is None:
            continue
        for name, attribute in names.items():
            if not hasattr(module, name):
                continue
            value = getattr(module, name)
            if attribute in found and found[attribute][1] is not value:  # not one imported
                raise TypeError(f"family {cls.__name__}: `{name}` is in both "
                                f"{found[attribute][0]} and {module.__name__}; keep one")
            found.setdefault(attribute, (module.__name__, value))
    if _module_exists(f"{package}.{CONVERTER}"):
        found["converters"] = (package, {getattr(cls, "name", ""): f"{package}.{CONVERTER}"})
    for attribute, (_, value) in found.items():
        if _set_below(cls, base, attribute):
            continue
        setattr(cls, attribute, _as_attribute(attribute, value))


def _set_below(cls: type, base: type, attribute: str) -> bool:
    """Does `cls`, or a class between it and `base`, set `attribute` itself?"""
    for klass in cls.__mro__:
        if klass is base:
            return False
        if attribute in vars(klass):
            return True
    return False


def _as_attribute(attribute: str, value: Any) -> Any:
    """A module's value as the class attribute: data as it is, a function as a method
    calling it without `self` (a plain method, so a subclass or a test may wrap it as it
    would a written one); `aggregate` also takes `declared` or evaluates it."""
    if not callable(value) or isinstance(value, type):
        return value
    if attribute == "aggregate":
        return _aggregate(value)
    return _method(value, attribute)


def _method(fn: Callable[..., Any], attribute: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return _named(method, fn, attribute)


def _named(method: Callable[..., Any], fn: Callable[..., Any],
           attribute: str) -> Callable[..., Any]:
    """`method` named as the hook, with the module function's docstring."""
    method.__doc__ = fn.__doc__
    method.__qualname__ = method.__name__ = attribute
    return method


def _aggregate(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`aggregate(self, records, settings, declared=None)` from a module's
    `aggregate(records, settings, declared)`: called without `declared` (a script, a test),
    the values come from the family's own declarations, as the engine computes them."""
    def aggregate(self: Any, records: list[dict[str, Any]], settings: Settings,
                  declared: Mapping[str, Value] | None = None) -> Any:
        if declared is None:
            declared = evaluate(self.declared_metrics(settings), records)
        return fn(records, settings, declared)

    return _named(aggregate, fn, "aggregate")


def _module(name: str) -> ModuleType | None:
    return importlib.import_module(name) if _module_exists(name) else None


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False
