"""Reading a class label out of a free answer: keywords, exclusive yes/no words, named places.

Each reader returns the label, or None when the answer does not name exactly
one label (the caller scores None as an unparseable, wrong answer).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_tom.scoring.text import normalise

KeywordTable = Sequence[tuple[str, Sequence[str]]]  # (label, keywords), in priority order

_YES = re.compile(r"(?<![\w'])yes(?![\w'])", re.IGNORECASE)
_NO = re.compile(r"(?<![\w'])no(?:pe)?(?![\w'])", re.IGNORECASE)


def last_line(text: str) -> str:
    """The last non-blank line of a response (what a chain-of-thought answer ends with)."""
    for line in reversed(str(text).splitlines()):
        if line.strip():
            return line.strip()
    return ""


def yes_no_word(text: str) -> str | None:
    """'yes' or 'no' when the answer uses exactly one of the two words (whole words; "nope"
    is a no too, as the substring test it replaces finds "no" in it).

    Unlike a substring test, "know", "not" or "nothing" do not count as "no";
    an answer with both words, or neither, is None. A hedge that uses the word ("No
    idea.") is a no, as the authors' OpenToM evaluator reads it (docs/differences.md).
    """
    yes, no = bool(_YES.search(text)), bool(_NO.search(text))
    if yes == no:
        return None
    return "yes" if yes else "no"


def keywords_found(text: str, table: KeywordTable) -> list[str]:
    """The labels (in table order) one of whose keywords occurs in the lower-cased text."""
    low = str(text).lower()
    return [label for label, words in table if any(w in low for w in words)]


def first_keyword(text: str, table: KeywordTable) -> str | None:
    """The first label of the table whose keyword occurs (priority order decides ties)."""
    found = keywords_found(text, table)
    return found[0] if found else None


def sole_keyword(text: str, table: KeywordTable) -> str | None:
    """The label when exactly one label's keywords occur; None for none or several."""
    found = keywords_found(text, table)
    return found[0] if len(found) == 1 else None


def named_place(text: str, places: Sequence[Sequence[str]]) -> int | None:
    """Index of the one place the answer names, each place given as [name, *aliases].

    Names are compared after normalisation (case, punctuation, articles as whole
    words) and must occur as whole words. When one place's name is part of
    another's ("drawer" and "another drawer") and occurs only inside it, the
    longer one is meant. Naming two places, or none, gives None.
    """
    answer = f" {normalise(text)} "
    names = [[n for n in (normalise(x) for x in group) if n] for group in places]
    hits = {i: [n for n in group if f" {n} " in answer] for i, group in enumerate(names)}
    hits = {i: found for i, found in hits.items() if found}
    if len(hits) > 1:
        for i in list(hits):
            longer = [m for j, found in hits.items() if j != i for m in found
                      if any(f" {n} " in f" {m} " and n != m for n in hits[i])]
            masked = answer
            for m in sorted(longer, key=len, reverse=True):
                masked = masked.replace(f" {m} ", " | ")
            if longer and not any(f" {n} " in masked for n in hits[i]):
                del hits[i]
    return next(iter(hits)) if len(hits) == 1 else None
