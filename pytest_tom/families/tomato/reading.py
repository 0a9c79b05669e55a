"""Reading which option a ToMATO reply picks, two ways.

The correct reading (the default) is the kit's shared multiple-choice reader
(`read_choice`): an opening option, else the last answer statement, else the last line
naming one option, the option's text alone; several options at one level stay ambiguous.

The authors' reading (`--tom-tomato-reading authors`) is their script's: the first match
of a bracketed letter anywhere in the reply, the letter being the answer, and no match
an empty answer (wrong). Their pattern's character class is `[A,B,C,D]`, so it also
matches `[,]`: a reply whose first bracketed character is a comma is read as the
answer `,`, which is wrong, as we read it too. Lower-case `[b]` is not theirs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_tom.families.kit import read_choice

from .schema import LETTERS

_AUTHORS = re.compile(r"\[([A-D,])\]")


@dataclass(frozen=True)
class Read:
    """The letter a reply names (None: none) and how it was read."""

    letter: str | None
    how: str


def correct_letter(reply: str, options: list[str]) -> Read:
    reading = read_choice(reply, options, letters=LETTERS)
    if reading.index is None:
        return Read(None, reading.rule)
    return Read(LETTERS[reading.index], reading.rule)


def authors_letter(reply: str) -> Read:
    m = _AUTHORS.search(reply)
    if m is None:
        return Read(None, "no bracketed letter [A]-[D] (the authors' script: an empty answer)")
    if m.group(1) == ",":
        return Read(None, "the first bracketed character is [,] (the authors' pattern matches "
                          "it: the answer ',')")
    return Read(m.group(1), f"the first bracketed letter [{m.group(1)}]")
