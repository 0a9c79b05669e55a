"""Hedges and refusals are not "no" (issue 33, point 3): one table of answers real models
write to a yes/no question, read by every yes/no reader the families use.

- the generic family's reader (`scoring/yesno.parse_yes_no`): every hedge and refusal is
  unparseable, every real "no" is no, every real "yes" is yes;
- FANToM's (`families/fantom/parsing.parse_binary`) and OpenToM's coarse reading
  (`families/opentom/labels.parse_label("loc_coarse", ...)`) keep their authors' readings,
  so a hedge may be read as an answer there only where the authors' released evaluator
  reads it so (checked against that reading, written out below from the reference notes),
  and docs/differences.md says so for both.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_tom import families
from pytest_tom.core.model import ItemSpec
from pytest_tom.core.outcome import UNPARSEABLE
from pytest_tom.families import kit
from pytest_tom.families.base import ScoringContext, Settings
from pytest_tom.families.fantom.parsing import extract_answer, parse_binary
from pytest_tom.families.opentom.labels import parse_label
from pytest_tom.scoring.yesno import hedge_in, parse_yes_no

REPO = Path(__file__).resolve().parent.parent
H, N, Y = "hedge", "no", "yes"


def generic(text: str) -> str | None:
    return parse_yes_no(text)


def fantom(text: str) -> str | None:
    label = parse_binary(extract_answer(text))
    return None if label == "irrelevant" else label


def opentom(text: str) -> str | None:
    label = parse_label("loc_coarse", text)
    return None if label is None else label.lower()


def fantom_released(text: str) -> str | None:
    """FANToM's released yes/no reading, as /work/shared/reference/scoring-rules.md gives it."""
    r = text.lower().strip()
    if any(c in r for c in (" yes,", " yes ", " yes.", " knows ")) or r.startswith(("yes", "true")):
        return "yes"
    if any(c in r for c in (" no,", " no ", " no.", " does not know ", " doesn't know ")) \
            or r.startswith(("no", "false")):
        return "no"
    return None


def opentom_released(text: str) -> str | None:
    """OpenToM's released coarse reading: the substring "no" without "yes" is No, and back."""
    r = text.lower()
    if "no" in r and "yes" not in r:
        return "no"
    if "yes" in r and "no" not in r:
        return "yes"
    return None


READERS: dict[str, Callable[[str], str | None]] = {
    "generic": generic, "fantom": fantom, "opentom": opentom}
AUTHORS: dict[str, Callable[[str], str | None]] = {
    "fantom": fantom_released, "opentom": opentom_released}

