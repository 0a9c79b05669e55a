"""MMToM-QA's two answer readings and suite checks, on hand-made replies and suites."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.mmtomqa.scoring import score_answer, score_as_authors
from pytest_tom.suite import SuiteError

OPTIONS = ["Mark thinks that the salmon is inside the microwave.",
           "Mark thinks that the salmon is not inside the microwave."]


def item(gold: str = "b") -> ItemSpec:
    return ItemSpec(id="q1::belief_tracking", suite="t", family="mmtomqa", scenario="q1",
                    kind="belief", question="If Mark ...?", gold=OPTIONS["ab".index(gold)],
                    choices=OPTIONS, meta={"gold_letter": gold})


@pytest.mark.parametrize(("reply", "letter"), [
    ("b", "b"), ("B", "b"), ("(b)", "b"), ("b)", "b"), ("b.", "b"), ("Answer: b", "b"),
    ("The answer is (b).", "b"), ("b. Mark thinks that the salmon is not inside the microwave.", "b"),
    ("Mark thinks that the salmon is not inside the microwave.", "b"),
    ("Mark thinks that the salmon is inside the microwave.", "a"),
    ("(a) Mark thinks the salmon is inside. Option (b) is less likely.", "a"),
    ("\n a", "a"),
])
def test_the_default_reading_takes_the_first_option_named(reply: str, letter: str) -> None:
    outcome = score_answer(item(), reply)
    assert outcome.error is None and outcome.correct is (letter == "b")
    assert outcome.parsed.startswith(f"({letter})")


@pytest.mark.parametrize("reply", ["", "I cannot tell.", "It depends on Mark."])
def test_no_option_is_unparseable(reply: str) -> None:
    outcome = score_answer(item(), reply)
    assert (outcome.correct, outcome.error) == (False, "unparseable")


@pytest.mark.parametrize("reply", ["(a) or (b)", "a or b", "A and B"])
def test_both_options_at_once_are_wrong(reply: str) -> None:
    outcome = score_answer(item(), reply)
    assert outcome.correct is False and outcome.error is None and outcome.parsed == ["a", "b"]


@pytest.mark.parametrize(("reply", "correct", "error"), [
    ("b", True, None), ("B. because", True, None), ("\nb", True, None), (" b", True, None),
    ("banana", True, None),  # the first character is all the authors' script reads
    ("a", False, None), ("(b)", False, "unparseable"), (" \nb", False, "unparseable"),
    ("", False, "unparseable"), ("\n\n", False, "unparseable"),
])
def test_the_authors_reading_is_the_first_character(reply: str, correct: bool,
                                                    error: str | None) -> None:
    outcome = score_as_authors(item(), reply)
    assert (outcome.correct, outcome.error) == (correct, error)


SUITE = """\
suite: hand
family: mmtomqa
version: 1
scenarios:
  - id: q1
    type: {type}
    apartment: |
      The apartment has a kitchen.
      The kitchen has a fridge with an apple inside.
    person: Mark
    actions: Mark walks to the fridge.
    question: If Mark wants an apple, which is more likely?
    options: [Mark thinks the apple is inside the fridge., {second}]
    answer: a
"""


def test_a_question_is_one_item_and_its_prompt_has_the_release_layout(tmp_path: Path) -> None:
    path = tmp_path / "hand.tom.yaml"
    path.write_text(SUITE.format(type='"1.1"', second="Mark thinks the apple is not inside "
                                                      "the fridge."), encoding="utf-8")
    (it,) = load_suite(path).items
    assert (it.id, it.kind, it.meta["type"]) == ("q1::true_belief", "belief", "1.1")
    assert it.data["text"] == (
        "What's inside the apartment: The apartment has a kitchen. \nThe kitchen has a fridge "
        "with an apple inside. \nActions taken by Mark: Mark walks to the fridge. \nQuestion: "
        "If Mark wants an apple, which is more likely? (a) Mark thinks the apple is inside the "
        "fridge. (b) Mark thinks the apple is not inside the fridge. Please respond with "
        "either a or b.")


def test_bad_types_and_equal_options_are_reported_by_line(tmp_path: Path) -> None:
    path = tmp_path / "hand.tom.yaml"
    path.write_text(SUITE.format(type="3.1", second="Mark thinks the apple is inside the "
                                                    "fridge."), encoding="utf-8")
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    text = str(err.value)
    assert ":6:11: scenarios[0].type: 3.1 is not a question type" in text
    assert ":13:14: scenarios[0].options: the two options are the same" in text
