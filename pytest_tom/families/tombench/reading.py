"""Reading which option a reply picks, two ways.

The correct reading (the default): the letter in double square brackets, the format the
prompt asks for (`[[B]]`); failing that, single brackets (`[B]`), a reply that is only a
letter (`B`, `(B)`, `B.`), one that starts with a letter and a delimiter (`B. Handbag`), a
letter with a parenthesis (`(B)`, `B)`) anywhere, or `Answer: B` / `答案：B`. A reply that names several different letters in the first of these
forms that it uses is ambiguous (under `cot` the last bracketed letter is the answer, as
the reasoning comes first), and one that names none is unparseable: both count as wrong
and are reported as such. A letter beyond the question's options names nothing.

The authors' reading (`--tom-tombench-reading authors`), as get_results.py reads a reply:
`[[A]]` if it occurs anywhere, else `[[B]]`, `[[C]]`, `[[D]]` (in that order of priority,
not of position), then `[A]` ... `[D]`, then the last capital A, B, C or D anywhere in the
text (the D of "Dave", the A of "A lot"), and `A` when there is none. The letter
is mapped back to the file's option by the option's text (the first option with that text),
and a letter beyond a two-option question maps to nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .schema import LETTERS

_DOUBLE = re.compile(r"\[\[\s*([A-Da-d])\s*\]\]")
_SINGLE = re.compile(r"(?<!\[)\[\s*([A-Da-d])\s*\](?!\])")
_ALONE = re.compile(r"^\W*([A-Da-d])\W*$")
_LEADING = re.compile(r"^\s*[(（]?([A-D])\s*[)）.．、:：]")
_PAREN = re.compile(r"(?<![\w(（])[(（]?([A-D])[)）]")
_LABELLED = re.compile(r"(?:answer|option|答案|选项)\s*(?:is|是|为)?\s*[:：]?\s*[(（\[]?([A-D])(?![A-Za-z])",
                       re.IGNORECASE)


@dataclass(frozen=True)
class Read:
    """What a reply names: the letter as shown (None when unusable) and why."""

    letter: str | None
    how: str


def read_letter(reply: str, options: int, method: str = "vanilla") -> Read:
    """The correct reading of `reply` to a question with `options` options."""
    text = reply.strip()
    for form, pattern in (("[[X]]", _DOUBLE), ("[X]", _SINGLE)):
        found = [m.group(1).upper() for m in pattern.finditer(text)]
        if found:
            if method == "cot":
                return _within(found[-1], options, f"the last {form.replace('X', found[-1])}")
            if len(set(found)) > 1:
                named = ", ".join(dict.fromkeys(f"{form.replace('X', x)}" for x in found))
                return Read(None, f"several options named ({named})")
            return _within(found[0], options, form.replace("X", found[0]))
    found = []
    for pattern in (_ALONE, _LEADING):
        m = pattern.match(text)
        if m:
            found.append(m.group(1).upper())
    found += [m.group(1).upper() for m in _PAREN.finditer(text)]
    found += [m.group(1).upper() for m in _LABELLED.finditer(text)]
    if not found:
        return Read(None, "no option named (the format asked for is [[A]])")
    if len(set(found)) > 1:
        return Read(None, f"several options named ({', '.join(dict.fromkeys(found))})")
    return _within(found[0], options, f"the letter {found[0]} (not in [[ ]])")


def _within(letter: str, options: int, how: str) -> Read:
    if LETTERS.index(letter) >= options:
        shown = ", ".join(LETTERS[:options])
        return Read(None, f"{how} names no option: this question has {shown}")
    return Read(letter, how)


def authors_letter(reply: str) -> Read:
    """The letter get_results.py reads in `reply` (never None)."""
    for form in ("[[{}]]", "[{}]"):
        for letter in LETTERS:
            if form.format(letter) in reply:
                return Read(letter, form.format(letter))
    for ch in reversed(reply):
        if ch in LETTERS:
            return Read(ch, f"the last capital {ch} of the reply")
    return Read("A", "no letter at all: read as A")


def authors_map(file_options: list[str], order: list[str]) -> dict[str, str]:
    """Shown letter -> the file's letter, as run_api.py maps it: by the text of the option
    shown there, to the first option of the file with that text; letters beyond the options
    map to ''."""
    texts = [file_options[LETTERS.index(o)] for o in order]
    out = dict.fromkeys(LETTERS, "")
    for i, text in enumerate(texts):
        out[LETTERS[i]] = LETTERS[file_options.index(text)]
    return out
