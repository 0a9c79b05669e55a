"""The robustness family in process: the bundled stages, scene generation, checks, metrics."""

from __future__ import annotations

import json
import re
import textwrap
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from conftest import SUITES
from robustness_support import WRONG_CLASS, one_wrong_in_class, right, wrong_scene_of

from pytest_tom import families
from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.base import ScoringContext, Settings
from pytest_tom.families.robustness.metrics import coin_goal
from pytest_tom.families.robustness.scenes import sentences
from pytest_tom.families.robustness.schema import CLASSES
from pytest_tom.items.offline import score_records
from pytest_tom.results.aggregate import aggregate, family_result
from pytest_tom.suite import ItemSpec, SuiteError

ROBUSTNESS = SUITES / "robustness"
FAMILY = families.get("robustness")
EXPECTED_SCENERIES = {  # per class, as the paper's tables imply
    "no_complication": 7, "transparent_container": 7, "preposition_replacement": 5,
    "uninformative_label": 4, "late_label": 7, "non_protagonist_belief": 7,
    "automatic_change_knowledge": 5, "add_unrelated_information": 7,
    "induction_from_baseline": 6, "untrustworthy_testimony": 7, "conclusion_from_sentiment": 6,
}
SCENE_IDS = {f"{v}.{b}.{q}" for v in ("story", "true_belief", "informed", "visible")
             for b in ("orig", "swap") for q in ("belief", "world")}


@pytest.fixture(scope="module")
def bundled() -> list[ItemSpec]:
    items: list[ItemSpec] = []
    for path in sorted(ROBUSTNESS.glob("*.tom.yaml")):
        items.extend(load_suite(path).items)
    return items


def by_scenery(items: list[ItemSpec]) -> dict[str, dict[str, ItemSpec]]:
    out: dict[str, dict[str, ItemSpec]] = defaultdict(dict)
    for it in items:
        out[it.group][it.id.split("::")[-1]] = it
    return out


def records(items: list[ItemSpec], answer: Any) -> list[dict[str, Any]]:
    """Score every item in process with an answerer of robustness_support."""
    return score_records(items, answer)


