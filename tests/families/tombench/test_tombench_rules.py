"""ToMBench's rules on hand-made input: reading a reply both ways, mapping shuffled letters
back, the majority vote, the suite checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main as cli
from pytest_tom.families.base import ScoringContext, Settings
from pytest_tom.families.tombench.family import TomBenchFamily
from pytest_tom.families.tombench.reading import authors_letter, authors_map, read_letter
from pytest_tom.families.tombench.votes import majority_right


@pytest.mark.parametrize(("reply", "letter"), [
    ("[[B]]", "B"), ("[[ c ]]", "C"), ("The answer is [[D]].", "D"), ("[[A]] ... so [[A]]", "A"),
    ("[B]", "B"), ("B", "B"), ("b", "B"), ("(C)", "C"), ("D.", "D"), ("A. Backpack", "A"),
    ("Answer: C", "C"), ("答案：B", "B"), ("答案是D", "D"),
])
def test_the_correct_reading_takes_the_letter_asked_for(reply: str, letter: str) -> None:
    assert read_letter(reply, 4).letter == letter


@pytest.mark.parametrize(("reply", "why"), [
    ("[[A]] or maybe [[B]]", "several options named ([[A]], [[B]])"),
    ("I think Dave knows where it is.", "no option named"),
    ("", "no option named"),
    ("[[C]]", "[[C]] names no option: this question has A, B"),
    ("A) the first, or B) the second", "several options named"),
])
def test_what_the_correct_reading_refuses(reply: str, why: str) -> None:
    read = read_letter(reply, 2)
    assert read.letter is None and why in read.how


def test_under_chain_of_thought_the_last_bracketed_letter_is_the_answer() -> None:
    reply = "Option [[A]] looks tempting, but she did not see the move. So: [[C]]"
    assert read_letter(reply, 4, "cot").letter == "C"
    assert read_letter(reply, 4, "vanilla").letter is None


@pytest.mark.parametrize(("reply", "letter"), [
    ("[[B]] ... [[A]]", "A"),  # [[A]] first, wherever it is
    ("[C] and [[D]]", "D"),  # double brackets before single ones
    ("I think Dave knows.", "D"),  # the last capital A-D anywhere
    ("Because of the rain", "B"),
    ("no letter here", "A"),  # nothing at all: A
    ("", "A"),
])
def test_the_authors_reading_as_get_results_does_it(reply: str, letter: str) -> None:
    assert authors_letter(reply).letter == letter


def test_the_authors_map_goes_by_the_option_text() -> None:
    # run_api.py maps a shown letter to the first option of the file with that text: with
    # two options alike ("Angry" twice in the release) the second is never chosen
    options = ["Angry", "Thrilled", "Angry", "Surprise"]
    assert authors_map(options, ["C", "A", "D", "B"]) == {"A": "A", "B": "A", "C": "D", "D": "B"}
    assert authors_map(["Yes", "No"], ["B", "A"]) == {"A": "B", "B": "A", "C": "", "D": ""}


def record(answer: str, attempt: int, vote: str | None, released: str | None = None) -> dict[str, Any]:
    meta = {"answer": answer, "answer_as_released": released or answer, "try": attempt}
    return {"item": {"scenario": "q", "meta": meta}, "outcome": {"extra": {"vote": vote}}}


@pytest.mark.parametrize(("votes", "correct", "authors"), [
    ("AAAAA", True, True),
    ("AABCD", True, True),
    ("AABB-", False, True),  # a tie: no majority (the authors: the first met, A)
    ("BBAAC", False, False),  # a tie, B met first
    # three unreadable tries outvote two right ones; under the authors' reading a try votes
    # for nothing only when its request failed (their script reads every reply as a letter)
    ("AA---", False, False),
    ("A-B--", False, False),
    ("BBBAA", False, False),
])
def test_the_majority_vote_of_both_readings(votes: str, correct: bool, authors: bool) -> None:
    tries = [record("A", k + 1, None if v == "-" else v) for k, v in enumerate(votes)]
    assert majority_right(tries, as_authors=False) is correct
    assert majority_right(tries, as_authors=True) is authors


def test_the_authors_never_match_an_answer_written_a_dot_space() -> None:
    assert majority_right([record("A", 1, "A", released="A. ")], as_authors=True) is False
    assert majority_right([record("A", 1, "A", released="A. ")], as_authors=False) is True


SUITE = """\
suite: checks
family: tombench
version: 1
scenarios:
  - id: q1
    task: False Belief Task
    ability: "Belief: Location false beliefs"
    story: Ann puts the ball in the box and leaves; Bo moves it to the basket.
    question: Where will Ann look?
    options: [the box, the basket]
    answer: A
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.tom.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_one_question_scored_both_ways(tmp_path: Path) -> None:
    (item,) = load_suite(write(tmp_path, SUITE)).items
    fam = TomBenchFamily()
    correct = ScoringContext(Settings())
    authors = ScoringContext(Settings(options={"tombench_reading": "authors"}))
    assert fam.score(item, "[[A]]", correct).correct is True
    assert fam.score(item, "Dunno", correct).error == "unparseable"
    out = fam.score(item, "no idea", authors)  # no capital A-D: A for the authors
    assert out.correct is True and out.error is None and "no letter" in out.detail
    assert fam.score(item, "Dunno", authors).correct is False  # the D of Dunno: no option
    messages = fam.conversation(item, "vanilla", [])
    assert messages[0]["role"] == "system" and "[[B]]" in messages[0]["content"]
    assert messages[1]["content"].endswith("Options:\nA. the box\nB. the basket")
    assert fam.conversation(item, "vanilla", ["[[A]]"]) is None


def test_chinese_prompts(tmp_path: Path) -> None:
    text = SUITE.replace("scenarios:", "defaults:\n  language: zh\nscenarios:")
    (item,) = load_suite(write(tmp_path, text)).items
    system, user = TomBenchFamily().conversation(item, "cot", [])
    assert "一步一步" in system["content"] and user["content"].startswith("故事：")


@pytest.mark.parametrize(("old", "new", "message"), [
    ("    answer: A\n", "    answer: C\n",
     "scenarios[0].answer: 'C' names no option: this question has 2 options (A, B)"),
    ("[the box, the basket]", "[the box, the basket, the box]",
     "option C reads the same as the right option A ('the box')"),
    ("Location false", "Lokation false",
     "is not a ToMBench ability (did you mean 'Belief: Location false beliefs'?)"),
    ("    task: False Belief Task\n", "", "no task: give the question a 'task:'"),
    ("task: False Belief Task", "task: False Belief Test", "did you mean 'False Belief Task'?"),
], ids=["answer-beyond", "twin-of-gold", "ability", "no-task", "unknown-task"])
def test_suite_problems_are_named_with_their_line(tmp_path: Path, old: str, new: str,
                                                  message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, SUITE.replace(old, new))
    assert cli(["validate", str(path)]) == 1
    out = capsys.readouterr()
    text = out.out + out.err
    line = next(ln for ln in text.splitlines() if message in ln)
    assert line.strip().startswith(f"{path}:")
