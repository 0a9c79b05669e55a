"""The multiple-choice reply reader (`pytest_tom.scoring.choice_reader`), on hand-made replies
in the shapes real models write (the replay of real replies is in
tests/families/hitom/test_hitom_replies.py)."""

from __future__ import annotations

import pytest

from pytest_tom.families.kit import ChoiceReading, read_choice

OPTIONS = ["blue_drawer", "green_crate", "red_bucket", "green_box", "red_box", "blue_pantry",
           "green_treasure_chest", "green_drawer", "red_envelope", "red_pantry", "green_bottle",
           "blue_crate", "green_envelope", "red_basket", "green_bathtub"]
L = "ABCDEFGHIJKLMNO"


def named(reply: str, options: list[str] = OPTIONS, letters: str | None = None) -> str:
    return "".join(L[i] for i in read_choice(reply, options, letters).named)


@pytest.mark.parametrize(("reply", "letter", "rule"), [
    ("K", "K", "opening"), ("k", "K", "opening"), ("(K)", "K", "opening"),
    ("K)", "K", "opening"), ("K.", "K", "opening"), ("[[K]]", "K", "opening"),
    ("**K**", "K", "opening"), ("K. green_bottle", "K", "opening"),
    ("L. blue_crate\n\nExplanation: Avery moved it to the green_bathtub, then ...", "L", "opening"),
    ("green_bathtub", "O", "text"), ("Green bathtub.", "O", "text"),
    ("Answer: L. blue_crate\n\nExplanation: Avery moved it to the green_box.", "L", "statement"),
    ("Answer:\nO. green_bathtub", "O", "statement"),
])
def test_a_reply_that_opens_with_an_option_is_read_there(reply: str, letter: str, rule: str) -> None:
    reading = read_choice(reply, OPTIONS)
    assert (L[reading.index], reading.rule, reading.status) == (letter, rule, "read")


@pytest.mark.parametrize(("reply", "letter"), [
    # reasoning first, the answer last: the containers of the reasoning are not the answer
    ("Step 1: Emma put the eggplant in the green_box.\nStep 2: Emily moved it to the "
     "green_bottle.\n\nSo the answer should be: O. green_bathtub\n\nDoes this help? Let me "
     "know!", "O"),
    ("The answer is K. Wait: Owen moved it after that, so the answer is O.", "O"),
    ("The correct answer is **M**. Here's how we can break", "M"),
    ('Emma left first. Based on this, the answer would be "E".', "E"),
    ("Avery saw it in the red_box. The answer is (J).", "J"),
    ("Owen left last. The final answer is [[D]].", "D"),
    ("It was in the red_box first. I would choose option B.", "B"),
    ("Owen left last.\nTherefore, Avery would think it is in the blue_pantry, not the "
     "green_box.", "F"),
    ("Emma put it in the green_box. Emily moved it to the red_box.\nEmma thinks it is in the "
     "green_box.", "D"),
    ("I think it's H. green_drawer, as Owen left last.", "H"),
    ("The answer is a. Avery moved it.", "A"),
])
def test_the_last_answer_statement_decides(reply: str, letter: str) -> None:
    assert named(reply) == letter


@pytest.mark.parametrize("reply", [
    "I think so.", "I believe it is in a box.", "A lot happened in the story.",
    "Ann has a plan, and I agree.",
])
def test_english_words_are_not_letters(reply: str) -> None:
    assert read_choice(reply, OPTIONS).status == "unparseable"


@pytest.mark.parametrize(("reply", "both"), [
    ("H or L", "HL"), ("Answer: (H) (L)", "HL"), ("green_drawer or blue_pantry", "FH"),
    ("The answer is either green_box or red_box.", "DE"),
    ("So Lily thinks the apple is in:\n\nE. red_envelope", "EI"),  # E is red_box: two options
])
def test_several_options_at_the_deciding_level_are_ambiguous(reply: str, both: str) -> None:
    reading = read_choice(reply, OPTIONS)
    assert (named(reply), reading.index, reading.status, reading.ambiguous) == \
        (both, None, "ambiguous", True)


@pytest.mark.parametrize("reply", [
    "", "  ", "Unknown", "I don't know.", "In the drawer.", "CONTENT_FILTER.",
    "Unknown. Emma last saw it in the green_box.",
    "The answer is: it cannot be determined from the story.",
    "I'm sorry, I cannot answer questions about the red_box.",
])
def test_unknown_refusals_and_no_option_are_unparseable(reply: str) -> None:
    reading = read_choice(reply, OPTIONS)
    assert (reading.index, reading.named, reading.status) == (None, (), "unparseable")


def test_letters_and_options_of_other_families() -> None:
    four = ["Handbag", "Backpack", "Wallet", "Drawer"]
    assert named("d) Drawer", four) == "D"  # the python: item view's form
    assert named("Wallet", four) == "C"
    assert named("[[b]]", four) == "B"
    assert named("I would say c) Wallet.", four) == "C"
    two = ["Mark thinks the wine is in the fridge.", "Mark thinks the wine is not there."]
    assert named("a", two, "ab") == "A"
    assert named("(b) Mark thinks the wine is not there.", two, "ab") == "B"
    assert named("a or b", two, "ab") == "AB"
    assert named("I think a nice answer is hard.", two, "ab") == ""
    with pytest.raises(ValueError, match="3 options need 3 distinct letters"):
        read_choice("A", ["x", "y", "z"], "AB")


def test_the_reading_says_what_decided() -> None:
    reading = read_choice("Emma left.\nSo the answer is N. red_basket, since she left.", OPTIONS)
    assert isinstance(reading, ChoiceReading)
    assert (reading.index, reading.named, reading.rule) == (13, (13,), "statement")
    assert reading.where.startswith("N. red_basket")
