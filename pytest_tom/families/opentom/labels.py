"""OpenToM question genres, their label spaces, and reading a label out of an answer.

The rules follow the authors' released label parsing (lower-cased substrings,
priority order for the multi-hop phrases, two attitude keywords are
unparseable), with the defects fixed that `docs/differences.md` lists:
"yes"/"no" are whole words, and a fine location must name exactly one of the
two places, compared as whole words after normalisation.

The label of a fine-location answer is which of the narrative's two plot places
it names: `original` or `new` (the classes of the paper's Loc_fine macro-F1).
The place is recognised by its normalised name (lower-case, no punctuation, no
articles) as whole words; when one place's name contains the other's ("drawer"
/ "another drawer") the exact place string decides (`named_place`). The
normalised name itself (`place_label`) is kept in the records for reading.

Perspective subsets (`perspective_subsets`) follow the authors' `--perspective`
rule: a question naming only the mover is the mover's, only the observer the
observer's, both: whoever is named first, neither (the narrator's questions):
both subsets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_tom.families.kit import KeywordTable
from pytest_tom.families.kit import first_keyword
from pytest_tom.families.kit import letters_named
from pytest_tom.families.kit import named_place
from pytest_tom.families.kit import normalise
from pytest_tom.families.kit import sole_keyword
from pytest_tom.families.kit import word_pattern
from pytest_tom.families.kit import yes_no_word

GENRES = ("loc_coarse", "loc_fine", "mhop_fullness", "mhop_accessibility", "attitude")
ORDERS = ("first", "second")
ROLES = ("mover", "observer", "narrator")
CONTAINERS = ("original", "new")

COARSE_LABELS = ("Yes", "No")
PLACE_ROLES = ("original", "new")  # the fine-location classes: the plot's two places
SUBSETS = ("mover", "observer")

FULLNESS: KeywordTable = (
    ("less full", ("less full", "emptier", "more empty")),
    ("more full", ("more full", "fuller")),
    ("equally full", ("equally full",)),
)
ACCESSIBILITY: KeywordTable = (
    ("more accessible", ("more accessible",)),
    ("less accessible", ("less accessible",)),
    ("equally accessible", ("equally accessible",)),
)
ATTITUDES = ("positive", "neutral", "negative")  # shown as a) b) c) in this order
ATTITUDE: KeywordTable = tuple((a, (a,)) for a in ATTITUDES)

LABELS: dict[str, tuple[str, ...]] = {
    "loc_coarse": COARSE_LABELS,
    "loc_fine": PLACE_ROLES,
    "mhop_fullness": tuple(label for label, _ in FULLNESS),
    "mhop_accessibility": tuple(label for label, _ in ACCESSIBILITY),
    "attitude": ATTITUDES,
}

Places = Sequence[Sequence[str]]  # [[original, *aliases], [new, *aliases]]


def parse_label(genre: str, text: str, places: Places = ()) -> str | None:
    """The label an answer gives for a question of `genre`, or None (unparseable)."""
    if genre == "loc_coarse":
        yn = yes_no_word(text)
        return None if yn is None else yn.capitalize()
    if genre == "loc_fine":
        index = named_place(text, places)
        return None if index is None else PLACE_ROLES[index]
    if genre == "mhop_fullness":
        return first_keyword(text, FULLNESS)
    if genre == "mhop_accessibility":
        return first_keyword(text, ACCESSIBILITY)
    if genre == "attitude":
        label = sole_keyword(text, ATTITUDE)
        if label is None and not any(a in text.lower() for a in ATTITUDES):
            letters = letters_named(text, len(ATTITUDES))
            if len(letters) == 1:
                label = ATTITUDES["abc".index(next(iter(letters)))]
        return label
    raise ValueError(f"unknown OpenToM genre {genre!r}")


def gold_label(genre: str, answer: Any, places: Places = ()) -> str | None:
    """The label of a gold answer as written in a suite (None when it is not a valid one).

    YAML 1.1 reads an unquoted Yes/No as a boolean, so booleans are accepted for
    the coarse questions; the other genres need their label spelled out.
    """
    if genre == "loc_coarse" and isinstance(answer, bool):
        return "Yes" if answer else "No"
    if not isinstance(answer, str) or not answer.strip():
        return None
    text = answer.strip()
    if genre == "loc_coarse":
        return {"yes": "Yes", "no": "No"}.get(text.lower())
    if genre == "loc_fine":
        index = named_place(text, places)
        return None if index is None else PLACE_ROLES[index]
    low = text.lower()
    return low if low in LABELS[genre] else None


def place_label(place: str) -> str:
    """A place as read ("The Trash-can." -> "trash can"): kept in records, not a class."""
    return normalise(place)


def place_name(label: str | None, places: Places) -> str | None:
    """The normalised name of the place of a fine-location class ('original' / 'new')."""
    if label not in PLACE_ROLES or len(places) < 2:
        return None
    return place_label(places[PLACE_ROLES.index(label)][0])


def perspective_subsets(question: str, mover: str, observer: str) -> tuple[str, ...]:
    """The perspective subsets ('mover', 'observer') a question counts in.

    Names are found as whole words (the released code tests substrings); a
    question naming both belongs to whoever is named first (the outer
    perspective: "From Ana's perspective, does Ben think ..." is Ana's), one
    naming neither (the narrator's questions) to both.
    """
    found = {}
    for role, name in zip(SUBSETS, (mover, observer), strict=True):
        m = word_pattern(name).search(question) if name.strip() else None
        if m:
            found[role] = m.start()
    if not found:
        return SUBSETS
    return (min(found, key=lambda r: found[r]),)
