"""The suite document a family's `check` and `expand` hooks take, as types.

A suite file is read safely (`catalogue/load.py`) and checked against the top-level
schema and the family's `SCENARIO` and `DEFAULTS` before `expand` sees it, so its shape
is known: these TypedDicts write down the part every family shares. A family declares
its own document in its schema.py by extending them, one TypedDict per level of its
YAML, and annotates its hooks with it:

    class MyScenario(Scenario):         # its keys required, as in SCENARIO
        question: str
        answer: str

    class MyDocument(SuiteDocument):    # `scenarios` is required
        scenarios: list[MyScenario]

    def check(data: MyDocument, ck: Checker) -> None: ...
    def expand(suite: Suite, data: MyDocument, settings: Settings, line_of: LineOf) -> ...

(optional keys go in a `total=False` class: `class MyDefaults(Defaults, total=False)`, and
a document with defaults is `class MyDocument(SuiteDocument, _MyScenarios, total=False):
defaults: MyDefaults`, as every family's schema.py). `scenarios` and
`defaults` are the family's own (a TypedDict cannot narrow a key it inherits, so the base
does not declare them). `check` also meets documents the schema
found faults in (the loader runs it to report every problem at once): it reads with
`.get` and `isinstance` where the schema may have failed. TypedDicts are plain dicts at
runtime; nothing here checks or converts a value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from typing import TypedDict

from pytest_tom.core.json_value import JSONObject

LineOf = Callable[[tuple[Any, ...]], int]  # a YAML path -> its line in the suite file


class Tagged(TypedDict, total=False):
    """What may carry `tags` (the suite's defaults, a scenario, a question ...):
    what `base.tags_of` reads."""

    tags: list[str]


class Defaults(Tagged, total=False):
    """A suite's `defaults` mapping: tags for every item; a family adds its own keys."""


class _ScenarioId(TypedDict):
    id: str


class Scenario(_ScenarioId, Tagged, total=False):
    """One entry of `scenarios`: its id (required), its tags and its free-form `source`
    (upstream file, ids ...: copied into each item's `source`); a family adds the rest."""

    source: JSONObject


class _DocumentHead(TypedDict):
    suite: str
    family: str
    version: int | float | str  # `1`, `1.2` or `"1.2"`: the loader keeps its text


class SuiteDocument(_DocumentHead, total=False):
    """The top level of a suite file: `suite`, `family`, `version` (required) and
    `description`; a family's document adds `scenarios` and `defaults`."""

    description: str
