"""Hi-ToM's answer rule: which of the options the reply picks, read by the kit's
multiple-choice reader (`read_choice`).

Both prompting styles ask for the answer first, and many models give it there
(`K. green_drawer\\n\\nExplanation: ...`); others reason first, naming every container on
the way, and conclude last (`... So the answer is O. green_bathtub.`). The reader takes a
reply that opens with an option at its opening, else the last answer statement (`the
answer is`, `Answer:`), else the last concluding sentence (`So Avery would think it is in
the blue_pantry`), else the last line that names exactly one option. An option is named by
its letter (`K`, `(K)`, `**K**`, `"K"`, `option K`, `K. green_drawer`; a capital standing
in running text is a word, so "I think" and "A lot" name nothing) or by its text
(`green_drawer` or `green drawer`, whole words, any case). Several options at the level
that decides are wrong; none, "unknown" or a refusal is unparseable (wrong, and reported).

The authors read their models' replies by hand (their GPT-4 extraction is in the released
outputs), so there is no authors' reader to offer as an option; `docs/families/hitom.md`
says how this reading compares with that extraction on the released replies.
"""

from __future__ import annotations

from pytest_tom.families.kit import (
    UNPARSEABLE,
    ChoiceReading,
    ItemSpec,
    Outcome,
    ScoringContext,
    read_choice,
)

from .prompts import OPTION_LETTERS


def read(reply: str, choices: list[str]) -> ChoiceReading:
    """The options the reply names where its answer is (`named`; one option: `index`)."""
    return read_choice(reply, choices, OPTION_LETTERS[:len(choices)])


def score(item: ItemSpec, response: str, ctx: ScoringContext | None = None) -> Outcome:
    """Right when the answer names exactly one option, the right one."""
    if not response.strip():
        return Outcome(correct=False, error=UNPARSEABLE, detail="empty answer")
    reading = read(response, item.choices)
    if not reading.named:
        why = f": {reading.where!r}" if reading.rule == "refusal" else ""
        return Outcome(correct=False, error=UNPARSEABLE,
                       detail=f"no option named (a letter A-{OPTION_LETTERS[len(item.choices) - 1]} "
                              f"or an option's text){why}")
    shown = [f"{OPTION_LETTERS[i]}. {item.choices[i]}" for i in reading.named]
    if len(reading.named) > 1:
        return Outcome(correct=False, parsed=shown,
                       detail=f"names {len(shown)} options in {reading.where!r} ({reading.rule})")
    return Outcome(correct=OPTION_LETTERS[reading.named[0]] == item.meta["gold_letter"],
                   parsed=shown[0], detail=f"read at the {reading.rule}")
