"""OpenToM question genres, their label spaces, and reading a label out of an answer.

The rules follow the authors' released label parsing (lower-cased substrings,
priority order for the multi-hop phrases, two attitude keywords are
unparseable), with the defects fixed that `docs/differences.md` lists:
"yes"/"no" are whole words, and a fine location must name exactly one of the
two places, compared as whole words after normalisation.

The label of a fine-location answer is the place it names, normalised
(lower-case, no punctuation, no articles): the label space of Loc_fine is the
set of places of the pool, as the paper's naive baselines imply (a majority
answer scores 0.003, a random one 0.000). `which_place` tells whether a label
is a narrative's original or new place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_tom.scoring.choice import letters_named
from pytest_tom.scoring.labels import (
    KeywordTable,
    first_keyword,
    named_place,
    sole_keyword,
    yes_no_word,
)
from pytest_tom.scoring.text import normalise

GENRES = ("loc_coarse", "loc_fine", "mhop_fullness", "mhop_accessibility", "attitude")
ORDERS = ("first", "second")
ROLES = ("mover", "observer", "narrator")
CONTAINERS = ("original", "new")

COARSE_LABELS = ("Yes", "No")
PLACE_ROLES = ("initial", "new")  # the original place, the new place

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
    "loc_fine": (),  # the places of the narrative (see place_label)
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
        return None if index is None else place_label(places[index][0])
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
        return None if index is None else place_label(places[index][0])
    low = text.lower()
    return low if low in LABELS[genre] else None


def place_label(place: str) -> str:
    """The label of a place: its normalised name ("The Trash-can." -> "trash can")."""
    return normalise(place)


def which_place(label: str | None, places: Places) -> str | None:
    """'initial' or 'new' for the label of a narrative's original or new place, else None."""
    for role, group in zip(PLACE_ROLES, places, strict=False):
        if label is not None and label == place_label(group[0]):
            return role
    return None
