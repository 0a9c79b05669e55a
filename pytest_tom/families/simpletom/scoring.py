"""SimpleToM's answer rule: the reply read as one option (correctly, or with the authors'
cascade, `reading`) against the right letter. A reply naming none is wrong and reported
unparseable; under the authors' reading a reply naming several letters at one tier is
wrong too (reported unparseable, with the letters in the detail: their `na_frac` counts
it as unreadable, as it has no answer)."""

from __future__ import annotations

from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext
from pytest_tom.families.kit import letter_outcome

from .reading import authors_letter
from .reading import correct_letter


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    as_authors = ctx.settings.options.get("simpletom_reading") == "authors"
    return score_answer(item, response, as_authors)


def score_answer(item: ItemSpec, response: str, as_authors: bool) -> Outcome:
    read = authors_letter(response) if as_authors else correct_letter(response, item.choices)
    if read.letter is not None and "ABCD".index(read.letter) >= len(item.choices):
        return Outcome(correct=False, error=UNPARSEABLE,
                       detail=f"{read.how} names no option: this question has "
                              f"{', '.join('ABCD'[:len(item.choices)])}")
    return letter_outcome(read.letter, read.how, item.gold)