def reported(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """The suite's figures as a run reports them: metrics (the family's, its declared ones
    and the core turn and goal) and tables (as in the JSON report)."""
    return aggregate(recs, Settings())["suites"][recs[0]["item"]["suite"]]


def test_bundled_suite_shape(bundled: list[ItemSpec]) -> None:
    assert len(bundled) == 1088
    assert {it.suite for it in bundled} == {"robustness"}
    stages = {it.scenario: it.meta["stage_type"] for it in bundled}
    assert Counter(stages.values()) == {"unexpected_contents": 4, "unexpected_transfer": 3}
    sceneries = by_scenery(bundled)
    assert len(sceneries) == 68
    for group, scenes in sceneries.items():
        assert set(scenes) == SCENE_IDS, group
        assert all(it.id == f"{group}::{sid}" for sid, it in scenes.items())
    classes = Counter(next(iter(s.values())).meta["class"] for s in sceneries.values())
    assert classes == EXPECTED_SCENERIES
    for it in bundled:  # the class and the stage type are tags (markers)
        assert it.meta["class"] in it.tags and it.meta["stage_type"] in it.tags
    uninformative = {it.meta["stage_type"] for it in bundled
                     if it.meta["class"] == "uninformative_label"}
    assert uninformative == {"unexpected_contents"}


def test_scenes_are_consistent(bundled: list[ItemSpec]) -> None:
    for group, scenes in by_scenery(bundled).items():
        texts = {sid: it.data["text"] for sid, it in scenes.items()}
        for it in scenes.values():
            assert not re.search(r"\{\w+\}", it.data["text"] + it.question), it.id
            key = next(iter(it.gold))
            right_answers = it.data["right"][key]
            assert right_answers and it.data["wrong"][key], it.id
            assert not set(right_answers) & set(it.data["wrong"][key]), it.id
            if it.kind == "world":  # the true state is always something the text names
                assert right_answers[0] in it.data["text"], it.id
        for q in ("belief", "world"):  # the four variants are four different texts
            assert len({texts[f"{v}.orig.{q}"] for v in ("story", "true_belief", "informed",
                                                          "visible")}) == 4, group
        for v in ("story", "true_belief", "informed", "visible"):
            orig, swap = scenes[f"{v}.orig.world"], scenes[f"{v}.swap.world"]
            assert orig.data["text"] != swap.data["text"], group
            assert orig.gold != swap.gold, group  # the object swap changes the answer
            # both questions of a variant are about the same text
            assert scenes[f"{v}.orig.belief"].data["text"] == orig.data["text"]
        cls = scenes["story.orig.belief"].meta["class"]
        for v in ("informed", "visible"):  # told or shown the truth: belief = world
            assert scenes[f"{v}.orig.belief"].gold == scenes[f"{v}.orig.world"].gold, group
        if cls not in ("uninformative_label", "preposition_replacement"):
            assert scenes["true_belief.orig.belief"].gold == scenes["true_belief.orig.world"].gold


def test_false_belief_in_every_base_story(bundled: list[ItemSpec]) -> None:
    for group, scenes in by_scenery(bundled).items():
        if scenes["story.orig.belief"].meta["class"] == "no_complication":
            assert scenes["story.orig.belief"].gold != scenes["story.orig.world"].gold, group


def test_belief_traces(bundled: list[ItemSpec]) -> None:
    annotated = [it for it in bundled if "beliefs" in it.meta]
    assert {it.meta["class"] for it in annotated} >= {"no_complication"}
    for it in annotated:
        trace = it.meta["beliefs"]
        assert len(trace) == len(sentences(it.data["text"])), it.id
        if it.kind == "belief" and it.meta["class"] == "no_complication":
            assert trace[-1] == next(iter(it.gold.values())), it.id
    assert len([it for it in annotated if it.meta["class"] == "no_complication"]) == 7 * 12


def test_prompt_and_methods(bundled: list[ItemSpec]) -> None:
    it = next(i for i in bundled if i.id == "button-tin::no_complication::story.orig.belief")
    msgs = FAMILY.conversation(it, "vanilla", [])
    assert msgs is not None and len(msgs) == 1
    prompt = msgs[0]["content"]
    assert "===BEGIN JSON===" in prompt and '"final"' in prompt
    assert it.data["text"] in prompt and "What does Mira think is inside the tin?" in prompt
    assert 'Use "tin" as the entry inside "final".' in prompt
    assert FAMILY.conversation(it, "vanilla", ["x"]) is None
    first = FAMILY.conversation(it, "cot", [])
    second = FAMILY.conversation(it, "cot", ["Step by step ..."])
    assert first and second and len(second) == 3 and '"tin"' in second[-1]["content"]
    assert FAMILY.conversation(it, "cot", ["a", "b"]) is None


def test_gold_answers_score_everything_right(bundled: list[ItemSpec]) -> None:
    recs = records(bundled, right)
    assert all(r["outcome"]["correct"] for r in recs)
    result = reported(recs)
    m = result["metrics"]
    assert m["turn"] == 1.0 and m["goal"] == 1.0 and m["sceneries"] == 68
    for cls, n in EXPECTED_SCENERIES.items():
        assert m[f"class.{cls}.turn"] == 1.0 and m[f"class.{cls}.goal"] == 1.0
        assert m[f"class.{cls}.sceneries"] == n
    assert m["baseline.turn"] == 0.5 and m["baseline.goal"] == pytest.approx(2 ** -16)
    titles = [t["title"] for t in result["tables"]]
    assert any("Table 1" in t for t in titles) and any("Table 2" in t for t in titles)


def test_one_wrong_scene_per_scenery_breaks_that_class_goal(bundled: list[ItemSpec]) -> None:
    recs = records(bundled, one_wrong_in_class)
    wrong = [r for r in recs if not r["outcome"]["correct"]]
    assert len(wrong) == EXPECTED_SCENERIES[WRONG_CLASS]
    assert {r["item"]["id"].split("::")[-1] for r in wrong} == {
        wrong_scene_of(r["item"]["scenario"]) for r in wrong}
    m = reported(recs)["metrics"]
    assert m[f"class.{WRONG_CLASS}.goal"] == 0.0
    assert m[f"class.{WRONG_CLASS}.turn"] == 15 / 16
    for cls in set(EXPECTED_SCENERIES) - {WRONG_CLASS}:
        assert m[f"class.{cls}.turn"] == 1.0 and m[f"class.{cls}.goal"] == 1.0
    assert m["goal"] == (68 - 5) / 68 and m["turn"] == (1088 - 5) / 1088


def test_tables_layout(bundled: list[ItemSpec]) -> None:
    recs = records(bundled, one_wrong_in_class)
    t1, t2, t3 = family_result("robustness", recs, Settings()).tables
    assert [r[0] for r in t1.rows] == [*CLASSES.values(), "overall"]
    auto = next(r for r in t1.rows if r[0] == "automatic change knowledge")
    assert auto == ["automatic change knowledge", 5, 80, 75, 0, "93.8%", "50.0%"]  # 75/80
    auto = next(r for r in t2.rows if r[0] == "automatic change knowledge")
    # the coin toss of 16 scenes, 2^-16, is far below 0.1%: said so, with its value
    assert auto == ["automatic change knowledge", 5, 0, "0.0%", "<0.1% (1.5e-05)"]
    assert t2.rows[-1][:4] == ["overall", 68, 63, "92.6%"]  # 63/68 = 92.65%
    assert [r[0] for r in t3.rows] == ["story", "true_belief", "informed", "visible"]
    json.dumps([t.to_dict() for t in (t1, t2, t3)])  # plain data for the JSON report


def test_errors_and_unparseable_stay_in_denominators(bundled: list[ItemSpec]) -> None:
    items = [it for it in bundled if it.group == "kitten::late_label"]
    recs = records(items, right)
    recs[0]["outcome"] = {"correct": False, "error": "request_failed", "parsed": None,
                          "value": None, "detail": "boom", "extra": {}}
    recs[1]["outcome"] = FAMILY.score(items[1], "no json here", ScoringContext(Settings())).to_dict()
    assert recs[1]["outcome"]["error"] == "unparseable"
    result = reported(recs)
    assert result["metrics"]["turn"] == 14 / 16 and result["metrics"]["goal"] == 0.0
    assert result["tables"][0]["rows"][0][2:5] == [16, 14, 1]


# -- writing stages: checks and hand-written scenes -------------------------------------
STAGE = """\
suite: t
family: robustness
version: 1
scenarios:
  - id: tin
    type: unexpected_contents
    protagonist: Mira
    key: tin
    objects: {real: buttons, label: biscuits}
    ask:
      belief: "What does {agent} think is inside the tin?"
      world: "What is inside the tin?"
    belief: label
    world: real
    variants:
      true_belief:
        replace:
          - old: 'says "{label}"'
            new: 'says "{real}"'
      informed:
        append: Jan tells her that the tin is full of {real}.
        beliefs: [real]
      visible:
        append: Mira opens the tin.
    sceneries:
"""


def write(tmp_path: Path, sceneries: str, stage: str = STAGE) -> Path:
    path = tmp_path / "s.tom.yaml"
    path.write_text(stage + textwrap.indent(textwrap.dedent(sceneries), "      "), encoding="utf-8")
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    return [str(p) for p in info.value.problems]


def test_a_minimal_stage_loads(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        - class: no_complication
          text: The tin is full of {real}. The label says "{label}". Mira reads it.
          beliefs: [unknown, unknown, label]
        """)
    items = load_suite(path).items
    assert len(items) == 16
    it = {i.id: i for i in items}
    assert it["tin::no_complication::story.orig.belief"].gold == {"tin": "biscuits"}
    assert it["tin::no_complication::story.swap.belief"].gold == {"tin": "buttons"}
    assert it["tin::no_complication::true_belief.orig.belief"].gold == {"tin": "buttons"}
    assert it["tin::no_complication::informed.orig.belief"].meta["beliefs"] == [
        "unknown", "unknown", "biscuits", "buttons"]
    assert "beliefs" not in it["tin::no_complication::visible.orig.belief"].meta
    assert it["tin::no_complication::story.orig.world"].meta["wrong"] == {"tin": ["biscuits"]}
    assert it["tin::no_complication::story.orig.world"].line == 26


@pytest.mark.parametrize(("scenery", "expected"), [
    ("""\
     - class: late_label
       text: Mira fills the tin with {real}. A label is added later.
     """, ["s.tom.yaml:18:", "variant true_belief: 'says \"{label}\"' does not occur in the text "
           "of scenery tin::late_label; fix the edit or override variants.true_belief"]),
    ("""\
     - class: no_complication
       text: The tin is full of {reel}. The label says "{label}".
     """, ["text: unknown placeholder {reel} (did you mean 'real'?)"]),
    ("""\
     - class: no_complication
       belief: lable
       text: The tin is full of {real}. The label says "{label}".
     """, ["belief: 'lable' is not a role of the objects (did you mean 'label'?)"]),
    ("""\
     - class: no_complication
       text: The tin is full of {real}. The label says "{label}". Mira reads it.
       beliefs: [unknown, label]
     """, ["beliefs: 2 entries for 3 sentences"]),
    ("""\
     - class: no_complication
       text: The tin is full of {real}. The label says "{label}". Mira reads it.
       beliefs: [unknown, unknown, real]
     """, ["the belief after the last sentence is 'real' but the scenery's belief answer is "
           "'label'"]),
    ("""\
     - class: no_complication
       text: The tin is full of {real}. The label says "{label}".
     - class: no_complication
       text: The tin holds {real}. It says "{label}".
     """, ["scenery 'no_complication' repeats the scenery on line 26; give the second one its "
           "own 'id:'"]),
    ("""\
     - class: automatic_change_knowledge
       objects: {before: eggs, after: chicks}
       swap: {before: eggs, chicks: ducks}
       belief: before
       world: after
       text: Eggs {before} become {after}. The label says "{label}".
     """, ["swap: roles ['before', 'chicks'] differ from the objects' roles"]),
    ("""\
     - class: automatic_change_knowledge
       objects: {before: eggs, after: Eggs}
       text: x
     """, ["objects: 'Eggs' is given for both 'before' and 'after'"]),
    ("""\
     - class: no_complication
       text: The tin is full of {real}. The label says "{label}".
       variants:
         visible: {belief: real}
     """, []),
])
def test_stage_problems_name_the_line_and_the_fix(tmp_path: Path, scenery: str,
                                                  expected: list[str]) -> None:
    path = write(tmp_path, scenery)
    if not expected:
        assert len(load_suite(path).items) == 16
        return
    found = "\n".join(problems(path))
    for text in expected:
        assert text in found, found


def test_missing_variant_is_reported(tmp_path: Path) -> None:
    stage = STAGE.replace("      visible:\n        append: Mira opens the tin.\n", "")
    path = write(tmp_path, """\
        - class: no_complication
          text: The tin is full of {real}. The label says "{label}".
        """, stage)
    assert any("no 'visible' variant: declare variants.visible" in p for p in problems(path))


def test_hand_written_scenes(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        - class: late_label
          belief: real
          text: Mira fills the tin with {real}. Later a label saying "{label}" is added.
          scenes:
            - {id: s1, question: belief}
            - {id: s2, question: world, objects: swap}
            - id: s3
              text: Mira opens the tin. It is full of {real}.
              ask: "What does {agent} now know is in the tin?"
              answer: [buttons, button]
            - id: s4
              ask: "What colour is the tin?"
              answer: red
              wrong: [blue, label]
        """)
    items = {i.id.split("::")[-1]: i for i in load_suite(path).items}
    assert set(items) == {"s1", "s2", "s3", "s4"}
    assert items["s1"].gold == {"tin": "buttons"} and items["s1"].kind == "belief"
    assert items["s2"].gold == {"tin": "biscuits"}
    assert items["s3"].gold == {"tin": ["buttons", "button"]}
    assert items["s3"].meta["wrong"] == {"tin": ["biscuits"]}
    assert items["s3"].question == "What does Mira now know is in the tin?"
    assert items["s4"].meta["wrong"] == {"tin": ["blue", "biscuits"]}
    assert all(i.group == "tin::late_label" for i in items.values())
    recs = records(list(items.values()), right)
    m = reported(recs)["metrics"]
    assert m["goal"] == 1.0
    assert m["baseline.goal"] == coin_goal(4) == 2 ** -4
