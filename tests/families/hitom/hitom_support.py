"""Python-backend answerers and independent calculations for the Hi-ToM tests.

The answerers are loaded by the plugin as `python:<this file>:<name>`. They do not trust the
family: on a converted suite they read the answer and the options from the authors' JSON
(the row named by the question's `sample_id`), on a hand-written suite from the suite
YAML. The expected figures are computed here from those raw rows, with the paper's
definitions written out again (accuracy per cell; joint accuracy: a story counts at order
k when its questions of orders 0 to k are all right).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

JSON_ENV = "HITOM_TEST_JSON"  # the authors' Hi-ToM_data.json, for converted suites
YAML_ENV = "HITOM_TEST_YAML"  # a suite file, for hand-written suites
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


# -- the raw rows -----------------------------------------------------------------------
@functools.cache
def release_rows(path: str) -> list[dict[str, Any]]:
    return json.loads(Path(path).read_text(encoding="utf-8"))["data"]


@functools.cache
def suite_stories(path: str) -> dict[str, Any]:
    doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    return {s["id"]: s for s in doc["scenarios"]}


def options_of(choices: str) -> list[str]:
    """`"A. x, B. y"` -> `["x", "y"]`, written without the family's parser."""
    return [part.split(". ", 1)[1].strip() for part in choices.split(", ")]


def split_story(text: str) -> tuple[str, str]:
    """(the lines before the first numbered one: the VP rows' instruction line, the
    numbered lines without the `***` the release adds to some)."""
    lines = text.strip().split("\n")
    first = next(i for i, line in enumerate(lines) if re.match(r"\d+ ", line))
    story = "\n".join(lines[first:]).strip().removesuffix("***").strip()
    return "\n".join(lines[:first]).strip(), story


def story_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """The story a release row belongs to: its setting and its numbered lines."""
    return row["prompting_type"], row["deception"], row["story_length"], split_story(row["story"])[1]


def vp_line(rows: list[dict[str, Any]]) -> str:
    """The authors' VP instruction line, as the release's VP rows carry it (so no test
    writes it down)."""
    lines = {split_story(r["story"])[0] for r in rows if r["prompting_type"] == "VP"}
    assert len(lines) == 1 and "" not in lines, lines
    return lines.pop()


@functools.cache
def questions() -> list[dict[str, Any]]:
    """Every question of the source the answerers read: its key (what the answerers decide
    by), setting, order, story, answer and options."""
    out = []
    if os.environ.get(JSON_ENV):
        for row in release_rows(os.environ[JSON_ENV]):
            out.append({"key": str(row["sample_id"]), "story": story_key(row),
                        "deception": "tell" if row["deception"] else "no_tell",
                        "style": row["prompting_type"].lower(), "length": row["story_length"],
                        "order": row["question_order"], "answer": row["answer"].strip(),
                        "options": options_of(row["choices"])})
        return out
    for sid, s in suite_stories(os.environ[YAML_ENV]).items():
        for q in s["questions"]:
            out.append({"key": f"{sid}/{q['order']}", "story": sid,
                        "deception": "tell" if s["deception"] else "no_tell",
                        "style": s["prompting"].lower(), "length": s["story_length"],
                        "order": q["order"], "answer": str(q["answer"]).strip(),
                        "options": [str(c).strip() for c in s["choices"]]})
    return out


def key_of(item: Any) -> str:
    """The answerers' key of an item: its release row, or its story and order."""
    if os.environ.get(JSON_ENV):
        return str(item.source["sample_id"])
    return f"{item.scenario}/{int(item.id.rsplit('order', 1)[1])}"


@functools.cache
def by_key() -> dict[str, dict[str, Any]]:
    return {q["key"]: q for q in questions()}


# -- answerers --------------------------------------------------------------------------
def _h(key: str, salt: str = "") -> int:
    return int(hashlib.sha256(f"{salt}{key}".encode()).hexdigest(), 16) % 100


def reply(q: dict[str, Any], index: int, key: str) -> str:
    """A reply naming option `index`, in one of the forms a model writes."""
    letter, text = LETTERS[index], q["options"][index]
    other = q["options"][(index + 3) % len(q["options"])]
    forms = [letter, f"{letter}. {text}", f"Answer: {letter}", text.replace("_", " "),
             f"{letter}. {text}\nExplanation: it was moved from the {other} earlier.",
             f"It is in the {text}."]
    return forms[_h(key, "form") % len(forms)]


