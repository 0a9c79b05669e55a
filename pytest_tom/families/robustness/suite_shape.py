"""A robustness suite file as typed data: the stages, sceneries and scenes that the schema
(`schema.py`) accepts, as `expand` and `scenes` read them (and `schema.check`, guarding
each value, as it also runs on a file the schema rejected). A module of its own, as
`schema.py` imports `scenes.py` and both read these."""

from __future__ import annotations

from typing import TypedDict

from pytest_tom.families.kit import Defaults
from pytest_tom.families.kit import Scenario
from pytest_tom.families.kit import SuiteDocument
from pytest_tom.families.kit import Tagged

RoleValues = dict[str, str | list[str]]  # `RoleMap`: role -> answer, or [answer, alternative ...]


# `ASK`: question (belief, world) -> its wording, `{placeholders}` as in the text; a plain
# mapping, as `scenes` merges a stage's and a scenery's and looks a scene's question up
Ask = dict[str, str]


class Edit(TypedDict):
    """`EDIT`: one replacement in the scenery text."""

    old: str
    new: str


class Variant(TypedDict, total=False):
    """`VARIANT`: the edits and answers of one edited variant."""

    replace: list[Edit]
    append: str
    belief: str  # a role or unknown
    world: str  # a role
    beliefs: list[str]


class Variants(TypedDict, total=False):
    """`VARIANTS`: one entry per edited variant (`EDITED_VARIANTS`)."""

    true_belief: Variant
    informed: Variant
    visible: Variant


class _SceneId(TypedDict):
    id: str


class HandScene(_SceneId, total=False):
    """`SCENE`: a scene written by hand (its id, required, in the base)."""

    text: str
    objects: str  # orig or swap
    question: str  # belief or world
    ask: str
    key: str
    answer: str | list[str]  # a role, unknown, or literal answer(s) (`check`)
    wrong: list[str]
    variant: str
    beliefs: list[str]


# `SCENERY`'s required keys ("class" is a keyword, hence this form)
_SceneryText = TypedDict("_SceneryText", {"class": str, "text": str})


class Scenery(_SceneryText, Tagged, total=False):
    """`SCENERY`: a story template of a stage (its class and text, required, in the base)."""

    id: str
    note: str
    agent: str
    belief: str
    world: str
    objects: RoleValues
    swap: RoleValues
    key: str
    ask: Ask
    variants: Variants
    beliefs: list[str]
    scenes: list[HandScene]


class _StageRequired(Scenario):
    type: str  # one of STAGE_TYPES
    protagonist: str
    key: str
    objects: RoleValues
    ask: Ask
    sceneries: list[Scenery]


class Stage(_StageRequired, total=False):
    """`SCENARIO`: a robustness scenario is a stage (the required keys in the bases; `id`,
    `tags` and the free-form `source` from the kit's `Scenario`)."""

    swap: RoleValues
    belief: str
    world: str
    variants: Variants
    note: str


class _RobustnessScenarios(TypedDict):
    scenarios: list[Stage]


class RobustnessSuite(SuiteDocument, _RobustnessScenarios, total=False):
    """A robustness suite file."""

    defaults: Defaults  # its tags only
