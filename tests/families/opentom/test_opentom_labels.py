"""OpenToM label parsing, macro-F1 and the sampling protocol, on plain values."""

from __future__ import annotations

import random

import pytest
from opentom_support import expected_macro_f1

from pytest_tom.families.opentom.labels import (
    gold_label,
    parse_label,
    perspective_subsets,
    place_name,
)
from pytest_tom.metrics.macro_f1 import macro_f1
from pytest_tom.metrics.resampling import disjoint_samples, mean_std
from pytest_tom.scoring.labels import last_line, named_place, yes_no_word

PLACES = [["the coat rack"], ["the donation box"]]


@pytest.mark.parametrize(("text", "label"), [
    ("Yes", "Yes"),
    ("No.", "No"),
    ("no", "No"),
    ("Yes, he knows it is there.", "Yes"),  # "knows" is not "no"
    ("Yes, nothing has changed for her.", "Yes"),  # nor is "nothing"
    ("No, it is not.", "No"),
    ("Answer: NO", "No"),
    ("Yes and no.", None),
    ("It is not in its initial location.", None),  # neither word
    ("I cannot know.", None),
    ("", None),
])
def test_coarse_reads_yes_and_no_as_whole_words(text: str, label: str | None) -> None:
    assert parse_label("loc_coarse", text) == label


@pytest.mark.parametrize(("text", "label"), [
    ("less full", "less full"),
    ("The basket becomes emptier.", "less full"),
    ("more empty than before", "less full"),
    ("It is fuller now.", "more full"),
    ("More full.", "more full"),
    ("equally full", "equally full"),
    ("less full, and the box more full", "less full"),  # priority order, as upstream
    ("It is full.", None),
])
def test_fullness_phrases_in_priority_order(text: str, label: str | None) -> None:
    assert parse_label("mhop_fullness", text) == label


@pytest.mark.parametrize(("text", "label"), [
    ("More accessible.", "more accessible"),
    ("It would be less accessible to him.", "less accessible"),
    ("equally accessible", "equally accessible"),
    ("inaccessible", None),
])
def test_accessibility_phrases(text: str, label: str | None) -> None:
    assert parse_label("mhop_accessibility", text) == label


@pytest.mark.parametrize(("text", "label"), [
    ("Negative.", "negative"),
    ("c) negative", "negative"),
    ("b)", "neutral"),
    ("a", "positive"),
    ("(c)", "negative"),
    ("Positive, or maybe neutral.", None),  # two keywords: unparseable, as upstream
    ("a) neutral", "neutral"),  # the word wins over the letter
    ("I feel fine about it.", None),
])
def test_attitude_keywords_then_letters(text: str, label: str | None) -> None:
    assert parse_label("attitude", text) == label


@pytest.mark.parametrize(("text", "label"), [
    ("the donation box", "new"),
    ("It is in the Donation-Box.", "new"),
    ("On the coat rack, I think.", "original"),
    ("Either the coat rack or the donation box.", None),  # both places: unparseable
    ("In the cupboard.", None),
    ("the box", None),  # not the whole name
])
def test_fine_location_names_one_place(text: str, label: str | None) -> None:
    assert parse_label("loc_fine", text, PLACES) == label


def test_fine_location_keeps_the_a_of_attic_and_prefers_the_longer_name() -> None:
    assert parse_label("loc_fine", "In the attic.", [["the hallway"], ["the attic"]]) == "new"
    # rule 4: the class is which plot place is named; the exact place string decides
    # when one name contains the other
    places = [["drawer"], ["another drawer"]]
    assert parse_label("loc_fine", "In another drawer.", places) == "new"
    assert parse_label("loc_fine", "Still in the drawer.", places) == "original"
    assert parse_label("loc_fine", "In the drawer, not another drawer.", places) is None
    swapped = [["another drawer"], ["drawer"]]
    assert parse_label("loc_fine", "In another drawer.", swapped) == "original"
    assert parse_label("loc_fine", "the drawer", swapped) == "new"
    assert gold_label("loc_fine", "another drawer", places) == "new"
    assert gold_label("loc_fine", "drawer", places) == "original"


def test_fine_location_aliases_map_to_the_place() -> None:
    places = [["the office fridge", "the fridge"], ["the reception desk"]]
    assert parse_label("loc_fine", "in the fridge", places) == "original"
    assert place_name("original", places) == "office fridge"  # kept for reading
    assert place_name("new", places) == "reception desk"
    assert place_name(None, places) is None
    assert named_place("the fridge or the reception desk", places) is None


@pytest.mark.parametrize(("question", "subsets"), [
    ("From Ana's perspective, is the cup in its initial location by the end of the story?",
     ("mover",)),
    ("From Ben's perspective, where is the cup located precisely by the end of the story?",
     ("observer",)),
    ("From Ana's perspective, does Ben think that the cup is in its initial location?",
     ("mover",)),  # both named: the first one
    ("From Ben's perspective, where precisely does Ana think that the cup is?", ("observer",)),
    ("As Ben, what is your attitude towards Ana's action of moving the cup?", ("observer",)),
    ("Where is the cup at the end of the story?", ("mover", "observer")),  # narrator: both
    ("From Anabel's perspective, where is the cup?", ("mover", "observer")),  # not "Ana"
])
def test_perspective_subsets_follow_the_names_in_the_question(
        question: str, subsets: tuple[str, ...]) -> None:
    # rule 4: mover "Ana", observer "Ben"
    assert perspective_subsets(question, "Ana", "Ben") == subsets