# (answer, what it is, generic, fantom, opentom): None = unparseable (FANToM: "irrelevant")
TABLE: list[tuple[str, str, str | None, str | None, str | None]] = [
    # hedges and refusals
    ("Sorry, I cannot answer that.", H, None, None, None),
    ("I'm sorry, but I can't help with that.", H, None, None, None),
    ("As an AI, I cannot know what Maya thinks.", H, None, None, None),
    ("I am not sure.", H, None, None, None),
    ("I'm not sure.", H, None, None, None),
    ("Not sure.", H, None, N, None),  # FANToM, released: starts with "no"
    ("I can't tell.", H, None, None, None),
    ("I can’t tell.", H, None, None, None),
    ("I don't know.", H, None, None, None),
    ("I do not know.", H, None, None, None),
    ("I cannot determine that from the text.", H, None, None, None),
    ("I'm unable to answer.", H, None, None, None),
    ("Not enough information.", H, None, N, None),  # FANToM, released: starts with "no"
    ("There is not enough information to say.", H, None, None, None),
    ("Insufficient information.", H, None, None, None),
    ("No idea.", H, None, N, N),  # released readings of both: the word no
    ("I have no idea.", H, None, N, N),
    ("There is no way to know.", H, None, N, N),
    ("Unknown.", H, None, None, None),
    ("It is unclear.", H, None, None, None),
    ("It's unclear whether Maya knows.", H, None, None, None),
    ("The story does not say whether Maya knows.", H, None, None, None),
    ("The text doesn't specify if she knows.", H, None, None, None),
    ("It cannot be determined from the story.", H, None, None, None),
    ("It's impossible to tell.", H, None, None, None),
    ("Hard to say.", H, None, None, None),
    ("It depends.", H, None, None, None),
    ("Maybe.", H, None, None, None),
    ("Possibly.", H, None, None, None),
    ("N/A", H, None, None, None),
    ("Yes and no.", H, None, Y, None),  # FANToM, released: starts with "yes"
    # real "no" answers
    ("No.", N, N, N, N),
    ("no", N, N, N, N),
    ("**No**", N, N, N, N),
    ("Answer: No", N, N, N, N),
    ("No, she doesn't.", N, N, N, N),
    ("no, she doesn't", N, N, N, N),
    ("No, Maya does not know that the sandwich was moved.", N, N, N, N),
    ("No — she was outside playing.", N, N, N, N),
    ("No, she knows nothing about it.", N, N, N, N),
    ("The answer is no.", N, N, N, N),
    ("Nope", N, N, N, N),
    ("Nope.", N, N, N, N),
    ("She does not know.", N, N, N, None),  # OpenToM: neither word (a location question)
    ("She doesn't know.", N, N, N, None),
    ("He does not know.", N, N, N, None),
    ("Maya has no idea the sandwich was moved.", N, N, N, N),
    ("She has no way of knowing.", N, N, N, N),
    ("Maya is not sure where it is.", N, N, None, None),  # the character's, not a hedge
    ("She is unaware of the move.", N, N, None, None),  # FANToM: no released cue
    ("She can't know that.", N, N, None, None),
    ("Not at all.", N, N, N, None),
    ("Of course not.", N, N, None, None),
    ("Definitely not.", N, N, None, None),
    ("Probably not.", N, N, None, None),
    ("Nah.", N, N, None, None),
    ("False.", N, N, N, None),
    # real "yes" answers
    ("Yes.", Y, Y, Y, Y),
    ("yes, she knows", Y, Y, Y, Y),
    ("Yes — she saw it happen.", Y, Y, Y, Y),
    ("The answer is yes.", Y, Y, Y, Y),
    ("She knows.", Y, Y, Y, None),
    ("True.", Y, Y, Y, None),
    ("Yep", Y, Y, None, None),
    ("She is aware of it.", Y, Y, None, None),
    ("Of course she does.", Y, Y, None, None),
]
ROWS = [pytest.param(text, kind, dict(zip(READERS, cells, strict=True)), id=text)
        for text, kind, *cells in TABLE]


@pytest.mark.parametrize(("text", "kind", "expected"), ROWS)
def test_every_reader_reads_the_table(text: str, kind: str,
                                      expected: dict[str, str | None]) -> None:
    got = {name: read(text) for name, read in READERS.items()}
    assert got == expected


@pytest.mark.parametrize(("text", "kind", "expected"), ROWS)
def test_a_hedge_is_an_answer_only_where_the_authors_read_it_so(
        text: str, kind: str, expected: dict[str, str | None]) -> None:
    if kind != H:
        assert generic(text) == kind  # the project's own reader: every real answer read
        return
    assert generic(text) is None and hedge_in(text)
    for name, released in AUTHORS.items():
        reading = READERS[name](text)
        if reading is not None:
            assert reading == released(text), f"{name} reads the hedge {text!r} as {reading}"


def test_the_kept_readings_are_documented() -> None:
    text = " ".join((REPO / "docs" / "differences.md").read_text(encoding="utf-8").split())
    for quoted in ('"Not enough information."', '"Not sure."', '"No idea."',
                   '"I\'m not sure"', '"Sorry, I cannot answer that."'):
        assert quoted in text, quoted


def test_every_yes_no_reader_of_the_kit_is_in_the_table() -> None:
    """A family reads yes/no answers with what the kit exports: a new reader joins the table."""
    readers = {name for name in kit.__all__ if "yes_no" in name}
    assert readers == {"parse_yes_no", "yes_no_word"}  # generic; OpenToM's coarse reading


def test_the_generic_family_reports_a_hedge_as_unparseable_and_names_it() -> None:
    item = ItemSpec(id="x::knows", suite="s", family="generic", scenario="x", kind="yes_no",
                    question="Does Maya know?", gold="no")
    generic_family, ctx = families.get("generic"), ScoringContext(Settings())
    outcome = generic_family.score(item, "Sorry, I cannot answer that.", ctx)
    assert not outcome.correct and outcome.error == UNPARSEABLE
    assert outcome.detail == "a hedge or refusal ('sorry'), not yes or no"
    assert generic_family.score(item, "She does not know.", ctx).correct
    assert generic_family.score(item, "Maybe?", ctx).error == UNPARSEABLE
