"""A family's parts, named once in its `family.py`.

A family is made of modules, one per part: its suite shape (`schema`), its items
(`expand`), its prompts (`prompts`), its answer rule (`scoring`), its tables (`metrics`),
its declared metrics (`headline`), its options (`options`), the official files `pytest-tom
fetch` downloads (`download`) and how its items are probed (`probes`). Its `family.py`
imports them and names them in one typed object, `parts = Parts(schema=schema,
expand=expand, ...)`: an editor goes from the family to each part, and nothing is looked
up by a module's name. Its `pytest-tom convert` command is named there too, as the import
path of its module (`convert="<package>.convert"`): a run never needs it, so it is
imported only by the command (`families.converter`).

Each part gives the `Family` the names of `HOOKS` it defines (`schema.SCENARIO` becomes
`scenario_schema`, `scoring.score` the `score` hook ...). A module function has the
signature of the hook it becomes, without `self` (`expand(suite, data, settings,
line_of)`, `score(item, response, ctx)` ...). What the class (or a class between it and
`Family`) sets itself wins; a hook given by two parts is an error when the class is
defined (unless one imports it from the other), and so is a part that gives none of its
names (a module named for the wrong part).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import fields
from types import ModuleType
from typing import Any

from pytest_tom.core.record import Record
from pytest_tom.core.settings import Settings
from pytest_tom.metrics.declare import Declared
from pytest_tom.metrics.declare import Value
from pytest_tom.metrics.declare import evaluate


@dataclass(frozen=True)
class Parts:
    """The modules a family is made of (None: the family has no such part)."""

    schema: ModuleType | None = None
    expand: ModuleType | None = None
    prompts: ModuleType | None = None
    scoring: ModuleType | None = None
    metrics: ModuleType | None = None
    headline: ModuleType | None = None
    options: ModuleType | None = None
    download: ModuleType | None = None
    probes: ModuleType | None = None
    # `pytest-tom convert <family name>`: the converter module's import path, imported only
    # when the command runs (`families.converter` resolves it, naming a broken one)
    convert: str | None = None

    def given(self) -> dict[str, ModuleType]:
        """Part -> its module, for the parts the family has (the converter aside)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name != "convert" and getattr(self, f.name) is not None}


# part -> {name in its module: the Family attribute it gives}
HOOKS: dict[str, dict[str, str]] = {
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


def apply_parts(cls: type, base: type) -> None:
    """Set on `cls` every attribute its own `parts` give and that no class from `cls` up to
    `base` (the `Family` class) sets itself. A class that names no parts of its own keeps
    what it inherits."""
    parts = vars(cls).get("parts")
    if parts is None:
        return
    if not isinstance(parts, Parts):
        raise TypeError(f"family {cls.__name__}: `parts` should be a Parts(...), "
                        f"not {type(parts).__name__}")
    found: dict[str, tuple[str, Any]] = {}  # attribute -> (module, value)
    for part, module in parts.given().items():
        names = HOOKS[part]
        if not any(hasattr(module, name) for name in names):
            raise TypeError(f"family {cls.__name__}: its part {part}={module.__name__} "
                            f"defines none of {', '.join(names)}; is it the {part} part?")
        for name, attribute in names.items():
            if not hasattr(module, name):
                continue
            value = getattr(module, name)
            if attribute in found and found[attribute][1] is not value:  # not one imported
                raise TypeError(f"family {cls.__name__}: `{name}` is in both "
                                f"{found[attribute][0]} and {module.__name__}; keep one")
            found.setdefault(attribute, (module.__name__, value))
    if parts.convert is not None:
        found["converters"] = ("", {getattr(cls, "name", ""): parts.convert})
    for attribute, (_, value) in found.items():
        if not _set_below(cls, base, attribute):
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
    `aggregate(records, settings, declared)`, which gets the values as a `Declared` (a
    table asks for any name it lays out): called without `declared` (a script, a test),
    the values come from the family's own declarations, as the engine computes them."""
    def aggregate(self: Any, records: list[Record], settings: Settings,
                  declared: Mapping[str, Value] | None = None) -> Any:
        if declared is None:
            declared = evaluate(self.declared_metrics(settings), records)
        return fn(records, settings, Declared(declared))

    return _named(aggregate, fn, "aggregate")
