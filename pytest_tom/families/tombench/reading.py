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
and a letter beyond a two-option question maps to nothing.

`read_reply` is the correct reading of the scoring rule: `read_letter` first, and, when
the reply names no letter in its forms, the kit's multiple-choice reader (`read_choice`),
which reads what the prompt's format leaves out: a reply that is an option's text alone,
a letter in another form (`d) text` as the `python:` item view shows the options,
`**B**`, `option B`) and a reasoning reply's last answer statement."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_tom.families.kit import normalise
from pytest_tom.families.kit import read_choice

from .schema import LETTERS

_NONE = "no option named"

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
        return Read(None, f"{_NONE} (the format asked for is [[A]])")
    if len(set(found)) > 1:
        return Read(None, f"several options named ({', '.join(dict.fromkeys(found))})")
    return _within(found[0], options, f"the letter {found[0]} (not in [[ ]])")


def read_reply(reply: str, options: list[str], method: str = "vanilla") -> Read:
    """The correct reading of `reply` to a question showing `options` (in their shown order):
    `read_letter`, else the kit's reader on the letters and texts of the options."""
    read = read_letter(reply, len(options), method)
    choice = read_choice(reply, options, LETTERS[:len(options)])
    if choice.index is not None and _is_option(reply, choice.index, options):
        letter = LETTERS[choice.index]  # `d) text` or the text alone, whatever letters it holds
        return Read(letter, f"option {letter} as shown ({reply.strip()!r})")
    if read.letter is not None or not read.how.startswith(_NONE):
        return read
    if choice.index is not None:
        letter = LETTERS[choice.index]
        return Read(letter, f"option {letter} at the reply's {choice.rule} ({choice.where!r})")
    if choice.ambiguous:
        named = ", ".join(LETTERS[i] for i in choice.named)
        return Read(None, f"several options named ({named}) at the reply's {choice.rule}")
    return read


def _is_option(reply: str, index: int, options: list[str]) -> bool:
    """True when the reply is the option itself: its text, alone or after its letter."""
    said, text = normalise(reply), normalise(options[index])
    return said in (text, f"{LETTERS[index].lower()} {text}")


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
