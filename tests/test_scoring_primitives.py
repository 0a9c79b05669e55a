"""The scoring primitives on plain strings, including the upstream defects they fix."""

from __future__ import annotations

import pytest

from pytest_tom.scoring.choice import parse_choice
from pytest_tom.scoring.f1 import token_f1
from pytest_tom.scoring.names import mentioned_names
from pytest_tom.scoring.text import contains_normalised, has_words, normalise
from pytest_tom.scoring.yesno import parse_yes_no


@pytest.mark.parametrize(("text", "expected"), [
    ("Yes.", "yes"), ("yes, she does", "yes"), ("True", "yes"), ("She knows about it.", "yes"),
    ("No.", "no"), ("no", "no"), ("False", "no"),
    ("No, she knows nothing about it.", "no"),  # upstream: yes (" knows ")
    ("He does not know.", "no"),  # upstream: irrelevant (needs a trailing space)
    ("He doesn't know", "no"), ("She is unaware of the move.", "no"),
    ("Maybe.", None), ("", None), ("It is hard to tell.", None),
])
def test_yes_no(text: str, expected: str | None) -> None:
    assert parse_yes_no(text) == expected


NAMES = ["Ann", "Anna", "Sara", "Tom", "Haddad"]


@pytest.mark.parametrize(("text", "expected"), [
    ("Ann and Tom", {"Ann", "Tom"}),
    ("Anna", {"Anna"}),  # upstream: "Ann" matched inside "Anna"
    ("Everyone except Sara", set()),  # upstream: Sara included
    ("Everyone except Sara and Tom.", set()),
    ("Sara knows, but not Tom.", {"Sara"}),
    ("Tom and Ann do not know; Sara knows.", {"Sara"}),
    ("Mr. Haddad and Sara.", {"Haddad", "Sara"}),
    ("ann, SARA", {"Ann", "Sara"}),
    ("Nobody.", set()),
])
def test_names_whole_words_and_exclusions(text: str, expected: set[str]) -> None:
    assert mentioned_names(text, NAMES) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("a)", {"a"}), ("(b)", {"b"}), ("b", {"b"}), ("B.", {"b"}), ("The answer is b.", {"b"}),
    ("Answer: a", {"a"}), ("a) soap", {"a"}),
    ("(a) or (b), hard to say", {"a", "b"}),  # upstream: scored correct; here ambiguous
    ("the lavender soap", {"b"}), ("soap", {"a"}), ("I am not sure", set()),
])
def test_choice_letters_and_texts(text: str, expected: set[str]) -> None:
    assert set(parse_choice(text, ["soap", "lavender soap"]).letters) == expected


def test_choice_ambiguity_is_visible() -> None:
    p = parse_choice("a) or b)", ["x", "y"])
    assert p.ambiguous and p.letter is None
    assert parse_choice("b)", ["x", "y"]).letter == "b"


def test_token_f1() -> None:
    assert token_f1("the red box", "the red box") == 1.0
    assert token_f1("red box", "the red box") == pytest.approx(2 * 1.0 * (2 / 3) / (1 + 2 / 3))
    assert token_f1("", "x") == 0.0 and token_f1("a b", "c d") == 0.0
    assert token_f1("a a b", "a b b") == pytest.approx(2 / 3)


def test_text_helpers() -> None:
    assert normalise("The  Attic!") == "attic"
    assert normalise("an attic") == "attic"  # whole-word articles only: "attic" keeps its a
    assert has_words("It is in the Box.", "box") and not has_words("boxes", "box")
    assert contains_normalised("in the lavender soap dish", "lavender soap")
    assert not contains_normalised("soapy", "soap")
