"""BigToM's answer rule: right when the reply, read by the kit's multiple-choice reader
(`read_choice`: its opening when it opens with an option, else its last `Answer:` or other
answer statement, else its conclusion or last line naming one option), picks the right
option, by letter (`a)`, `(b)`, `Answer: b`) or by text, and not the other."""

from __future__ import annotations

from pytest_tom.families.kit import LETTERS
from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext
from pytest_tom.families.kit import read_choice
from pytest_tom.families.kit import unread_choice


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    """Right when the reply picks the right option and not the other."""
    if not response.strip():
        return Outcome(correct=False, error=UNPARSEABLE, detail="empty answer")
    reading = read_choice(response, item.choices, LETTERS[:len(item.choices)])
    letters = {LETTERS[i] for i in reading.named}
    unread = unread_choice(letters, "no option named (expected Answer:<option>)<answer>)")
    if unread is not None:
        return unread
    (letter,) = letters
    return Outcome(correct=letter == item.meta["gold_letter"],
                   parsed=f"{letter}) {item.choices[LETTERS.index(letter)]}",
                   extra={"initial_state": letter == item.meta["initial_state_letter"]})
