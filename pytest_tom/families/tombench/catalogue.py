"""What ToMBench measures, as data: its 20 task files (the paper's 8 tasks and the 12
ability sets), the 6 ability dimensions with their abilities, and the ABILITY field as the
release writes it.

The release's ABILITY field is `Dimension: ability`, sometimes two of them in one string
(`Belief: Location false beliefs Belief: Second-order beliefs`), once with a trailing space,
and with the dimension `Non-Literal Communication` also written `Non-literal
communication`. `parse_ability_field` reads it into the canonical names below; the
authors' script keys its per-ability table by the string as written
(`RELEASED_ABILITY_FIELDS`, used by the authors' reading only).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass


def slug(text: str) -> str:
    """`Faux-pas Recognition Test` -> `faux_pas_recognition_test` (a metric name part)."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


@dataclass(frozen=True)
class Task:
    """One task file of the release: its name (the file stem), whether it is one of the
    paper's 8 tasks (the task table and its average), and its short label."""

    name: str
    paper: bool
    short: str

    @property
    def slug(self) -> str:
        return slug(self.name)


# the paper's 8 tasks first, in the order of its task table, then the 12 ability sets
TASKS: tuple[Task, ...] = (
    Task("Unexpected Outcome Test", True, "UOT"),
    Task("Scalar Implicature Test", True, "SIT"),
    Task("Persuasion Story Task", True, "PST"),
    Task("False Belief Task", True, "FBT"),
    Task("Ambiguous Story Task", True, "AST"),
    Task("Hinting Task Test", True, "HT"),
    Task("Strange Story Task", True, "SST"),
    Task("Faux-pas Recognition Test", True, "FRT"),
    Task("Hidden Emotions", False, "hidden emotions"),
    Task("Discrepant Emotions", False, "discrepant emotions"),
    Task("Moral Emotions", False, "moral emotions"),
    Task("Emotion Regulation", False, "emotion regulation"),
    Task("Discrepant Desires", False, "discrepant desires"),
    Task("Multiple Desires", False, "multiple desires"),
    Task("Completion of Failed Actions", False, "failed actions"),
    Task("Discrepant Intentions", False, "discrepant intentions"),
    Task("Prediction of Actions", False, "prediction of actions"),
    Task("Knowledge-Attention Links", False, "knowledge-attention"),
    Task("Knowledge-Pretend Play Links", False, "knowledge-pretend play"),
    Task("Percepts-Knowledge Links", False, "percepts-knowledge"),
)
TASK_NAMES = tuple(t.name for t in TASKS)
PAPER_TASKS = tuple(t.name for t in TASKS if t.paper)
TASK_BY_NAME = {t.name: t for t in TASKS}

# dimension -> its abilities, spelled as the release spells them (the README's order)
DIMENSIONS: dict[str, tuple[str, ...]] = {
    "Emotion": ("Typical emotional reactions", "Atypical emotional reactions",
                "Discrepant emotions", "Mixed emotions", "Hidden emotions", "Moral emotions",
                "Emotion regulation"),
    "Desire": ("Discrepant desires", "Multiple desires", "Desires influence on actions",
               "Desires influence on emotions (beliefs)", "Desire-action contradiction"),
    "Intention": ("Completion of failed actions", "Discrepant intentions",
                  "Prediction of actions", "Intentions explanations"),
    "Knowledge": ("Knowledge-pretend play links", "Percepts-knowledge links",
                  "Information-knowledge links", "Knowledge-attention links"),
    "Belief": ("Content false beliefs", "Location false beliefs", "Identity false beliefs",
               "Second-order beliefs", "Beliefs based action/emotions", "Sequence false beliefs"),
    "Non-Literal Communication": ("Irony/Sarcasm", "Egocentric lies", "White lies",
                                  "Involuntary lies", "Humor", "Faux pas"),
}
# "Dimension: ability", in table order
ABILITIES: tuple[str, ...] = tuple(f"{d}: {a}" for d, names in DIMENSIONS.items() for a in names)


def ability_slug(ability: str) -> str:
    """`Belief: Location false beliefs` -> `location_false_beliefs` (unique across dimensions)."""
    return slug(ability.partition(":")[2])


