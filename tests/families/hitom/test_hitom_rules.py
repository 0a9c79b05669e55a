"""Hi-ToM's answer reading and suite checks, on hand-made replies and suites."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.hitom.scoring import read, score
from pytest_tom.suite import SuiteError

OPTIONS = ["blue_drawer", "green_crate", "red_bucket", "green_box", "red_box", "blue_pantry",
           "green_treasure_chest", "green_drawer", "red_envelope", "red_pantry", "green_bottle",
           "blue_crate", "green_envelope", "red_basket", "green_bathtub"]  # H: green_drawer


@pytest.mark.parametrize(("reply", "named"), [
    ("H", "H"), ("h", "H"), ("(H)", "H"), ("H)", "H"), ("H.", "H"), ("Answer: H", "H"),
    ("H. green_drawer", "H"), ("green_drawer", "H"), ("green drawer", "H"),
    ("The answer is H.", "H"), ("I think it's H. green_drawer, as Owen left last.", "H"),
    ("The lettuce is in the green_drawer.", "H"),
    ("Answer: H. green_drawer\nExplanation: Avery moved it to the green_bathtub first.", "H"),
    ("H. green_drawer\n\nAvery put it in the green_bathtub, then Owen moved it.", "H"),
    ("Let me think. Avery moved it to the green_bathtub. So the answer is H.", "H"),
    ("Answer:\nO. green_bathtub", "O"),
    ("A. blue_drawer", "A"),
    ("I believe it is in the red_box.", "E"),  # "I" is a word here, not option I
    ("It is in the green_box.", "D"),  # green_box, not red_box or a bare "box"
])
def test_the_answer_is_read_from_the_front(reply: str, named: str) -> None:
    reading = read(reply, OPTIONS)
    assert ["ABCDEFGHIJKLMNO"[i] for i in reading.named] == [named]


@pytest.mark.parametrize("reply", ["H or L", "green_drawer or blue_pantry", "H, L",
                                   "Answer: (H) (L)"])
def test_two_options_in_the_answer_are_wrong(reply: str) -> None:
    assert len(read(reply, OPTIONS).named) == 2


@pytest.mark.parametrize("reply", ["", "   ", "I don't know.", "In the drawer.",
                                   "It is a trick question"])
def test_no_option_is_unparseable_and_wrong(reply: str) -> None:
    item = _item()
    outcome = score(item, reply)
    assert outcome.correct is False and outcome.error == "unparseable"


def test_right_and_wrong_outcomes_say_what_was_read() -> None:
    item = _item()
    right = score(item, "H. green_drawer")
    assert (right.correct, right.error, right.parsed) == (True, None, "H. green_drawer")
    wrong = score(item, "green_bathtub")
    assert (wrong.correct, wrong.parsed) == (False, "O. green_bathtub")
    both = score(item, "H or O")
    assert both.correct is False and both.parsed == ["H. green_drawer", "O. green_bathtub"]
    assert "names 2 options" in both.detail


def _item():  # noqa: ANN202
    from pytest_tom.families.kit import ItemSpec
    return ItemSpec(id="s::order1", suite="t", family="hitom", scenario="s", kind="order1",
                    question="Where?", gold="green_drawer", choices=OPTIONS,
                    meta={"gold_letter": "H"})


SUITE = """\
suite: hand
family: hitom
version: 1
scenarios:
  - id: s1
    prompting: VP
    deception: false
    story_length: {length}
    story: |
      1 Ann and Bo entered the hall.
      2 The pea is in the red_box.
      3 Ann exited the hall.
    choices: [red_box, blue_box]
    questions:
      - {{order: 0, ask: Where is the pea really?, answer: red_box}}
      - {{order: {order}, ask: Where does Ann really think the pea is?, answer: {answer}}}
"""


def test_a_good_suite_loads_with_one_item_per_question(tmp_path: Path) -> None:
    path = tmp_path / "hand.tom.yaml"
    path.write_text(SUITE.format(length=1, order=1, answer="red_box"), encoding="utf-8")
    suite = load_suite(path)
    assert [it.id for it in suite.items] == ["s1::order0", "s1::order1"]
    assert {it.group for it in suite.items} == {"s1"}
    assert suite.items[1].markers == ["order1", "no_tell", "vp", "length1"]


def test_bad_orders_lengths_and_answers_are_reported_by_line(tmp_path: Path) -> None:
    path = tmp_path / "hand.tom.yaml"
    path.write_text(SUITE.format(length=4, order=0, answer="green_box"), encoding="utf-8")
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    text = str(err.value)
    assert ":8:19:" in text and "story_length: Hi-ToM stories have 1 to 3 chapters, got 4" in text
    assert ":16:17:" in text and "order 0 is asked twice in this story" in text
    assert ":16:74:" in text and "'green_box' is not one of the story's choices" in text
