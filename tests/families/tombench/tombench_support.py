"""Answerers for the ToMBench tests (the plugin imports them as `python:<this file>:<fn>`)
and an independent calculation of the figures they must produce.

The answerers read the right option from the request's item (its shown gold letter, or
the file's letter and the order the options were shown in), so they stand for a model
that is always right, or right on a fixed subset of the questions. The expected figures
are computed here from the suite files themselves (read with PyYAML, the ABILITY field
split by hand), not with the family's code.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

LETTERS = "ABCD"
UNREADABLE = "I would rather not say."
PAPER_TASKS = ("Unexpected Outcome Test", "Scalar Implicature Test", "Persuasion Story Task",
               "False Belief Task", "Ambiguous Story Task", "Hinting Task Test",
               "Strange Story Task", "Faux-pas Recognition Test")
DIMENSION_WORDS = ("Emotion", "Desire", "Intention", "Knowledge", "Belief",
                   "Non-Literal Communication")


def share(text: str) -> float:
    """A number in [0, 1) fixed by the text."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") / 2 ** 64


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


# -- answerers ----------------------------------------------------------------------------

def gold(req: Any) -> str:
    """Always the right option, in the requested format."""
    return f"[[{req.item.gold}]]"


def bare_gold(req: Any) -> str:
    """The right letter alone, in lower case (what the wheel test's answerer does)."""
    return req.item.gold.lower()


def kind_of(question: str) -> str:
    """right (60%), wrong (30%) or unreadable (10%): fixed by the question's id."""
    x = share(question)
    return "right" if x < 0.6 else "wrong" if x < 0.9 else "unreadable"


def wrong_letter(meta: dict[str, Any], options: int) -> str:
    """The file's letter of the first wrong option."""
    return next(x for x in LETTERS[:options] if x != meta["answer"])


def shown(meta: dict[str, Any], original: str) -> str:
    """Where the file's option `original` is shown to this item."""
    return LETTERS[meta["order"].index(original)]


def subset(req: Any) -> str:
    """Right, wrong or unreadable by the question (the same on every try)."""
    item = req.item
    kind = kind_of(item.scenario)
    if kind == "unreadable":
        return UNREADABLE
    original = item.meta["answer"] if kind == "right" else wrong_letter(item.meta, len(item.choices))
    return f"[[{shown(item.meta, original)}]]"


def try_vote(question: str, attempt: int, options: int, answer: str) -> str | None:
    """The file's letter try `attempt` of a question votes for under `voter` (None: an
    unreadable reply): the pattern of each question is fixed by its id, and mixes clear
    majorities, 2-2-1 ties and unreadable tries."""
    pattern = int(share(question) * 6)
    wrong = [x for x in LETTERS[:options] if x != answer]
    plans = {
        0: [answer] * 5,                                         # right every time
        1: [answer, answer, answer, wrong[0], wrong[-1]],        # right by majority
        2: [answer, answer, wrong[0], wrong[0], None],           # a tie: not right (correct)
        3: [wrong[0], wrong[0], answer, answer, wrong[-1]],      # a tie, the wrong vote first
        4: [answer, answer, None, None, None],                   # most tries unreadable
        5: [wrong[0]] * 3 + [answer] * 2,                        # wrong by majority
    }
    return plans[pattern][(attempt - 1) % 5]


def voter(req: Any) -> str:
    """The official protocol's tries, voting as `try_vote` says."""
    item = req.item
    vote = try_vote(item.scenario, item.meta["try"], len(item.choices), item.meta["answer"])
    return UNREADABLE if vote is None else f"[[{shown(item.meta, vote)}]]"


# -- the expected figures, from the suite files --------------------------------------------

def questions(folder: Path) -> list[dict[str, Any]]:
    """Every question of the suite files in `folder`: id, task, abilities, dimensions,
    answer, options."""
    out = []
    for path in sorted(folder.glob("*.tom.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        defaults = doc.get("defaults") or {}
        for sc in doc["scenarios"]:
            parts = re.split(r"\s(?=(?:" + "|".join(DIMENSION_WORDS) + r"):)", sc["ability"])
            abilities = [p.strip() for p in parts]
            out.append({"id": sc["id"], "task": sc.get("task", defaults.get("task")),
                        "abilities": abilities,
                        "dimensions": sorted({a.split(":")[0] for a in abilities}),
                        "answer": sc["answer"], "options": len(sc["options"])})
    return out


def expected_figures(rows: list[dict[str, Any]], right: dict[str, bool]) -> dict[str, float]:
    """Accuracy per task, ability and dimension, and the two averages, of questions whose
    rightness is `right[id]`."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        ok = right[row["id"]]
        groups[f"task.{slug(row['task'])}"].append(ok)
        for ability in row["abilities"]:
            groups[f"ability.{slug(ability.split(':', 1)[1])}"].append(ok)
        for dimension in row["dimensions"]:
            groups[f"dimension.{slug(dimension)}"].append(ok)
    out = {name: sum(oks) / len(oks) for name, oks in groups.items()}
    tasks = [out[f"task.{slug(t)}"] for t in PAPER_TASKS if f"task.{slug(t)}" in out]
    out["task_average"] = sum(tasks) / len(tasks)
    abilities = [v for k, v in out.items() if k.startswith("ability.")]
    out["ability_average"] = sum(abilities) / len(abilities)
    return out


def subset_right(rows: list[dict[str, Any]]) -> dict[str, bool]:
    return {row["id"]: kind_of(row["id"]) == "right" for row in rows}


def voter_right(rows: list[dict[str, Any]], tries: int = 5) -> dict[str, bool]:
    """Right by the correct reading's vote: the right letter has more votes than any other
    letter and than the unreadable tries."""
    out = {}
    for row in rows:
        votes = Counter(try_vote(row["id"], k, row["options"], row["answer"])
                        for k in range(1, tries + 1))
        top = votes[row["answer"]]
        out[row["id"]] = all(top > n for v, n in votes.items() if v != row["answer"])
    return out


def counts(rows: list[dict[str, Any]], right: dict[str, bool]) -> dict[str, tuple[int, int]]:
    """(right, asked) per task, for the table cells."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        out[row["task"]][0] += right[row["id"]]
        out[row["task"]][1] += 1
    return {k: (a, b) for k, (a, b) in out.items()}
