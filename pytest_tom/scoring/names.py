"""Which character names an answer lists, as whole words, honouring exclusions.

"Everyone except Sara" does not list Sara; "Ann" does not match inside "Anna";
"Tom does not know" does not list Tom.
"""

from __future__ import annotations

import re

from pytest_tom.scoring.text import word_pattern

_EXCLUDE_CUES = re.compile(
    r"\b(except(?:\s+for)?|excluding|but\s+not|not|other\s+than|apart\s+from|save\s+for|without|aside\s+from|nor)\b",
    re.IGNORECASE,
)
_LIST_GLUE = re.compile(r"^[\s,]*(and|or|nor|&)?[\s,]*$", re.IGNORECASE)
_NEGATED_KNOW = re.compile(
    r"\b(do(es)?\s+not|don'?t|doesn'?t|did\s+not|didn'?t)\s+(know|have|hear|learn)|\bunaware\b"
    r"|\bno\s+idea\b|\bnot\s+aware\b",
    re.IGNORECASE,
)
_TITLES = "".join(f"(?<!\\b{t})" for t in ("Mr", "Mrs", "Ms", "Dr", "St", "Prof", "Capt"))
_CLAUSE = re.compile(rf"{_TITLES}[.;!?\n]+|[;!?\n]+|,\s*(?:but|while|whereas)\b|\bbut\b",
                     re.IGNORECASE)


def mentioned_names(response: str, names: list[str]) -> set[str]:
    """The subset of `names` that the response lists as included."""
    included: set[str] = set()
    for clause in _CLAUSE.split(response):
        if not clause or not clause.strip():
            continue
        spans = []
        for name in names:
            for m in word_pattern(name).finditer(clause):
                spans.append((m.start(), m.end(), name))
        spans.sort()
        if not spans:
            continue
        excluded = _excluded_by_cue(clause, spans)
        neg = _NEGATED_KNOW.search(clause)
        for start, _end, name in spans:
            if name in excluded:
                continue
            if neg is not None and start < neg.start():
                continue  # "Tom and Ann do not know"
            included.add(name)
    return included


def _excluded_by_cue(clause: str, spans: list[tuple[int, int, str]]) -> set[str]:
    """Names in the list that directly follows an exclusion cue ("except A, B and C")."""
    excluded: set[str] = set()
    for cue in _EXCLUDE_CUES.finditer(clause):
        pos = cue.end()
        for start, end, name in spans:
            if start < pos:
                continue
            if _LIST_GLUE.match(clause[pos:start]):
                excluded.add(name)
                pos = end
            else:
                break
    return excluded