def gold(req: Any) -> str:
    key = key_of(req.item)
    q = by_key()[key]
    return reply(q, q["options"].index(q["answer"]), key)


def behaviour(key: str) -> str:
    """right (55%), wrong (25%), unparseable (8%), two options (6%), request failure (6%)."""
    h = _h(key)
    if h < 55:
        return "right"
    if h < 80:
        return "wrong"
    if h < 88:
        return "unparseable"
    if h < 94:
        return "several"
    return "fail"


def mixed(req: Any) -> str:
    key = key_of(req.item)
    q = by_key()[key]
    right = q["options"].index(q["answer"])
    what = behaviour(key)
    if what == "right":
        return reply(q, right, key)
    if what == "wrong":
        return reply(q, (right + 1) % len(q["options"]), key)
    if what == "unparseable":
        return "I cannot tell from the story."
    if what == "several":
        return f"{LETTERS[right]} or {LETTERS[(right + 2) % len(q['options'])]}"
    raise RuntimeError("the answerer broke")


# -- the expected figures ---------------------------------------------------------------
def cells() -> list[tuple[str, dict[str, Any]]]:
    """(metric prefix, the fields it fixes) of every cell the paper reports."""
    out: list[tuple[str, dict[str, Any]]] = [("", {})]
    settings = [(d, s) for d in ("no_tell", "tell") for s in ("vp", "cotp")]
    out += [(f"{d}.{s}.", {"deception": d, "style": s}) for d, s in settings]
    out += [(f"length{n}.", {"length": n}) for n in (1, 2, 3)]
    out += [(f"{d}.{s}.length{n}.", {"deception": d, "style": s, "length": n})
            for d, s in settings for n in (1, 2, 3)]
    return out


def expected(right: dict[str, bool]) -> dict[str, tuple[int, int]]:
    """metric -> (numerator, denominator), for answers right where `right[key]` is."""
    qs = questions()
    out: dict[str, tuple[int, int]] = {}

    def share(name: str, chosen: list[dict[str, Any]]) -> None:
        out[name] = (sum(right[q["key"]] for q in chosen), len(chosen))

    for prefix, fixed in cells():
        mine = [q for q in qs if all(q[k] == v for k, v in fixed.items())]
        if len(fixed) < 3:
            for k in range(5):
                share(f"{prefix}order{k}", [q for q in mine if q["order"] == k])
        stories: dict[Any, dict[int, bool]] = defaultdict(dict)
        for q in mine:
            stories[q["story"]][q["order"]] = right[q["key"]]
        for k in range(5):
            counted = [s for s in stories.values() if any(o <= k for o in s)]
            ok = [s for s in counted if all(v for o, v in s.items() if o <= k)]
            out[f"{prefix}joint.order{k}"] = (len(ok), len(counted))
    share("all", qs)
    for d in ("no_tell", "tell"):
        share(d, [q for q in qs if q["deception"] == d])
    for s in ("vp", "cotp"):
        share(s, [q for q in qs if q["style"] == s])
        for d in ("no_tell", "tell"):
            share(f"{d}.{s}", [q for q in qs if q["style"] == s and q["deception"] == d])
    for n in (1, 2, 3):
        share(f"length{n}", [q for q in qs if q["length"] == n])
    return {k: v for k, v in out.items() if v[1]}


def wilson(ok: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = ok / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def item_lines(text: str) -> list[str]:
    """The numbered lines of a story (for the bundled suite's own checks)."""
    return [re.sub(r"^\d+ ", "", line) for line in text.strip().splitlines()]


# -- stand-in models for the bundled suites (tests/demo_answerers.py) ---------------------
def demo_right(item: Any) -> str:
    """The right option as `K. green_drawer`, from the item alone."""
    return f"{item.meta['gold_letter']}. {item.gold}"


def demo_wrong(item: Any) -> str:
    """The option after the right one, as `L. blue_pantry`."""
    i = (LETTERS.index(item.meta["gold_letter"]) + 1) % len(item.choices)
    return f"{LETTERS[i]}. {item.choices[i].split(') ', 1)[1]}"
