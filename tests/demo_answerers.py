"""Two stand-in "models" for every bundled family, for the compare and HTML tests and the
docs' screenshots: `python:tests/demo_answerers.py:strong` and `...:weak`.

Each answers right, or wrong in the family's own way, on a deterministic subset chosen
by a hash of the item id: `strong` is wrong on about 10% of the items, `weak` on about
35%, and the two subsets overlap (an item `strong` gets wrong, `weak` gets wrong too,
mostly), so a comparison has shared errors, flips both ways and a clear winner.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import answerers  # noqa: E402
import bigtom_support  # noqa: E402
import fantom_support  # noqa: E402
import hitom_support  # noqa: E402
import mmtomqa_support  # noqa: E402
import opentom_support  # noqa: E402
import robustness_support  # noqa: E402


def share(item_id: str) -> float:
    """A number in [0, 1) fixed by the item id."""
    digest = hashlib.sha256(item_id.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64


def right(req: Any) -> str:
    family = req.item.family
    if family == "bigtom":
        return bigtom_support.gold(req)
    if family == "fantom":
        return fantom_support.personx(req)
    if family == "opentom":
        return opentom_support.right(req)
    if family == "robustness":
        return robustness_support.right(req)
    if family == "hitom":
        return hitom_support.demo_right(req.item)
    if family == "mmtomqa":
        return mmtomqa_support.demo_right(req.item)
    if family == "tombench":
        return f"[[{req.item.gold}]]"
    if family == "tomato":
        return f"[{req.item.gold}]"
    if family == "simpletom":
        return f"({req.item.gold})"
    return answerers.right(req)


def wrong(req: Any) -> str:
    item = req.item
    if item.family == "bigtom":
        letter = item.meta["gold_letter"]
        return bigtom_support.reply("b" if letter == "a" else "a", item)
    if item.family == "fantom":
        return fantom_support.omniscient(req)
    if item.family == "opentom":
        return opentom_support.contradict(req)
    if item.family == "robustness":
        return robustness_support.marked(robustness_support.wrong_answer(item))
    if item.family == "hitom":
        return hitom_support.demo_wrong(item)
    if item.family == "mmtomqa":
        return mmtomqa_support.demo_wrong(item)
    if item.family == "tombench":
        return "[[" + next(x for x in "ABCD"[:len(item.choices)] if x != item.gold) + "]]"
    if item.family in ("tomato", "simpletom"):
        other = next(x for x in "ABCD"[:len(item.choices)] if x != item.gold)
        return f"[{other}]" if item.family == "tomato" else f"({other})"
    return answerers.wrong_text(item)


def answer_with_error_rate(req: Any, rate: float) -> str:
    return wrong(req) if share(f"{req.item.suite}::{req.item.id}") < rate else right(req)


def strong(req: Any) -> str:
    return answer_with_error_rate(req, 0.10)


def weak(req: Any) -> str:
    return answer_with_error_rate(req, 0.35)
