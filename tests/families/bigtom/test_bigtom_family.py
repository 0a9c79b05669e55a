"""The BigToM family in process: template format, the 25 conditions, prompts, parsing, metrics."""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from bigtom_support import CONDITION_IDS
from conftest import SUITES

from pytest_tom import families
from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.base import ScoringContext, Settings
from pytest_tom.families.bigtom.prompts import EXAMPLE_LETTER, EXAMPLE_OPTIONS
from pytest_tom.metrics.pairing import JointScore, joint_score
from pytest_tom.suite import SuiteError

BUNDLED = SUITES / "bigtom" / "everyday-causal-templates.tom.yaml"
SENSES = {"sight", "hearing", "touch", "smell", "reading"}

TEMPLATE = {
    "id": "t1",
    "context": "C.", "desire": "D.", "percept": "P.", "initial_belief": "B.",
    "causal_event": {"event": "E.", "aware": "EA.", "not_aware": "EN."},
    "random_event": {"event": "R.", "aware": "RA.", "not_aware": "RN."},
    "action": {"new_state": "ActNew.", "initial_state": "ActInit."},
    "belief_question": {"ask": "BQ?", "aware": "belief new", "not_aware": "belief old"},
    "action_question": {"ask": "AQ?", "aware": "action new", "not_aware": "action old"},
}

# The paper's composition rules, written out once more, independently of the family:
# (story sentences without the initial-belief slot, question, right answer).
STORY = {
    "forward_belief.true_belief": ("E. EA.", "BQ?", "belief new"),
    "forward_belief.false_belief": ("E. EN.", "BQ?", "belief old"),
    "forward_belief.true_control": ("R. RA.", "BQ?", "belief old"),
    "forward_belief.false_control": ("R. RN.", "BQ?", "belief old"),
    "forward_action.true_belief": ("E. EA.", "AQ?", "action new"),
    "forward_action.false_belief": ("E. EN.", "AQ?", "action old"),
    "forward_action.true_control": ("R. RA.", "AQ?", "action old"),
    "forward_action.false_control": ("R. RN.", "AQ?", "action old"),
    "backward_belief.true_belief": ("E. ActNew.", "BQ?", "belief new"),
    "backward_belief.false_belief": ("E. ActInit.", "BQ?", "belief old"),
    "backward_belief.true_control": ("R. ActInit.", "BQ?", "belief old"),
    "backward_belief.false_control": ("R. ActInit.", "BQ?", "belief old"),
}


def write_suite(tmp_path: Path, templates: list[dict[str, Any]], name: str = "s") -> Path:
    doc = {"suite": name, "family": "bigtom", "version": 1, "scenarios": templates}
    path = tmp_path / f"{name}.tom.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def templates(n: int) -> list[dict[str, Any]]:
    return [{**TEMPLATE, "id": f"t{i}"} for i in range(n)]


# -- the bundled suite ---------------------------------------------------------------------
def test_bundled_suite_has_diverse_templates() -> None:
    suite = load_suite(BUNDLED)
    doc = yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))
    assert len(doc["scenarios"]) >= 20
    assert len(suite.items) == 25 * len(doc["scenarios"])
    tags = Counter(t for sc in doc["scenarios"] for t in sc["tags"])
    assert set(tags) >= SENSES, tags
    for sc in doc["scenarios"]:
        assert len(set(sc["tags"]) & (SENSES | {"taste"})) == 1, sc["id"]  # one sense each
    mechanisms = set(tags) - SENSES - {"taste"}
    assert len(mechanisms) >= 10, mechanisms
    agents = {sc["context"].split()[0] for sc in doc["scenarios"]}
    assert len(agents) == len(doc["scenarios"])  # a different agent in every template


def test_bundled_suite_loads_under_every_method() -> None:
    for method in ("vanilla", "cot", "1shot", "1shot-cot"):
        assert len(load_suite(BUNDLED, Settings(method=method)).items) >= 500


# -- expansion -----------------------------------------------------------------------------
def test_one_template_gives_the_25_conditions(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path, [TEMPLATE]))
    by_id = {it.id: it for it in suite.items}
    assert sorted(by_id) == sorted(f"t1::{c}" for c in CONDITION_IDS)
    for key, (tail, question, right) in STORY.items():
        for variant, opening in (("with_init", "C. D. P. B."), ("no_init", "C. D. P.")):
            it = by_id[f"t1::{key}.{variant}"]
            assert it.data["story"] == f"{opening} {tail}", it.id
            assert it.question == question and it.gold == right
            wrong = right.replace("new", "OLD").replace("old", "new").replace("OLD", "old")
            assert sorted(it.choices) == sorted([right, wrong])
            assert it.choices[ord(it.meta["gold_letter"]) - 97] == right
            assert it.group == it.scenario == "t1"
            inference, belief = key.split(".")
            variant_marker = "with_initial_belief" if variant == "with_init" else "without_initial_belief"
            assert it.markers == [inference, belief, variant_marker]
            assert it.kind == inference
    p2b = by_id["t1::percept_to_belief"]
    assert p2b.data["story"] == "C. D. P."
    assert p2b.gold == "belief old"  # the initial-state belief (upstream marks the new one)
    assert p2b.markers == ["percept_to_belief", "without_initial_belief"]


