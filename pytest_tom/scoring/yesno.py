"""Yes/no answers, negation read before affirmation."""

from __future__ import annotations

import re

_NEG = re.compile(
    r"(^\W*(no|false|nope)\b)|\b(no|not|never)\b[\s,]|\bdoes\s+not\s+know\b|\bdoesn'?t\s+know\b"
    r"|\bdo\s+not\s+know\b|\bdon'?t\s+know\b|\bunaware\b|\bhas\s+no\s+(idea|knowledge)\b"
    r"|\bno[.!]?$|\bnot[.!]?$|\bisn'?t\b|\bwasn'?t\b|\bcannot\b|\bcan'?t\b|\bdidn'?t\b|\bwon'?t\b"
    r"|\bknows\s+nothing\b",
)
_YES = re.compile(r"(^\W*(yes|true|yep|correct)\b)|\byes\b|\bknows\b|\bis\s+aware\b|\baware\b")


def parse_yes_no(response: str) -> str | None:
    """'yes', 'no', or None when the answer says neither.

    An answer opening with yes/no is read by that word. Otherwise negation cues
    are looked for first ("No, she knows nothing" is no, "He does not know." is
    no), then affirmation.
    """
    t = response.strip().lower()
    head = re.match(r"^\W*(yes|no|true|false)\b", t)
    if head:
        return "yes" if head.group(1) in ("yes", "true") else "no"
    if _NEG.search(t):
        return "no"
    if _YES.search(t):
        return "yes"
    return None
