"""Yes/no answers: a hedge or a refusal is no answer; otherwise negation is read before
affirmation.

Asked "Does Maya know that the sandwich was moved? Answer yes or no.", models write
"No.", "Nope", "no, she doesn't", "She does not know." -- and also "I am not sure.",
"Sorry, I cannot answer that.", "I can't tell.", "Not enough information.". Those last
ones are not "no": on false-belief knowledge questions "no" is the gold of most items, so
reading a hedge as "no" pays a model for hedging. `parse_yes_no` therefore reads, in order:

1. a hedge or refusal (`hedge_in`) anywhere in the answer: None (unparseable: wrong, and
   reported as unparseable). Hedges are the speaker's own uncertainty or refusal ("I'm not
   sure", "I don't know", "I can't tell", "sorry", "as an AI"), an impersonal "cannot be
   decided" ("it is unclear", "not enough information", "cannot be determined", "the story
   does not say whether"), an answer that is only a hedge word ("Maybe.", "Unknown.",
   "No idea."), "maybe" / "perhaps" / "possibly", and "yes and no". A statement about the
   character is an answer, not a hedge: "She has no idea" and "Maya is not sure where it
   is" are "no".
2. an answer opening with yes / yeah / yep / yup / true or no / nope / nah / false: that
   word ("No, she knows nothing" is no);
3. a negation anywhere ("not", "never", "cannot", "-n't", "unaware", "knows nothing",
   "has no idea" ...): "no" ("He does not know." is no);
4. an affirmation ("yes", "knows", "aware", "does", "of course" ...): "yes";
5. else None.

The families whose authors' evaluators read yes/no their own way (FANToM, OpenToM) keep
those readings, as `docs/differences.md` says; this reader is the generic family's.
"""

from __future__ import annotations

import re

_CANT = r"(?:cannot|can't|can\s+not|could\s+not|couldn't|won't|will\s+not|am\s+unable\s+to|'m\s+unable\s+to)"
_SAY = r"(?:answer|tell|say|know|determine|be\s+sure|decide|confirm|judge|infer|help|assist|comply|provide)"
_INFO = r"(?:information|info|context|details?|evidence|data)"

_HEDGES = re.compile("|".join((
    # refusals and apologies
    r"\b(?:sorry|apologi[sz]e)\b",
    r"\bas\s+an\s+ai\b|\bas\s+a\s+(?:large\s+)?language\s+model\b",
    # the speaker's own uncertainty or inability
    r"\bi(?:\s+am|'m)\s+(?:not\s+(?:sure|certain|able)|unsure|uncertain|unable)\b",
    r"\bi\s+(?:do\s+not|don't|did\s+not|didn't)\s+know\b",
    rf"\bi\s+{_CANT}\s+(?:\w+\s+)?{_SAY}\b",
    r"\bi\s+have\s+no\s+(?:idea|way)\b",
    # an answer that is only a hedge
    r"^\W*(?:not\s+sure|unsure|uncertain|unclear|no\s+idea|dunno|n/?a"
    r"|(?:don't|do\s+not)\s+know|(?:can't|cannot)\s+(?:tell|say|determine)"
    rf"|no\s+way\s+to\s+(?:tell|know|say)|no\s+{_INFO})\b",
    # the question cannot be decided
    r"\b(?:it|this|that)(?:\s+is|'s)\s+(?:not\s+(?:clear|certain|known)|uncertain|ambiguous)\b",
    r"\bunclear\b|\bunknown\b(?!\s+to\b)|\bit\s+depends\b",
    r"\bnot\s+possible\s+to\s+(?:say|tell|know|determine)\b",
    r"\b(?:hard|difficult|impossible)\s+to\s+(?:say|tell|determine|judge)\b",
    rf"\b(?:not\s+enough|insufficient)\s+{_INFO}\b",
    rf"\bthere(?:\s+is|'s)\s+no\s+(?:way\s+(?:to|of)\b|{_INFO}\b)",
    r"\b(?:cannot|can't|can\s+not)\s+be\s+(?:determined|known|answered|said|told|inferred|decided)\b",
    r"\b(?:does\s+not|doesn't|do\s+not|don't)\s+(?:say|specify|mention|state|indicate|tell)"
    r"\s+(?:us\s+)?(?:whether|if)\b",
    r"\bnot\s+(?:stated|specified|mentioned|indicated|given|clear)\s+(?:whether|if)\b",
    # no commitment either way
    r"\b(?:maybe|perhaps|possibly)\b",
    r"\byes\s+(?:and|or)\s+no\b|\bno\s+(?:and|or)\s+yes\b",
)))
_HEAD = re.compile(r"^\W*(yes|yeah|yep|yup|true|no|nope|nah|false)\b")
_YES_WORDS = ("yes", "yeah", "yep", "yup", "true")
_NEG = re.compile(
    r"\b(?:no|not|never|nope|nah|false|cannot|unaware|nobody|neither|nor)\b|n't\b"
    r"|\bknows\s+nothing\b|\bhas\s+no\s+(?:idea|knowledge|clue)\b"
)
_YES = re.compile(
    r"\b(?:yes|yeah|yep|yup|true|correct|knows|know|knew|aware|does|did|certainly|definitely"
    r"|absolutely|indeed)\b|\bof\s+course\b"
)
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'"})


def _plain(response: str) -> str:
    return " ".join(str(response).translate(_APOSTROPHES).lower().split())


def hedge_in(response: str) -> str | None:
    """The words by which the answer hedges or refuses ("i'm not sure"), or None."""
    found = _HEDGES.search(_plain(response))
    return found.group(0).strip(" .,!?*") if found else None


def parse_yes_no(response: str) -> str | None:
    """'yes', 'no', or None for a hedge, a refusal, or an answer that says neither."""
    t = _plain(response)
    if _HEDGES.search(t):
        return None
    head = _HEAD.match(t)
    if head:
        return "yes" if head.group(1) in _YES_WORDS else "no"
    if _NEG.search(t):
        return "no"
    if _YES.search(t):
        return "yes"
    return None
