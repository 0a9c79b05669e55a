"""The data model shared by every layer: a loaded suite and its items.

Everything here is plain data (strings, numbers, lists, dicts) so that an item
can be handed to a user's Python backend, written to a report, or sent across
xdist workers without custom serialisation.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, cast

from pytest_tom.core.json_value import JSONObject
from pytest_tom.core.record import ItemSummary

LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class SweepPoint:
    """The value of `--tom-sweep` an item is asked with (core/sweep.py): the setting
    (`thinking-tokens`, `temperature`, a request field's name ...), its value typed as the
    setting takes it, the label of item names (`thinking-tokens=1024`) and the suite the
    item comes from (the item's own suite is `<suite>[<label>]`, one per value)."""

    setting: str
    value: Any
    label: str
    suite: str
    index: int = 0  # the value's place in the sweep (the reports' order of the values)


@dataclass(frozen=True)
class ProbePoint:
    """The shortcut probe an item's copy is asked under (`--tom-probe`, core/probe.py): the
    probe (`no-story`, `no-options`, `shuffle`), the label of item names (`probe=no-story`,
    `probe=shuffle-2`), the suite the item comes from (the copy's suite is
    `<suite>[<label>]`), and under `shuffle` the order (the shown options' places in the
    item's own list) and the place the gold option is shown at (from 0)."""

    probe: str
    label: str
    suite: str
    order: tuple[int, ...] = ()
    gold_position: int | None = None


@dataclass
class ItemSpec:
    """One benchmark item: one pytest test, one scored answer.

    `meta` is the small, plain-JSON part that aggregation needs (it travels on
    the pytest report and into the JSON report); `data` holds what the family
    needs to render the prompt and score the answer (it stays in the process).
    """

    id: str  # "<scenario>::<question>" (unique within the suite)
    suite: str
    family: str
    scenario: str
    kind: str
    question: str
    gold: Any
    group: str = ""  # goal accuracy groups items by this (default: the scenario)
    choices: list[str] = field(default_factory=list)  # as shown, in shown order
    tags: list[str] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)  # extra markers beyond tags
    # `source` (file, line, upstream id ...) and `meta` are plain JSON, declared by the family
    # that writes them (its own TypedDicts, FantomMeta, SceneMeta ...): the item only stores
    # them and passes them on (`summary`), so it takes any mapping, and a reader narrows
    source: Mapping[str, object] = field(default_factory=dict)
    meta: Mapping[str, object] = field(default_factory=dict)
    # the family's own, in the process only (its expand writes the keys its prompts and
    # scoring read; values need not be JSON): typed by each family (a TypedDict, which is
    # a Mapping to a type checker, not a dict[str, ...]), not here
    data: Mapping[str, Any] = field(default_factory=dict, repr=False)
    line: int = 0
    # --tom-sweep: the value this copy of the item is asked with (None: no sweep); not in
    # `summary` (the record has its own `sweep` field, so plain records stay as they were)
    sweep: SweepPoint | None = None
    # --tom-probe: the probe this copy of the item is asked under (None: the item itself)
    probe: ProbePoint | None = None

    @property
    def base_suite(self) -> str:
        """The suite of the file (the same for every value of a sweep)."""
        if self.probe is not None:
            return self.probe.suite
        return self.sweep.suite if self.sweep is not None else self.suite

    def __post_init__(self) -> None:
        if not self.group:
            self.group = self.scenario

    @property
    def choices_shown(self) -> list[str]:
        """The choices with their letters, as the model sees them: `a) text`."""
        return [f"{LETTERS[i]}) {c}" for i, c in enumerate(self.choices)]

    def summary(self) -> ItemSummary:
        """The plain-data view that travels on reports (everything but `data`)."""
        # shallow copies, not dataclasses.asdict: asdict deep-copies every value and is
        # the slowest part of scoring a 10,000-item suite
        d = {name: getattr(self, name) for name in _summary_fields()}
        for key in ("choices", "tags", "markers"):
            d[key] = list(d[key])
        for key in ("source", "meta"):
            d[key] = dict(d[key])
        return cast(ItemSummary, d)  # the fields `ItemSummary` declares, by name


@functools.cache
def _summary_fields() -> tuple[str, ...]:
    """The names `ItemSpec.summary` copies, in field order (looked up once, not per item)."""
    return tuple(f.name for f in fields(ItemSpec) if f.name not in ("data", "sweep", "probe"))


@dataclass
class Suite:
    """A validated suite file and the items it expands into."""

    name: str
    family: str
    version: str
    path: str
    description: str = ""
    defaults: JSONObject = field(default_factory=dict)  # the file's, checked by the family's schema
    items: list[ItemSpec] = field(default_factory=list)
    scenario_count: int = 0
