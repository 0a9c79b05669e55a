"""ToMATO's answer rule: the reply read as one option (correctly, or as the authors'
script with `--tom-tomato-reading authors`: `reading`) against the right letter. A reply
that names no option is wrong and reported unparseable."""

from __future__ import annotations

from typing import Any

from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext

from .options import READINGS
from .options import SAMPLINGS
from .reading import authors_letter
from .reading import correct_letter


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    as_authors = ctx.settings.options.get("tomato_reading") == "authors"
    return score_answer(item, response, as_authors)


def score_answer(item: ItemSpec, response: str, as_authors: bool) -> Outcome:
    read = authors_letter(response) if as_authors else correct_letter(response, item.choices)
    if read.letter is None:
        return Outcome(correct=False, error=UNPARSEABLE, detail=read.how)
    return Outcome(correct=read.letter == item.gold, parsed=read.letter,
                   detail=f"read as {read.letter}: {read.how}")


def option_problems(options: dict[str, Any]) -> list[str]:
    problems = []
    if options.get("tomato_reading", "correct") not in READINGS:
        problems.append(f"--tom-tomato-reading: one of {', '.join(READINGS)}")
    if options.get("tomato_sampling", "greedy") not in SAMPLINGS:
        problems.append(f"--tom-tomato-sampling: one of {', '.join(SAMPLINGS)}")
    return problems
