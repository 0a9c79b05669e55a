"""ToMATO's answer rule: the reply read as one option (correctly, or as the authors'
script with `--tom-tomato-reading authors`: `reading`) against the right letter. A reply
that names no option is wrong and reported unparseable."""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext
from pytest_tom.families.kit import letter_outcome

from .reading import authors_letter
from .reading import correct_letter


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    as_authors = ctx.settings.options.get("tomato_reading") == "authors"
    return score_answer(item, response, as_authors)


def score_answer(item: ItemSpec, response: str, as_authors: bool) -> Outcome:
    read = authors_letter(response) if as_authors else correct_letter(response, item.choices)
    return letter_outcome(read.letter, read.how, item.gold)

