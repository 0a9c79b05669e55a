"""Reading which lettered option an answer picks: `a)`, `(b)`, `Answer: c`, or the option text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_tom.scoring.text import contains_normalised, normalise

LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class ChoiceParse:
    """The letters an answer names. Exactly one letter is a usable answer."""

    letters: frozenset[str]

    @property
    def letter(self) -> str | None:
        return next(iter(self.letters)) if len(self.letters) == 1 else None

    @property
    def ambiguous(self) -> bool:
        return len(self.letters) > 1


def letters_named(response: str, n: int) -> set[str]:
    """Letters referred to as options: `(a)`, `a)`, a leading `a.`/`a:`/`a,`, `answer: a`, or just `a`."""
    valid = LETTERS[:n]
    text = response.strip().lower()
    found: set[str] = set()
    if len(text) == 1 and text in valid:
        return {text}
    cls = f"[{valid}]"
    for m in re.finditer(rf"\(({cls})\)", text):
        found.add(m.group(1))
    for m in re.finditer(rf"(?<![\w(])({cls})\)", text):
        found.add(m.group(1))
    m = re.match(rf"^\W*({cls})\s*[.:,]", text)
    if m:
        found.add(m.group(1))
    for m in re.finditer(rf"\b(?:answer|option|choice)\s*(?:is|:)?\s*\(?({cls})\b(?![\w'])", text):
        found.add(m.group(1))
    m = re.match(rf"^\W*({cls})\W*$", text)
    if m:
        found.add(m.group(1))
    return found


def parse_choice(response: str, choices: list[str]) -> ChoiceParse:
    """Which option the response names, by letter or, failing that, by the option's text.

    Letters win over texts. When no letter is named, an option counts when its
    text appears as whole words and no other option's text does (texts that
    contain one another, like "soap" and "lavender soap", are resolved to the
    longer one).
    """
    letters = letters_named(response, len(choices))
    if letters:
        return ChoiceParse(frozenset(letters))
    hits = {i for i, c in enumerate(choices) if contains_normalised(response, c)}
    for i in list(hits):
        for j in hits:
            if i != j and contains_normalised(choices[j], choices[i]) and _only_inside(
                response, choices[i], choices[j]
            ):
                hits.discard(i)
                break
    return ChoiceParse(frozenset(LETTERS[i] for i in hits))


def _only_inside(response: str, short: str, long: str) -> bool:
    """True when every occurrence of `short` in the response is part of `long`."""
    r, s, lg = normalise(response), normalise(short), normalise(long)
    return f" {s} " not in f" {r.replace(lg, ' ')} "
