"""Robustness items: one item per scene, with the id `<stage>::<scenery>::<scene>` and the
group `<stage>::<scenery>`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from typing import TypedDict

from pytest_tom.families.kit import Defaults
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Suite
from pytest_tom.families.kit import tags_of
from pytest_tom.families.robustness.scenes import Scene
from pytest_tom.families.robustness.scenes import scenery_id
from pytest_tom.families.robustness.scenes import scenes_of
from pytest_tom.families.robustness.suite_shape import RobustnessSuite
from pytest_tom.families.robustness.suite_shape import Scenery
from pytest_tom.families.robustness.suite_shape import Stage

# An item's meta: the scene's class, stage, scenery, variant, object binding, question and
# agent, the answers that must not appear, and (a scene with a trace) the protagonist's
# belief after each sentence; metrics.py reads them ("class" is a keyword, hence this form)
_SceneMeta = TypedDict("_SceneMeta", {
    "class": str, "stage": str, "stage_type": str, "scenery": str, "variant": str,
    "objects": str, "question": str, "agent": str, "wrong": dict[str, list[str]],
})


class SceneMeta(_SceneMeta, total=False):
    beliefs: list[str]


def expand(suite: Suite, data: RobustnessSuite, settings: Settings,
           line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
    """The items of a robustness suite, stage by stage."""
    defaults = data.get("defaults") or {}
    items: list[ItemSpec] = []
    for si, stage in enumerate(data["scenarios"]):
        built, _ = scenes_of(stage, si)
        for sc, scenes in built:
            items.extend(item_of(suite, stage, sc, scene, defaults, line_of(scene.path))
                         for scene in scenes)
    return items


def item_of(suite: Suite, stage: Stage, sc: Scenery, scene: Scene,
            defaults: Defaults, line: int) -> ItemSpec:
    """The item of one scene of scenery `sc` of `stage`."""
    family = suite.family
    stage_id, sid, cls = str(stage["id"]), scenery_id(sc), str(sc["class"])
    tags = tags_of(defaults, stage, cls, str(stage["type"]), sc)
    meta: SceneMeta = {
        "class": cls, "stage": stage_id, "stage_type": str(stage["type"]), "scenery": sid,
        "variant": scene.variant, "objects": scene.binding, "question": scene.question,
        "agent": scene.agent, "wrong": {scene.key: scene.wrong},
    }
    if scene.beliefs:
        meta["beliefs"] = scene.beliefs
    gold = {scene.key: scene.right[0] if len(scene.right) == 1 else scene.right}
    return ItemSpec(
        id=f"{stage_id}::{sid}::{scene.id}", suite=suite.name, family=family,
        scenario=stage_id, kind=scene.question, question=scene.ask, gold=gold,
        group=f"{stage_id}::{sid}", tags=tags,
        markers=[scene.variant, f"objects_{scene.binding}"],
        source={"file": suite.path, "line": line, "stage": stage_id, "scenery": sid,
                **(stage.get("source") or {})},
        meta=meta, line=line,
        data={"text": scene.text, "ask": scene.ask, "key": scene.key,
              "right": {scene.key: scene.right}, "wrong": {scene.key: scene.wrong}},
    )
