"""MMToM-QA's answer rules.

`answer` (the default) reads the reply with the kit's multiple-choice reader
(`read_choice`): a reply that opens with an option (`a`, `(b)`, `b)`, `b. Mark thinks ...`,
the option's text) is read there, else its last answer statement (`Answer: a`, `the answer
is (b)`), else its last concluding sentence, else the last line naming exactly one option;
an option is named by its letter, in either case, or by its text. Naming both options at
the level that decides is wrong; naming neither, or answering "I cannot tell", is
unparseable (wrong, and reported).

`authors` is the authors' script: the reply stripped of newlines and then of spaces,
lower-cased, its first character compared with the gold letter. Their script stops on an
empty reply (IndexError); here that is unparseable. A first character that is neither
`a` nor `b` is wrong there and unparseable here (wrong as well, and reported).
"""

from __future__ import annotations

from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext
from pytest_tom.families.kit import read_choice
from pytest_tom.families.kit import unread_choice

from .prompts import LETTERS

AUTHORS = "authors"


def named(reply: str, options: list[str]) -> set[str]:
    """The letters named at the level of the reply that decides (`read_choice`)."""
    return {LETTERS[i] for i in read_choice(reply, options, LETTERS[:len(options)]).named}


def score_answer(item: ItemSpec, response: str) -> Outcome:
    gold = item.meta["gold_letter"]
    letters = named(response, item.choices)
    unread = unread_choice(letters, "no option named (a or b, or an option's text)")
    if unread is not None:
        return unread
    (letter,) = letters
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
