"""Reading FANToM answers the way the authors' evaluator does, with its listed defects fixed.

- the scored text is what follows the last "Answer:" (else the last "Choose an
  answer from above:"), stripped, exactly as the released code cuts it;
- a choice answer marks a letter x when the lower-cased text starts with
  `(x)`, `x)`, `x.`, `x:` or `x,`, contains `(x)`, or is exactly `x`; an answer
  marking both letters is wrong (upstream: correct);
- yes/no answers use the released cue words (yes: "yes", "knows", a leading
  "yes"/"true"; no: "no", "does not know", "doesn't know", a leading
  "no"/"false"), matched as whole words whatever punctuation follows
  (upstream: only between spaces, so "He does not know." is neither), a
  leading yes/no word decides, and otherwise negation is read before
  affirmation (upstream: "No, she knows nothing" is yes); a hedge or refusal ("I'm not
  sure", "Not enough information.", "It's unclear whether she knows") is read exactly as
  the released code reads it (`released_binary`): mostly "irrelevant", but "no" for
  "Not sure." or "No idea." (its cues), and never "yes" through the whole-word fix;
- names in list answers are whole words, and "everyone except Sara" does not
  list Sara (upstream: substrings, so "Ann" matches inside "Anna").

Every difference is listed in docs/differences.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_tom.families.kit import hedge_in
from pytest_tom.families.kit import mentioned_names

ANSWER_MARKER = "Answer:"
CHOICE_MARKER = "Choose an answer from above:"
YES, NO, IRRELEVANT = "yes", "no", "irrelevant"


def extract_answer(response: str) -> str:
    """The part of a response that is scored (case-sensitive markers, like the released code)."""
    text = str(response)
    if ANSWER_MARKER in text:
        text = text.split(ANSWER_MARKER)[-1]
    elif CHOICE_MARKER in text:
        text = text.split(CHOICE_MARKER)[-1]
    return text.strip()


def marks_letter(answer: str, letter: str) -> bool:
    """Does the answer pick option `letter` by the released evaluator's forms?"""
    r = answer.strip().lower()
    x = letter.lower()
    return r.startswith((f"({x})", f"{x})", f"{x}.", f"{x}:", f"{x},")) or f"({x})" in r or r == x


def letters_marked(answer: str, letters: str = "ab") -> list[str]:
    return [x for x in letters if marks_letter(answer, x)]


_HEAD = re.compile(r"^\W*(yes|true|no|not|nope|none|false)\b")
_NEG = re.compile(r"\bno\b|\bdoes\s+not\s+know\b|\bdoesn['’]t\s+know\b")
_POS = re.compile(r"\byes\b|\bknows\b")


_RELEASED_YES = (" yes,", " yes ", " yes.", " knows ")
_RELEASED_NO = (" no,", " no ", " no.", " does not know ", " doesn't know ")


def released_binary(answer: str) -> str:
    """The released code's reading, cue for cue (spaces included): used for hedges only."""
    r = answer.strip().lower()
    if any(c in r for c in _RELEASED_YES) or r.startswith(("yes", "true")):
        return YES
    if any(c in r for c in _RELEASED_NO) or r.startswith(("no", "false")):
        return NO
    return IRRELEVANT


def parse_binary(answer: str) -> str:
    """'yes', 'no' or 'irrelevant' (neither: counted wrong, and as its own label in F1)."""
    if hedge_in(answer):
        return released_binary(answer)
    r = answer.strip().lower()
    head = _HEAD.match(r)
    if head:
        return YES if head.group(1) in ("yes", "true") else NO
    if _NEG.search(r):
        return NO
    if _POS.search(r):
        return YES
    return IRRELEVANT


@dataclass(frozen=True)
class ListJudgement:
    named: list[str]
    excluded_aware: list[str]  # false negatives: aware characters left out
    included_unaware: list[str]  # false positives: unaware characters listed

    @property
    def correct(self) -> bool:
        return not self.excluded_aware and not self.included_unaware


def judge_list(answer: str, aware: list[str], unaware: list[str]) -> ListJudgement:
    """All aware characters named and no unaware one (whole words, exclusions honoured)."""
    named = mentioned_names(answer, [*aware, *unaware])
    low = {n.lower() for n in named}
    return ListJudgement(
        named=[n for n in [*aware, *unaware] if n.lower() in low],
        excluded_aware=[n for n in aware if n.lower() not in low],
        included_unaware=[n for n in unaware if n.lower() in low],
    )
