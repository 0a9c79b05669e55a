"""MMToM-QA's answer rules.

`answer` (the default) reads the reply as an answer: from the front, line by line and
sentence by sentence, the first place that names an option gives it, by letter (`a`, `(b)`,
`b)`, `Answer: a`) or, when no letter is named there, by the option's text. Naming both
options there is wrong; naming neither anywhere is unparseable (wrong, and reported).

`authors` is the authors' script: the reply stripped of newlines and then of spaces,
lower-cased, its first character compared with the gold letter. Their script stops on an
empty reply (IndexError); here that is unparseable. A first character that is neither
`a` nor `b` is wrong there and unparseable here (wrong as well, and reported).
"""

from __future__ import annotations

import re

from pytest_tom.families.kit import UNPARSEABLE, ItemSpec, Outcome, ScoringContext, parse_choice

from .prompts import LETTERS

AUTHORS = "authors"
# a line break, or a sentence end that is not an option letter's period ("b. Mark thinks")
_UNITS = re.compile(r"\n+|(?<=[.!?])(?<!\b[A-Za-z]\.)\s+")


def named(reply: str, options: list[str]) -> set[str]:
    """The letters named in the first place of the reply that names any option."""
    for unit in _UNITS.split(reply):
        if unit.strip():
            letters = set(parse_choice(unit, options).letters) or letters_alone(unit)
            if letters:
                return letters
    return set()


def letters_alone(unit: str) -> set[str]:
    """`a or b`, `A and B`: a place made of option letters alone names them all."""
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", unit)]
    if len(words) > 1 and all(w in LETTERS or w in ("or", "and") for w in words):
        return {w for w in words if w in LETTERS}
    return set()


def score_answer(item: ItemSpec, response: str) -> Outcome:
    gold = item.meta["gold_letter"]
    letters = named(response, item.choices)
    if not letters:
        return Outcome(correct=False, error=UNPARSEABLE,
                       detail="no option named (a or b, or an option's text)")
    if len(letters) > 1:
        return Outcome(correct=False, parsed=sorted(letters), detail="names both options")
    letter = next(iter(letters))
    return Outcome(correct=letter == gold,
                   parsed=f"({letter}) {item.choices[LETTERS.index(letter)]}")


def score_as_authors(item: ItemSpec, response: str) -> Outcome:
    text = response.strip("\n").strip(" ").lower()
    if not text:
        return Outcome(correct=False, error=UNPARSEABLE,
                       detail="empty reply (the authors' script stops on it)")
    first = text[0]
    if first not in LETTERS:
        return Outcome(correct=False, error=UNPARSEABLE, parsed=first,
                       detail=f"the reply's first character {first!r} is neither a nor b")
    return Outcome(correct=first == item.meta["gold_letter"], parsed=first)


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    """The reading `--tom-mmtomqa-reading` chooses."""
    if ctx.settings.options.get("mmtomqa_reading") == AUTHORS:
        return score_as_authors(item, response)
    return score_answer(item, response)
