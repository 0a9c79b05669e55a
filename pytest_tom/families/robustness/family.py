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

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from pytest_tom.core.model import ItemSpec, Suite
from pytest_tom.core.outcome import UNAVAILABLE, UNPARSEABLE, Outcome
from pytest_tom.families.base import (
    Family,
    FamilyResult,
    Message,
    MetricTable,
    ScoringContext,
    Settings,
    single_call,
    two_calls,
)
from pytest_tom.families.robustness.prompts import COT_FIRST, COT_FOLLOW_UP, scene_prompt
from pytest_tom.families.robustness.scenes import VARIANTS, Scene, SceneryBuilder, scenery_id
from pytest_tom.families.robustness.schema import CLASSES, DEFAULTS, STAGE
from pytest_tom.metrics.accuracy import Record, judged, ratio
from pytest_tom.metrics.numbers import pct, pct_of, tiny_pct
from pytest_tom.scoring.json_final import score_final
from pytest_tom.suite.schema import Checker, check_unique_ids

COIN_TURN = 0.5  # two plausible answers per scene (the paper's turn baseline)


def coin_goal(scenes: int) -> float:
    """Chance that coin tosses answer every scene of a scenery right (2^-16 for 16 scenes)."""
    return COIN_TURN ** scenes


class RobustnessFamily(Family):
    name = "robustness"
    methods = ("vanilla", "cot")
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

    # -- metrics ----------------------------------------------------------------------
    def aggregate(self, records: list[Record], settings: Settings) -> FamilyResult:
        by_class: dict[str, list[Record]] = defaultdict(list)
        for r in records:
            by_class[r["item"]["meta"].get("class", "?")].append(r)
        order = [c for c in CLASSES if c in by_class] + sorted(set(by_class) - set(CLASSES))
        metrics: dict[str, float | int | None] = {}
        turn_rows: list[list[Any]] = []
        goal_rows: list[list[Any]] = []
        for name, recs in [*((c, by_class[c]) for c in order), ("overall", records)]:
            row = _class_row(recs)
            label = CLASSES.get(name, name)
            turn_rows.append([label, row["sceneries"], row["judged"], row["right"],
                              row["unparseable"], pct(row["turn"]), pct(COIN_TURN)])
            goal_rows.append([label, row["sceneries"], row["all_right"], pct(row["goal"]),
                              tiny_pct(row["coin_goal"])])
            prefix = "" if name == "overall" else f"class.{name}."
            metrics[f"{prefix}turn"] = row["turn"]
            metrics[f"{prefix}goal"] = row["goal"]
            if name == "overall":
                metrics["sceneries"] = row["sceneries"]
                metrics["baseline.turn"] = COIN_TURN
                metrics["baseline.goal"] = row["coin_goal"]
            else:
                metrics[f"{prefix}sceneries"] = row["sceneries"]
        variant_rows, variant_metrics = _variant_table(records)
        metrics.update(variant_metrics)
        tables = [
            MetricTable("Turn accuracy by complexity class (as the paper's Table 1)",
                        ["complexity class", "sceneries", "scenes", "right", "unparseable",
                         "turn acc", "coin toss"], turn_rows,
                        "turn accuracy = scenes answered right / scenes; coin toss = 50.0%"),
            MetricTable("Goal accuracy by complexity class (as the paper's Table 2)",
                        ["complexity class", "sceneries", "all scenes right", "goal acc",
                         "coin toss"], goal_rows,
                        "goal accuracy = sceneries with every scene right / sceneries; "
                        "coin toss = 2^-scenes per scenery (2^-16 = 1.5e-05)"),
            MetricTable("Turn accuracy by scene variant", ["variant", "belief", "world", "all"],
                        variant_rows, "variants: story as written, true belief, informed "
                        "protagonist, visible true state; each with the objects as written "
                        "and swapped"),
        ]
        return FamilyResult(metrics=metrics, tables=tables)


def _class_row(records: list[Record]) -> dict[str, Any]:
    judged_n = right = unparseable = 0
    groups: dict[str, bool] = {}  # sceneries with a judged scene: all judged scenes right
    sizes: dict[str, int] = defaultdict(int)
    for r in records:  # one pass (a 100,000-record run has 4 rows of this)
        item, outcome = r["item"], r["outcome"]
        key = item.get("group") or item["scenario"]
        sizes[key] += 1
        error = outcome.get("error")
        if error == UNPARSEABLE:
            unparseable += 1
        correct = outcome.get("correct")
        if correct is None or error == UNAVAILABLE:
            continue
        judged_n += 1
        right += bool(correct)
        groups[key] = groups.get(key, True) and bool(correct)
    ok, n = sum(groups.values()), len(groups)
    return {
        "sceneries": len(sizes), "judged": judged_n, "right": right,
        "unparseable": unparseable,
        "turn": ratio(right, judged_n), "goal": ratio(ok, n), "all_right": ok,
        "coin_goal": (sum(coin_goal(s) for s in sizes.values()) / len(sizes)) if sizes else None,
    }


def _variant_table(records: list[Record]) -> tuple[list[list[Any]], dict[str, float | None]]:
    cells: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in judged(records):
        meta = r["item"]["meta"]
        for key in ((meta.get("variant"), meta.get("question")), (meta.get("variant"), "all")):
            cells[key][0] += bool(r["outcome"]["correct"])
            cells[key][1] += 1
    variants = [v for v in VARIANTS if any(k[0] == v for k in cells)]
    variants += sorted({k[0] for k in cells} - set(VARIANTS))
    rows, metrics = [], {}
    for v in variants:
        row: list[Any] = [v]
        for q in ("belief", "world", "all"):
            right, n = cells.get((v, q), (0, 0))
            row.append(pct_of(right, n))
            metrics[f"variant.{v}.{q}.turn"] = ratio(right, n)
        rows.append(row)
    return rows, metrics
