"""Python-backend answerers and independent calculations for the MMToM-QA tests.

The answerers do not trust the family: on a converted suite they read the right letter and
the options from the authors' questions.json (the line named by the question's
`upstream_line`), on a hand-written suite from the suite YAML. The expected figures are
computed here from those raw rows."""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
from pathlib import Path
from typing import Any

import yaml

JSON_ENV = "MMTOMQA_TEST_JSON"
YAML_ENV = "MMTOMQA_TEST_YAML"
BELIEF = ("1.1", "1.2", "1.3")
GOAL = ("2.1", "2.2", "2.3", "2.4")
NAMES = {"1.1": "true_belief", "1.2": "false_belief", "1.3": "belief_tracking",
         "2.1": "goal_true_belief", "2.2": "goal_false_belief", "2.3": "goal_updated_belief",
         "2.4": "goal_future_actions"}


@functools.cache
def questions() -> dict[str, dict[str, Any]]:
    """key -> {type, answer, options}: the release's lines, or a suite's questions."""
    out = {}
    if os.environ.get(JSON_ENV):
        lines = Path(os.environ[JSON_ENV]).read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines, start=1):
            if line.strip():
                row = json.loads(line)
                a, b = re.search(r"\(a\) (.*) \(b\) (.*) Please respond", row["question"]).groups()
                out[str(n)] = {"type": str(row["question_type"]), "answer": row["answer"],
                               "options": [a, b]}
        return out
    doc = yaml.safe_load(Path(os.environ[YAML_ENV]).read_text(encoding="utf-8"))
    for q in doc["scenarios"]:
        out[q["id"]] = {"type": str(q["type"]), "answer": q["answer"], "options": q["options"]}
    return out


def key_of(item: Any) -> str:
    return str(item.source["upstream_line"]) if os.environ.get(JSON_ENV) else item.scenario


def _h(key: str, salt: str = "") -> int:
    return int(hashlib.sha256(f"{salt}{key}".encode()).hexdigest(), 16) % 100


def reply(q: dict[str, Any], letter: str, key: str) -> str:
    text = q["options"]["ab".index(letter)]
    forms = [letter, f"({letter})", f"{letter}) {text}", f"Answer: {letter}", text,
             f"({letter}) {text} The other option is less likely.", letter.upper()]
    return forms[_h(key, "form") % len(forms)]


def gold(req: Any) -> str:
    key = key_of(req.item)
    q = questions()[key]
    return reply(q, q["answer"], key)


def behaviour(key: str) -> str:
    """right (60%), wrong (25%), unparseable (8%), both options (7%)."""
    h = _h(key)
    return "right" if h < 60 else "wrong" if h < 85 else "unparseable" if h < 93 else "both"


def mixed(req: Any) -> str:
    key = key_of(req.item)
    q = questions()[key]
    other = "b" if q["answer"] == "a" else "a"
    what = behaviour(key)
    if what == "right":
        return reply(q, q["answer"], key)
    if what == "wrong":
        return reply(q, other, key)
    if what == "unparseable":
        return "I cannot tell."
    return "(a) or (b), both could be."


def bare(req: Any) -> str:
    """The right letter after a parenthesis on even keys (the authors' reading sees '('),
    bare on odd ones."""
    key = key_of(req.item)
    q = questions()[key]
    return f"({q['answer']})" if _h(key, "bare") % 2 == 0 else f"{q['answer']}."


def expected(right: dict[str, bool]) -> dict[str, tuple[int, int]]:
    qs = questions()
    out: dict[str, tuple[int, int]] = {}

    def share(name: str, types: tuple[str, ...]) -> None:
        keys = [k for k, q in qs.items() if q["type"] in types]
        out[name] = (sum(right[k] for k in keys), len(keys))

    for code, name in NAMES.items():
        share(name, (code,))
    share("belief_inference", BELIEF)
    share("goal_inference", GOAL)
    share("all", BELIEF + GOAL)
    return {k: v for k, v in out.items() if v[1]}


def wilson(ok: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The 95% Wilson interval, written out again."""
    p = ok / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


# -- stand-in models for the bundled suites (tests/demo_answerers.py) ---------------------
def demo_right(item: Any) -> str:
    return f"({item.meta['gold_letter']}) {item.gold}"


def demo_wrong(item: Any) -> str:
    letter = "b" if item.meta["gold_letter"] == "a" else "a"
    return f"({letter}) {item.choices['ab'.index(letter)].split(') ', 1)[1]}"
