"""Reading which option a SimpleToM reply picks, two ways.

The correct reading (the default) is the kit's shared multiple-choice reader
(`read_choice`).

The authors' reading (`--tom-simpletom-reading authors`), the cascade their README
describes: the letters whose `(A)` .. `(D)` occurs in the reply; if none, those whose
`(A` .. `(D` occurs; if none, those standing alone as a word (`A`, `B.`). The first tier
that finds any decides: one letter is the answer, several are wrong (no answer), and a
reply with none at any tier is unreadable. Upper case only, as written there. How the
authors' code tells a bare letter from the article "A" we could not read (no copy of
their code reached us): a capital standing alone as a word is our reading of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_tom.families.kit import read_choice

from .schema import LETTERS

TIERS = (("(X)", lambda x: re.compile(rf"\({x}\)")),
         ("(X", lambda x: re.compile(rf"\({x}")),
         ("a bare X", lambda x: re.compile(rf"(?<![A-Za-z0-9]){x}(?![A-Za-z0-9])")))


@dataclass(frozen=True)
class Read:
    """The letter a reply names (None: none), how, and whether several were named."""

    letter: str | None
    how: str
    several: bool = False


def correct_letter(reply: str, options: list[str]) -> Read:
    reading = read_choice(reply, options, letters=LETTERS)
    if reading.index is None:
        return Read(None, reading.rule, several=len(reading.named) > 1)
    return Read(LETTERS[reading.index], reading.rule)


def authors_letter(reply: str) -> Read:
    for form, pattern in TIERS:
        found = [x for x in LETTERS if pattern(x).search(reply)]
        if len(found) == 1:
            return Read(found[0], form.replace("X", found[0]))
        if found:
            return Read(None, f"several letters at the tier {form}: "
                              f"{', '.join(found)} (the authors' cascade: wrong)", several=True)
    return Read(None, "no (A)..(D), (A..(D or bare letter (the authors' cascade: unreadable)")