def test_gold_labels_accept_yaml_booleans_and_reject_others() -> None:
    assert gold_label("loc_coarse", False) == "No"
    assert gold_label("loc_coarse", "yes") == "Yes"
    assert gold_label("loc_coarse", "maybe") is None
    assert gold_label("mhop_fullness", "Less Full") == "less full"
    assert gold_label("mhop_fullness", "emptier") is None  # golds are spelled out
    assert gold_label("attitude", "") is None
    assert gold_label("loc_fine", "the donation box", PLACES) == "new"


def test_helpers() -> None:
    assert last_line("Reasoning...\n\nNo.\n  \n") == "No."
    assert last_line("") == ""
    assert yes_no_word("YES!") == "yes"


# -- macro F1 ------------------------------------------------------------------------------

def test_macro_f1_counts_unparseable_as_a_class_of_its_own() -> None:
    # rule 5: f1_score(gold, pred, labels=sorted(set(gold) | set(pred)), average="macro",
    # zero_division=0) with every unparseable prediction labelled "unparsed"
    gold = ["Yes", "Yes", "No", "No"]
    # one right Yes, one unparseable Yes, one right No, one No answered Yes
    result = macro_f1(gold, ["Yes", None, "No", "Yes"])
    yes = 2 * 1 / (2 * 1 + 1 + 1)  # TP 1, FP 1 (the No answered Yes), FN 1 (the unparsed)
    no = 2 * 1 / (2 * 1 + 0 + 1)  # TP 1, FN 1
    unparsed = 0.0  # TP 0, FP 1: never gold
    assert result.value == pytest.approx((yes + no + unparsed) / 3)  # 0.3889
    assert result.value == pytest.approx(0.5 * (1 / 3) + (2 / 3) * (1 / 3))
    assert result.unparsed == 1 and result.unparsed_rate == 0.25
    assert result.accuracy == 0.5
    assert [s.label for s in result.labels] == ["No", "Yes", "unparsed"]


def test_macro_f1_without_unparseable_answers_has_no_unparsed_class() -> None:
    result = macro_f1(["Yes", "No", "No"], ["Yes", "Yes", "No"])
    # Yes: TP 1 FP 1 -> 2/3; No: TP 1 FN 1 -> 2/3
    assert result.value == pytest.approx(2 / 3)
    assert [s.label for s in result.labels] == ["No", "Yes"]


def test_macro_f1_multihop_pools_six_labels_and_unparsed() -> None:
    gold = ["more full", "less full", "equally full", "more accessible", "less accessible",
            "equally accessible"]
    pred = ["more full", None, "equally full", "more accessible", None, "less full"]
    # more full 1, equally full 1, more accessible 1; less full: FP 1 FN 1 -> 0;
    # less accessible, equally accessible: FN only -> 0; unparsed: FP 2 -> 0
    assert macro_f1(gold, pred).value == pytest.approx(3 / 7)


def test_macro_f1_all_unparseable_is_zero_and_perfect_is_one() -> None:
    assert macro_f1(["a", "b"], [None, None]).value == 0.0
    with pytest.raises(ValueError, match="reserved"):
        macro_f1(["unparsed"], ["a"])
    assert macro_f1(["a", "b", "c"], ["a", "b", "c"]).value == 1.0
    assert macro_f1([], []).value is None
    with pytest.raises(ValueError):
        macro_f1(["a"], [])


def test_macro_f1_includes_a_label_only_ever_predicted() -> None:
    # "c" is never gold: its F1 is 0 and it counts in the average (as scikit-learn does)
    assert macro_f1(["a", "a"], ["a", "c"]).value == pytest.approx((2 / 3 + 0) / 2)


def test_macro_f1_equals_scikit_learn_when_installed() -> None:
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is not installed "
                                  "(an optional cross-check; the hand-computed tests pin the rule)")
    rng = random.Random(11)
    for _ in range(30):
        n = rng.randint(1, 30)
        gold = [rng.choice("xyz") for _ in range(n)]
        pred = [rng.choice(["x", "y", "z", None]) for _ in range(n)]
        y_pred = ["unparsed" if p is None else p for p in pred]
        want = metrics.f1_score(gold, y_pred, labels=sorted(set(gold) | set(y_pred)),
                                average="macro", zero_division=0)
        assert macro_f1(gold, pred).value == pytest.approx(want)


def test_macro_f1_agrees_with_a_plain_calculation_on_random_data() -> None:
    rng = random.Random(7)
    labels = ["x", "y", "z"]
    for _ in range(50):
        n = rng.randint(1, 40)
        gold = [rng.choice(labels) for _ in range(n)]
        pred = [rng.choice([*labels, None]) for _ in range(n)]
        assert macro_f1(gold, pred).value == pytest.approx(
            expected_macro_f1(list(zip(gold, pred, strict=True))))


def test_disjoint_samples_are_seeded_disjoint_and_order_free() -> None:
    groups = [f"n{i}" for i in range(30)]
    a = disjoint_samples(groups, 5, 6, random.Random("0:x"))
    b = disjoint_samples(list(reversed(groups)), 5, 6, random.Random("0:x"))
    assert a == b
    assert a is not None and all(len(s) == 6 for s in a)
    assert len({g for s in a for g in s}) == 30
    assert disjoint_samples(groups, 5, 7, random.Random(0)) is None


def test_mean_std_is_the_population_standard_deviation() -> None:
    assert mean_std([1.0, 3.0]) == (2.0, 1.0)
    assert mean_std([0.5]) == (0.5, 0.0)
    assert mean_std([1.0, None]) == (None, None)