def dimension_of(ability: str) -> str:
    return ability.partition(":")[0]


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


_ABILITY_KEYS = {_squash(a): a for a in ABILITIES}
_DIMENSION_MARK = re.compile(
    "(" + "|".join(re.escape(d).replace(r"\ ", r"\s+").replace(r"\-", r"[-\s]")
                   for d in DIMENSIONS) + r")\s*:", re.IGNORECASE)


def parse_ability_field(text: str) -> tuple[list[str], list[str]]:
    """The canonical abilities named by an ABILITY string (one or several
    `Dimension: ability` parts), and a problem text for each part that names none."""
    marks = list(_DIMENSION_MARK.finditer(text))
    if not marks or text[:marks[0].start()].strip():
        dims = ", ".join(DIMENSIONS)
        return [], [f"{text!r} does not start with a dimension and a colon ({dims}), e.g. "
                    f"'Belief: Location false beliefs'"]
    found: list[str] = []
    problems: list[str] = []
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        dimension = next(d for d in DIMENSIONS if _squash(d).replace("-", " ")
                         == _squash(mark.group(1)).replace("-", " "))
        name = f"{dimension}: {text[mark.end():end].strip()}"
        canonical = _ABILITY_KEYS.get(_squash(name))
        if canonical is None:
            hint = did_you_mean_ability(name)
            problems.append(f"{name!r} is not a ToMBench ability{hint}; the abilities of "
                            f"{dimension}: {', '.join(DIMENSIONS[dimension])}")
        elif canonical not in found:
            found.append(canonical)
    return found, problems


def did_you_mean_ability(name: str) -> str:
    close = difflib.get_close_matches(_squash(name), list(_ABILITY_KEYS), n=1, cutoff=0.6)
    return f" (did you mean {_ABILITY_KEYS[close[0]]!r}?)" if close else ""


# the ABILITY strings of the release as written (the authors' script keys its per-ability
# table by these), each with the name of its `ability_as_released.<name>` metric
RELEASED_ABILITY_FIELDS: tuple[str, ...] = (
    "Emotion: Typical emotional reactions",
    "Emotion: Atypical emotional reactions",
    "Emotion: Discrepant emotions",
    "Emotion: Mixed emotions",
    "Emotion: Hidden emotions",
    "Emotion: Moral emotions",
    "Emotion: Emotion regulation",
    "Desire: Discrepant desires",
    "Desire: Multiple desires",
    "Desire: Desires influence on actions",
    "Desire: Desires influence on emotions (beliefs)",
    "Desire: Desire-action contradiction",
    "Intention: Completion of failed actions",
    "Intention: Discrepant intentions",
    "Intention: Prediction of actions",
    "Intention: Intentions explanations",
    "Knowledge: Knowledge-pretend play links",
    "Knowledge: Percepts-knowledge links",
    "Knowledge: Information-knowledge links",
    "Knowledge: Information-knowledge links ",
    "Knowledge: Knowledge-attention links",
    "Belief: Content false beliefs",
    "Belief: Content false beliefs Belief: Second-order beliefs",
    "Belief: Location false beliefs",
    "Belief: Location false beliefs Belief: Second-order beliefs",
    "Belief: Identity false beliefs",
    "Belief: Beliefs based action/emotions",
    "Belief: Sequence false beliefs",
    "Non-Literal Communication: Irony/Sarcasm",
    "Non-literal communication: Egocentric lies",
    "Non-literal communication: White lies",
    "Non-Literal Communication: Involuntary lies",
    "Non-literal communication: Humor",
    "Non-Literal Communication: Faux pas",
)


def released_name(field: str) -> str:
    """The metric name part of an ABILITY string as written: its abilities' slugs joined by
    `+`, and `_trailing_space` when the string ends in whitespace (the release has one such
    string beside the same ability without it; the authors' table keeps them apart)."""
    abilities, _ = parse_ability_field(field)
    name = "+".join(ability_slug(a) for a in abilities) or slug(field)
    return name + ("_trailing_space" if field != field.rstrip() else "")
