"""SimpleToM's answer rule: the reply read as one option (correctly, or with the authors'
cascade, `reading`) against the right letter. A reply naming none is wrong and reported
unparseable; under the authors' reading a reply naming several letters at one tier is
wrong too (reported unparseable, with the letters in the detail: their `na_frac` counts
it as unreadable, as it has no answer)."""

from __future__ import annotations

from typing import Any

from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext

from .options import READINGS
from .reading import authors_letter
from .reading import correct_letter


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    as_authors = ctx.settings.options.get("simpletom_reading") == "authors"
    return score_answer(item, response, as_authors)


def score_answer(item: ItemSpec, response: str, as_authors: bool) -> Outcome:
    read = authors_letter(response) if as_authors else correct_letter(response, item.choices)
    if read.letter is None:
        return Outcome(correct=False, error=UNPARSEABLE, detail=read.how)
    if "ABCD".index(read.letter) >= len(item.choices):
        return Outcome(correct=False, error=UNPARSEABLE,
                       detail=f"{read.how} names no option: this question has "
                              f"{', '.join('ABCD'[:len(item.choices)])}")
    return Outcome(correct=read.letter == item.gold, parsed=read.letter,
                   detail=f"read as {read.letter}: {read.how}")


def option_problems(options: dict[str, Any]) -> list[str]:
    if options.get("simpletom_reading", "correct") not in READINGS:
        return [f"--tom-simpletom-reading: one of {', '.join(READINGS)}"]
    return []
