"""BigToM's answer rule: right when the answer (after its last `Answer:`) names the right
option letter and not the other."""

from __future__ import annotations

from pytest_tom.families.kit import (
    LETTERS,
    UNPARSEABLE,
    ItemSpec,
    Outcome,
    ScoringContext,
    after_last,
    letters_named,
)


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    """Right when the answer (after its last `Answer:`) names the right letter and not the other."""
    text = after_last(response, ("Answer:",)).strip()
    if not text:
        return Outcome(correct=False, error=UNPARSEABLE, detail="empty answer")
    letters = letters_named(text, len(item.choices))
    if not letters:
        return Outcome(correct=False, error=UNPARSEABLE,
                       detail="no option letter named (expected Answer:<option>)<answer>)")
    if len(letters) > 1:
        return Outcome(correct=False, parsed=sorted(letters), detail="names both options")
    letter = next(iter(letters))
    return Outcome(correct=letter == item.meta["gold_letter"],
                   parsed=f"{letter}) {item.choices[LETTERS.index(letter)]}",
                   extra={"initial_state": letter == item.meta["initial_state_letter"]})
