"""An interim multiple-choice reader with the interface of the shared one (issue 45, part 1:
`pytest_tom/scoring/choice_reader.py`, `read_choice(reply, options, letters=...) ->
ChoiceReading(index, named, rule)`), used by ToMATO and SimpleToM until that lands; the
families call it through the kit's `read_choice`, so replacing this module is one line of
the kit.

It reads, in this order, and stops at the first level that names something:

1. a reply that opens with an option: `B`, `[B]`, `(B)`, `**B**`, `B.`, `B)`, `Option B`;
2. the last answer statement: `the answer is [B]`, `Answer: (B)`, `final answer: B`;
3. the last line that names exactly one option by a marked letter (`[B]`, `(B)`, `[[B]]`,
   `**B**`, `"B"`, `option B`);
4. the option's text alone (the whole reply, without its final full stop).

Letters are read in either case where they are marked (`[b]`, `(b)`) and in upper case
where bare. Several different options at one level are ambiguous and name nothing; a
reply naming none is unparseable (`index` None, `rule` saying why).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

_MARKED = r"(?:\[\[\s*({L})\s*\]\]|\[\s*({L})\s*\]|\(\s*({L})\s*\)|\*\*\s*({L})\s*\*\*|\"({L})\"|option\s+({L})\b)"


@dataclass(frozen=True)
class ChoiceReading:
    """What a reply names: the option's index (None: none, or several), the letters it
    named at the level that decided, and the rule that decided (or why nothing did)."""

    index: int | None
    named: tuple[str, ...] = ()
    rule: str = ""
    notes: tuple[str, ...] = field(default=())


def _letters_in(pattern: re.Pattern[str], text: str) -> list[str]:
    return [next(g for g in m.groups() if g).upper() for m in pattern.finditer(text)]


def read_choice(reply: str, options: Sequence[str], letters: str = "ABCD") -> ChoiceReading:
    """Which of `options` (shown with `letters`) the reply names; see the module."""
    shown = letters[:len(options)]
    alternation = "|".join(shown + shown.lower())
    marked = re.compile(_MARKED.replace("{L}", alternation), re.IGNORECASE)
    text = reply.strip()

    def pick(found: list[str], rule: str) -> ChoiceReading | None:
        if not found:
            return None
        distinct = tuple(dict.fromkeys(found))
        if len(distinct) > 1:
            return ChoiceReading(None, distinct, f"ambiguous: {rule} names {', '.join(distinct)}")
        return ChoiceReading(shown.index(distinct[0]), distinct, rule)

    opening = re.match(rf"^[\s\[(*\"]*(?:option\s+)?({'|'.join(shown)})(?=\s*(?:$|[\]).:*\"\-,]))",
                       text, re.IGNORECASE)
    if opening and (opening.group(1).isupper() or re.match(r"^\W*[\[(]", text)):
        letter = opening.group(1).upper()
        return ChoiceReading(shown.index(letter), (letter,), "the reply opens with the option")
    statements = list(re.finditer(
        rf"(?:answer|choice)\s*(?:is|would be|:)\s*:?\s*(?:{marked.pattern}|\b({'|'.join(shown)})\b)",
        text, re.IGNORECASE))
    if statements:
        last = statements[-1]
        letter = next(g for g in last.groups() if g).upper()
        return ChoiceReading(shown.index(letter), (letter,), "the last answer statement")
    for line in reversed([ln for ln in text.splitlines() if ln.strip()]):
        found = pick(_letters_in(marked, line), "the last line naming an option")
        if found is not None:
            return found
    plain = text.rstrip(".").strip().lower()
    for i, option in enumerate(options):
        if plain and plain == option.strip().rstrip(".").strip().lower():
            return ChoiceReading(i, (shown[i],), "the option's text alone")
    return ChoiceReading(None, (), "no option named")
