"""The robustness family (Nickel et al.): stages, sceneries in complexity classes, scenes.

A suite's scenarios are *stages* (an unexpected-contents or unexpected-transfer
base story). Each stage lists its *sceneries*: the story rewritten for one
complexity class (or `no_complication`). Each scenery yields 16 *scenes* (see
`robustness_scenes`), one item each, with the id `<stage>::<scenery>::<scene>`
and the group `<stage>::<scenery>`, so that goal accuracy is the share of
sceneries whose 16 scenes are all right.

Answers are JSON with a top-level `final` object (`pytest_tom.scoring.json_final`);
the metrics are turn and goal accuracy overall and per complexity class, with
the coin-toss baselines beside them, laid out like the paper's Tables 1 and 2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tom.core.model import ItemSpec, Suite
from pytest_tom.core.outcome import UNPARSEABLE, Outcome
from pytest_tom.families.base import (
    Family,
    FamilyResult,
    Message,
    ScoringContext,
    Settings,
    single_call,
    two_calls,
)
from pytest_tom.families.robustness.headline import METRICS, PLOTS
from pytest_tom.families.robustness.metrics import aggregate_records
from pytest_tom.families.robustness.prompts import COT_FIRST, COT_FOLLOW_UP, scene_prompt
from pytest_tom.families.robustness.scenes import Scene, SceneryBuilder, scenery_id
from pytest_tom.families.robustness.schema import DEFAULTS, STAGE
from pytest_tom.metrics.accuracy import Record
from pytest_tom.scoring.json_final import score_final
from pytest_tom.suite.schema import Checker, check_unique_ids


class RobustnessFamily(Family):
    name = "robustness"
    methods = ("vanilla", "cot")
    headline_metrics = METRICS
    plots = PLOTS
    metric_patterns = ("class.*", "variant.*")  # names beyond aggregate([]) (usage_checks)
    answer_tokens = 128  # the answer is a small JSON between markers
    scenario_schema = STAGE
    defaults_schema = DEFAULTS
    description = ("robustness classes (Nickel et al.): stages, sceneries per complexity class, "
                   "16 scenes each, JSON answers, turn and goal accuracy")

    # -- loading ----------------------------------------------------------------------
    def _scenes(self, stage: dict[str, Any], si: int) -> tuple[list[tuple[dict[str, Any], list[Scene]]],
                                                                   list[tuple[Any, str]]]:
        builder = SceneryBuilder(stage, ("scenarios", si))
        out = []
        for ci, sc in enumerate(stage["sceneries"]):
            out.append((sc, builder.scenes(sc, ("scenarios", si, "sceneries", ci))))
        return out, builder.problems

    def check(self, data: dict[str, Any], ck: Checker) -> None:
        stages = data.get("scenarios") or []
        check_unique_ids(stages, ("scenarios",), ck, "stage")
        for si, stage in enumerate(stages):
            sceneries = stage["sceneries"]
            first: dict[str, int] = {}
            for ci, sc in enumerate(sceneries):
                sid = scenery_id(sc)
                path = ("scenarios", si, "sceneries", ci)
                if sid in first:
                    line = ck.at(("scenarios", si, "sceneries", first[sid]))[0]
                    ck.error((*path, "id") if "id" in sc else (*path, "class"),
                             f"stage {stage['id']!r}: scenery {sid!r} repeats the scenery on "
                             f"line {line}; give the second one its own 'id:'")
                first.setdefault(sid, ci)
                for i, scene in enumerate(sc.get("scenes") or []):
                    ans = scene.get("answer")
                    if ans is not None and not (isinstance(ans, str) or (
                            isinstance(ans, list) and ans and all(isinstance(a, str) for a in ans))):
                        ck.error((*path, "scenes", i, "answer"), "answer: expected a role, unknown, "
                                 "an answer text or a list of accepted answer texts")
            _, problems = self._scenes(stage, si)
            for path, message in dict.fromkeys(problems):  # stage-level ones repeat per scenery
                ck.error(path, f"stage {stage['id']!r}: {message}")

    def expand(self, suite: Suite, data: dict[str, Any], settings: Settings,
               line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
        default_tags = list((data.get("defaults") or {}).get("tags", []))
        items: list[ItemSpec] = []
        for si, stage in enumerate(data["scenarios"]):
            built, _ = self._scenes(stage, si)
            for sc, scenes in built:
                for scene in scenes:
                    items.append(self._item(suite, stage, sc, scene, default_tags,
                                            line_of(scene.path)))
        return items

    def _item(self, suite: Suite, stage: dict[str, Any], sc: dict[str, Any], scene: Scene,
              default_tags: list[str], line: int) -> ItemSpec:
        stage_id, sid, cls = str(stage["id"]), scenery_id(sc), str(sc["class"])
        tags = list(dict.fromkeys([*default_tags, *stage.get("tags", []), cls, str(stage["type"]),
                                   *sc.get("tags", [])]))
        meta: dict[str, Any] = {
            "class": cls, "stage": stage_id, "stage_type": str(stage["type"]), "scenery": sid,
            "variant": scene.variant, "objects": scene.binding, "question": scene.question,
            "agent": scene.agent, "wrong": {scene.key: scene.wrong},
        }
        if scene.beliefs:
            meta["beliefs"] = scene.beliefs
        gold = {scene.key: scene.right[0] if len(scene.right) == 1 else scene.right}
        return ItemSpec(
            id=f"{stage_id}::{sid}::{scene.id}", suite=suite.name, family=self.name,
            scenario=stage_id, kind=scene.question, question=scene.ask, gold=gold,
            group=f"{stage_id}::{sid}", tags=tags,
            markers=[scene.variant, f"objects_{scene.binding}"],
            source={"file": suite.path, "line": line, "stage": stage_id, "scenery": sid,
                    **(stage.get("source") or {})},
            meta=meta, line=line,
            data={"text": scene.text, "ask": scene.ask, "key": scene.key,
                  "right": {scene.key: scene.right}, "wrong": {scene.key: scene.wrong}},
        )

    # -- asking and scoring -----------------------------------------------------------
    def conversation(self, item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
        d = item.data
        prompt = scene_prompt(d["text"], d["ask"], d["key"])
        if method == "cot":
            first = [{"role": "user", "content": f"{prompt}\n\n{COT_FIRST}"}]
            return two_calls(first, COT_FOLLOW_UP.format(key=d["key"]), responses)
        return single_call([{"role": "user", "content": prompt}], responses)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        verdict = score_final(response, item.data["right"], item.data["wrong"])
        if verdict.unparseable:
            return Outcome(correct=False, parsed=verdict.parsed or None, error=UNPARSEABLE,
                           detail=verdict.detail)
        return Outcome(correct=verdict.correct, parsed=verdict.parsed, detail=verdict.detail)

    def aggregate(self, records: list[Record], settings: Settings) -> FamilyResult:
        return aggregate_records(records, settings)