def test_prompt_shows_story_question_and_lettered_options(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path, [TEMPLATE]))
    it = next(i for i in suite.items if i.id == "t1::forward_belief.false_belief.no_init")
    text = it.data["text"]
    assert text == (f"Story: C. D. P. E. EN.\nQuestion: BQ?\nChoose one of the following:\n"
                    f"a){it.choices[0]}\nb){it.choices[1]}")


def test_option_order_is_seeded_per_item(tmp_path: Path) -> None:
    path = write_suite(tmp_path, templates(80))
    a = {i.id: i.meta["gold_letter"] for i in load_suite(path, Settings(seed=0)).items}
    b = {i.id: i.meta["gold_letter"] for i in load_suite(path, Settings(seed=0)).items}
    c = {i.id: i.meta["gold_letter"] for i in load_suite(path, Settings(seed=1)).items}
    assert a == b  # reproducible
    assert a != c  # the seed matters
    share = sum(v == "a" for v in a.values()) / len(a)
    assert 0.45 < share < 0.55
    # independent per item: a template's 25 items do not share one order (the upstream defect)
    same = [t for t in range(80) if len({a[f"t{t}::{c}"] for c in CONDITION_IDS}) == 1]
    assert same == []


def test_item_ids_select_with_markers_and_tags(tmp_path: Path) -> None:
    t = {**TEMPLATE, "tags": ["smell"]}
    suite = load_suite(write_suite(tmp_path, [t]))
    assert all(it.tags == ["smell"] for it in suite.items)
    fb = [it for it in suite.items if "false_belief" in it.markers]
    assert len(fb) == 6


# -- suite errors ----------------------------------------------------------------------------
def test_schema_problems_are_all_reported_with_lines(tmp_path: Path) -> None:
    path = tmp_path / "bad.tom.yaml"
    path.write_text(textwrap.dedent("""\
        suite: bad
        family: bigtom
        version: 1
        scenarios:
          - id: one
            context: C.
            desire: D.
            percept: P.
            intial_belief: B.
            causal_event: {event: E., aware: A., not_aware: N.}
            random_event: {event: R., aware: RA., not_aware: RN.}
            action: {new_state: X., initial_state: Y.}
            belief_question: {ask: Q?, aware: same answer, not_aware: same answer}
            action_question: {ask: Q?, aware: x}
        """), encoding="utf-8")
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    text = err.value.render()
    assert "bad.tom.yaml:9:" in text and "'intial_belief'" in text and "did you mean 'initial_belief'" in text
    assert "missing required key 'initial_belief'" in text
    assert "bad.tom.yaml:14:" in text and "missing required key 'not_aware'" in text


def test_identical_answers_and_duplicate_ids_are_errors(tmp_path: Path) -> None:
    bad = {**TEMPLATE, "belief_question": {"ask": "Q?", "aware": "Same.", "not_aware": "same"}}
    malformed = {**TEMPLATE, "id": "t2", "action": "not a mapping"}
    same_action = {**TEMPLATE, "id": "t3", "action": {"new_state": "X.", "initial_state": "x"}}
    path = write_suite(tmp_path, [bad, dict(TEMPLATE, id="t1"), malformed, same_action])
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    text = err.value.render()
    assert "scenarios[0].belief_question.not_aware" in text and "must differ" in text
    assert "duplicate template id 't1'" in text
    assert "scenarios[2].action: expected a block of actions" in text
    assert "scenarios[3].action.initial_state" in text  # checks go on after a malformed one


def test_a_method_bigtom_does_not_offer_runs_vanilla(tmp_path: Path) -> None:
    from pytest_tom import families
    from pytest_tom.families.base import method_for

    suite = load_suite(write_suite(tmp_path, [TEMPLATE]), Settings(method="simtom"))
    fam = families.get("bigtom")
    assert method_for(fam, "simtom") == "vanilla" and method_for(fam, "1shot") == "1shot"
    item = suite.items[0]
    assert fam.conversation(item, method_for(fam, "simtom"), []) == fam.conversation(
        item, "vanilla", [])


# -- parsing -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def item() -> Any:
    suite = load_suite(BUNDLED)
    return next(i for i in suite.items if i.meta["gold_letter"] == "a")


@pytest.mark.parametrize(("response", "correct", "error"), [
    ("Answer:a)Tomasz believes ...", True, None),
    ("Answer: (a)", True, None),
    ("a", True, None),
    ("A) the first one", True, None),
    ("Thought: maybe b) or a)...\nAnswer:a)", True, None),  # only the text after the last Answer:
    ("Answer:b)", False, None),
    ("Answer: a) or b)", False, None),  # names both letters: wrong (upstream scores it right)
    ("Answer: I cannot tell.", False, "unparseable"),
    ("Answer: the glass jar contains sugar", False, "unparseable"),  # no letter
    ("", False, "unparseable"),
])
def test_answer_parsing(item: Any, response: str, correct: bool, error: str | None) -> None:
    fam = families.get("bigtom")
    out = fam.score(item, response, ScoringContext(Settings()))
    assert (out.correct, out.error) == (correct, error), out


