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

`--tom-hitom-reading authors` scores as the authors' analysis notebooks of GPT-3.5 and
Guanaco do: the reply's last 60 characters, underscores as spaces, count as right when
they hold the answer's text (any case) or the answer's capital letter anywhere (the "B"
of "By" counts for option B); nothing is unparseable there. (Their GPT-4 figures come from
an extraction made by hand, and Claude's from cuts of the reply made for that model.)
`docs/families/hitom.md` says how the two readings differ on the authors' released replies.
"""

from __future__ import annotations

from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import ChoiceReading
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext
from pytest_tom.families.kit import meta_text
from pytest_tom.families.kit import read_choice

from .prompts import OPTION_LETTERS


def read(reply: str, choices: list[str]) -> ChoiceReading:
    """The options the reply names where its answer is (`named`; one option: `index`)."""
    return read_choice(reply, choices, OPTION_LETTERS[:len(choices)])


AUTHORS = "authors"
AUTHORS_TAIL = 60  # the characters of the reply the authors' notebooks look at


def score(item: ItemSpec, response: str, ctx: ScoringContext | None = None) -> Outcome:
    """Right when the answer names exactly one option, the right one (or, with
    `--tom-hitom-reading authors`, as the authors' notebooks count it)."""
    if ctx is not None and ctx.settings.options.get("hitom_reading") == AUTHORS:
        return score_as_authors(item, response)
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


def score_as_authors(item: ItemSpec, response: str) -> Outcome:
    """The authors' notebooks' count: right when the reply's last 60 characters (underscores
    as spaces) hold the answer's text, lower-cased, or the answer's capital letter."""
    tail = response[-AUTHORS_TAIL:].replace("_", " ")
    text = item.gold.replace("_", " ").lower()
    letter = meta_text(item.meta, "gold_letter")
    if text in tail.lower():
        return Outcome(correct=True, parsed=tail.strip(), detail=f"{text!r} in the last "
                       f"{AUTHORS_TAIL} characters (the authors' notebooks)")
    if letter in tail:
        return Outcome(correct=True, parsed=tail.strip(), detail=f"the capital {letter} in the "
                       f"last {AUTHORS_TAIL} characters (the authors' notebooks)")
    return Outcome(correct=False, parsed=tail.strip(), detail=f"neither {text!r} nor the capital "
                   f"{letter} in the last {AUTHORS_TAIL} characters (the authors' notebooks)")
