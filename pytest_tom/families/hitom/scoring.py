"""Hi-ToM's answer rule: which of the options the reply names, read where the answer is.

Both prompting styles ask for the answer first (CoTP: the option first, the reasoning
after it), and an explanation names other containers on its way, so the answer is read
from the front: the text after the first `Answer:` / `answer is` when there is one, else the
whole reply, taken line by line and sentence by sentence; the first of these that names an
option gives the answer. An option is named by its letter (`K`, `K.`, `(K)`, `K)`,
`Answer: K`, `K. green_drawer`; capital letters only, so "I think" and "a box" are no
letters, but a reply that is one letter may be lower-case) or, when no letter is named
there, by its text (`green_drawer` or `green drawer`, whole words, any case). Naming two
options in that place is wrong; naming none anywhere is unparseable (wrong, and reported).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_tom.families.kit import (
    UNPARSEABLE,
    ItemSpec,
    Outcome,
    ScoringContext,
    contains_normalised,
    normalise,
)

from .prompts import OPTION_LETTERS

_MARKER = re.compile(r"\banswer\b\s*(?:is\b|:)", re.IGNORECASE)
# a line break, or a sentence end that is not an option letter's period ("K. green_box")
_UNITS = re.compile(r"\n+|(?<=[.!?])(?<!\b[A-Z]\.)\s+")


@dataclass(frozen=True)
class Reading:
    """The options (indices) named where the answer was read, and that place."""

    named: tuple[int, ...]
    where: str = ""


def answer_part(reply: str) -> str:
    """The text after the first answer marker (`Answer:`, `the answer is`), else the reply."""
    m = _MARKER.search(reply)
    return reply[m.end():] if m else reply


def _text_pattern(option: str) -> str:
    """An option's text as a regex: its words, with spaces or underscores between them."""
    words = [re.escape(w) for w in re.split(r"[\s_]+", option.strip()) if w]
    return r"[\s_]+".join(words)


def letters_in(unit: str, choices: list[str]) -> set[int]:
    """The options a piece of the reply names by letter."""
    valid = OPTION_LETTERS[:len(choices)]
    cls = f"[{valid}]"
    found: set[str] = set()
    lone = re.fullmatch(rf"\W*({cls}|[{valid.lower()}])\W*", unit)
    if lone:
        found.add(lone.group(1).upper())
    words = re.findall(r"[A-Za-z]+", unit)
    if len(words) > 1 and all(w in valid or w.lower() in ("or", "and") for w in words):
        found.update(w for w in words if w in valid)  # "K or L": letters alone
    found.update(re.findall(rf"\(({cls})\)", unit))
    found.update(re.findall(rf"(?<![\w(])({cls})\)", unit))
    m = re.match(rf"\W*({cls})\s*(?:[.:,]|$)", unit)
    if m:
        found.add(m.group(1))
    found.update(re.findall(rf"(?i:\b(?:answer|option|choice)\b)\s*(?i:is)?\s*:?\s*\(?({cls})"
                            rf"(?![\w'])", unit))
    for i, option in enumerate(choices):
        letter = OPTION_LETTERS[i]
        if re.search(rf"(?<![\w']){letter}[.)]\s*(?i:{_text_pattern(option)})(?![\w])", unit):
            found.add(letter)
    return {OPTION_LETTERS.index(x) for x in found}


def texts_in(unit: str, choices: list[str]) -> set[int]:
    """The options a piece of the reply names by text (whole words; an option whose every
    mention is part of a longer option's text is not counted)."""
    hits = {i for i, c in enumerate(choices) if contains_normalised(unit, c)}
    for i in list(hits):
        short = normalise(choices[i])
        for j in hits:
            if i == j:
                continue
            long = normalise(choices[j])
            if f" {short} " in f" {long} " and \
                    f" {short} " not in f" {normalise(unit).replace(long, ' ')} ":
                hits.discard(i)
                break
    return hits


def read(reply: str, choices: list[str]) -> Reading:
    """The options named in the first place of the answer part that names any."""
    for unit in _UNITS.split(answer_part(reply)):
        unit = unit.strip()
        if not unit:
            continue
        named = letters_in(unit, choices) or texts_in(unit, choices)
        if named:
            return Reading(tuple(sorted(named)), unit)
    return Reading(())


def score(item: ItemSpec, response: str, ctx: ScoringContext | None = None) -> Outcome:
    """Right when the answer names exactly one option, the right one."""
    if not response.strip():
        return Outcome(correct=False, error=UNPARSEABLE, detail="empty answer")
    reading = read(response, item.choices)
    if not reading.named:
        return Outcome(correct=False, error=UNPARSEABLE,
                       detail=f"no option named (a letter A-{OPTION_LETTERS[len(item.choices) - 1]} "
                              f"or an option's text)")
    shown = [f"{OPTION_LETTERS[i]}. {item.choices[i]}" for i in reading.named]
    if len(reading.named) > 1:
        return Outcome(correct=False, parsed=shown,
                       detail=f"names {len(shown)} options in {reading.where!r}")
    return Outcome(correct=OPTION_LETTERS[reading.named[0]] == item.meta["gold_letter"],
                   parsed=shown[0])