def test_initial_state_answer_is_marked(item: Any) -> None:
    fam = families.get("bigtom")
    letter = item.meta["initial_state_letter"]
    out = fam.score(item, f"Answer:{letter})", ScoringContext(Settings()))
    assert out.extra == {"initial_state": True}


# -- methods ---------------------------------------------------------------------------------------
def test_methods_build_the_expected_conversations(item: Any) -> None:
    fam = families.get("bigtom")
    assert fam.methods == ("vanilla", "cot", "1shot", "1shot-cot")
    text = item.data["text"]
    v = fam.conversation(item, "vanilla", [])
    assert [m["role"] for m in v] == ["system", "user"] and v[1]["content"] == text
    assert "Answer:<option>)<answer>" in v[0]["content"]
    assert fam.conversation(item, "vanilla", ["x"]) is None
    one = fam.conversation(item, "1shot", [])
    assert [m["role"] for m in one] == ["system", "user", "assistant", "user"]
    assert "Choose one of the following:\na)" in one[1]["content"]
    assert one[2]["content"].startswith(f"Answer:{EXAMPLE_LETTER})")
    # the example is a forward-belief false-belief item: its answer is the initial belief
    assert "does not see" in one[1]["content"]
    assert EXAMPLE_OPTIONS["ab".index(EXAMPLE_LETTER)].endswith("full of honey.")
    cot = fam.conversation(item, "cot", [])
    assert cot[-1]["content"].endswith("Let's think step by step.")
    follow = fam.conversation(item, "cot", ["reasoning"])
    assert follow[-2] == {"role": "assistant", "content": "reasoning"}
    assert "Answer:<option>)<answer>" in follow[-1]["content"]
    assert fam.conversation(item, "cot", ["r", "a"]) is None
    ocot = fam.conversation(item, "1shot-cot", [])
    assert [m["role"] for m in ocot] == ["system", "user", "assistant", "user"]
    assert "Thought: Let's think step by step" in ocot[2]["content"]
    assert len(fam.conversation(item, "1shot-cot", ["r"])) == 6


# -- pairing -------------------------------------------------------------------------------------
def rec(key: str, role: str, correct: bool | None, error: str | None = None) -> dict[str, Any]:
    return {"item": {"id": f"{key}:{role}", "k": key, "r": role},
            "outcome": {"correct": correct, "error": error}}


def pair(records: list[dict[str, Any]]) -> JointScore:
    return joint_score(records, key=lambda r: r["item"]["k"], role=lambda r: r["item"]["r"],
                       anchor="tb", dependent="fb")


def test_joint_score_counts_pairs_both_right() -> None:
    records = [rec("1", "tb", True), rec("1", "fb", True),  # both right
               rec("2", "tb", False), rec("2", "fb", True),  # anchor wrong
               rec("3", "tb", True), rec("3", "fb", False, "request_failed"),  # error = wrong
               rec("4", "fb", True),  # anchor not run
               rec("5", "tb", True), rec("5", "fb", True, "unavailable"),  # skipped: left out
               rec("6", "tc", True)]  # other roles are ignored
    s = pair(records)
    assert (s.both, s.pairs, s.unpaired) == (1, 3, 1)
    assert s.accuracy == pytest.approx(1 / 3)
    assert pair([]).accuracy is None
    assert (s + s).pairs == 6


def test_joint_score_refuses_ambiguous_keys() -> None:
    with pytest.raises(ValueError, match="pairing key"):
        pair([rec("1", "tb", True), rec("1", "tb", False)])


# -- the worked example of the docs is what the family does ----------------------------------------
def test_docs_worked_example_matches_the_family(tmp_path: Path) -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "families" / "bigtom.md").read_text(
        encoding="utf-8")
    block = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.tom.yaml"
    path.write_text(block, encoding="utf-8")
    items = {it.id: it for it in load_suite(path).items}
    assert len(items) == 25
    template = yaml.safe_load(block)["scenarios"][0]
    conditions = {i.split("::")[1] for i in items}
    rows = [[c.strip() for c in line.split("|")[1:5]] for line in doc.splitlines()
            if line.startswith("| `") and line.split("|")[1].strip().strip("`") in conditions]
    assert len(rows) == 25
    for cond, tail, question, right in rows:
        it = items[f"breakfast-milk::{cond.strip('`')}"]
        assert it.gold == right, cond
        assert it.question == template[f"{question}_question"]["ask"], cond
        if cond != "`percept_to_belief`":
            keys = [k.strip().split(".") for k in tail.split("+")]
            assert it.data["story"].endswith(" ".join(template[a][b] for a, b in keys)), cond
    bundled = {it.id: it for it in load_suite(BUNDLED).items}
    shown = doc.split("```text\n", 1)[1].split("```", 1)[0].strip()
    assert shown == bundled["breakfast-milk::forward_belief.false_belief.no_init"].data["text"]
    assert shown == items["breakfast-milk::forward_belief.false_belief.no_init"].data["text"]
