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
from pytest_tom.families.robustness.headline import METRICS, PLOTS
from pytest_tom.families.robustness.prompts import COT_FIRST, COT_FOLLOW_UP, scene_prompt
from pytest_tom.families.robustness.scenes import VARIANTS, Scene, SceneryBuilder, scenery_id
from pytest_tom.families.robustness.schema import CLASSES, DEFAULTS, STAGE
from pytest_tom.metrics.accuracy import Record, ratio
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

    # -- metrics ----------------------------------------------------------------------
    def aggregate(self, records: list[Record], settings: Settings) -> FamilyResult:
        by_class, cells = _count(records)
        order = [c for c in CLASSES if c in by_class] + sorted(set(by_class) - set(CLASSES))
        overall = _ClassCounts()
        for counts in by_class.values():
            overall.add(counts)
        metrics: dict[str, float | int | None] = {}
        turn_rows: list[list[Any]] = []
        goal_rows: list[list[Any]] = []
        for name, counts in [*((c, by_class[c]) for c in order), ("overall", overall)]:
            row = counts.row()
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
        variant_rows, variant_metrics = _variant_table(cells)
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


class _ClassCounts:
    """The counts of one row of the class tables: scenes judged, right and unparseable, and
    per scenery its scenes and whether every judged one is right."""

    __slots__ = ("judged", "right", "unparseable", "sizes", "seen", "failed")

    def __init__(self) -> None:
        self.judged = self.right = self.unparseable = 0
        self.sizes: dict[str, int] = defaultdict(int)  # scenery -> scenes
        self.seen: set[str] = set()  # sceneries with a judged scene
        self.failed: set[str] = set()  # ... and with a judged scene wrong

    def add(self, other: _ClassCounts) -> None:
        """Count `other`'s scenes here too (the overall row adds up the classes)."""
        self.judged += other.judged
        self.right += other.right
        self.unparseable += other.unparseable
        for key, n in other.sizes.items():
            self.sizes[key] += n
        self.seen |= other.seen
        self.failed |= other.failed

    def row(self) -> dict[str, Any]:
        sizes = self.sizes
        n = len(self.seen)
        ok = n - len(self.failed)
        return {
            "sceneries": len(sizes), "judged": self.judged, "right": self.right,
            "unparseable": self.unparseable,
            "turn": ratio(self.right, self.judged), "goal": ratio(ok, n), "all_right": ok,
            "coin_goal": (sum(coin_goal(s) for s in sizes.values()) / len(sizes)) if sizes else None,
        }


Cells = dict[tuple[Any, str], list[int]]  # (variant, question or "all") -> [right, judged]


def _count(records: list[Record]) -> tuple[dict[str, _ClassCounts], Cells]:
    """One pass over the records (a 100,000-record run reads each once): the counts of each
    complexity class, and the cells of the variant table."""
    by_class: dict[str, _ClassCounts] = {}
    cells: Cells = defaultdict(lambda: [0, 0])
    for r in records:
        item, outcome = r["item"], r["outcome"]
        meta = item["meta"]
        cls = meta.get("class", "?")
        counts = by_class.get(cls)
        if counts is None:
            counts = by_class[cls] = _ClassCounts()
        key = item.get("group") or item["scenario"]
        counts.sizes[key] += 1
        error = outcome.get("error")
        if error == UNPARSEABLE:
            counts.unparseable += 1
        correct = outcome.get("correct")
        if correct is None or error == UNAVAILABLE:
            continue
        right = bool(correct)
        counts.judged += 1
        counts.right += right
        counts.seen.add(key)
        if not right:
            counts.failed.add(key)
        variant = meta.get("variant")
        for cell in (cells[(variant, meta.get("question"))], cells[(variant, "all")]):
            cell[0] += right
            cell[1] += 1
    return by_class, cells


def _variant_table(cells: Cells) -> tuple[list[list[Any]], dict[str, float | None]]:
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
