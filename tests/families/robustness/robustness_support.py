"""Answerers for the robustness and ToMi tests (python backend: `python:<this file>:<fn>`).

They read the gold from the request's item: a model that is always right, or
wrong on a known, deterministic subset, or right but written in a given style.
"""

from __future__ import annotations

import json
from typing import Any

WRONG_CLASS = "automatic_change_knowledge"
VARIANTS = ("story", "true_belief", "informed", "visible")


def final_json(answer: dict[str, Any]) -> str:
    return json.dumps({"final": answer})


def marked(answer: dict[str, Any]) -> str:
    return f"===BEGIN JSON===\n{final_json(answer)}\n===END JSON==="


def first(value: Any) -> str:
    return value[0] if isinstance(value, list) else str(value)


def wrong_answer(item: Any) -> dict[str, str]:
    """An answer naming a wrong value for each asked object ("nothing" when none is listed)."""
    wrong = item.meta.get("wrong") or {}
    return {k: (first(wrong[k]) if wrong.get(k) else "nothing") for k in item.gold}


def right(req: Any) -> str:
    """Always right, in the requested format."""
    return "Here is my answer.\n" + marked({k: first(v) for k, v in req.item.gold.items()})


def wrong_scene_of(stage: str) -> str:
    """The one scene that `one_wrong_in_class` gets wrong in each scenery of a stage."""
    i = sum(map(ord, stage)) % 16
    return f"{VARIANTS[i % 4]}.{('orig', 'swap')[i // 4 % 2]}.{('belief', 'world')[i // 8]}"


def one_wrong_in_class(req: Any) -> str:
    """Right everywhere except one scene of every scenery of WRONG_CLASS."""
    item = req.item
    stage, _scenery, scene = item.id.split("::")
    if item.meta["class"] == WRONG_CLASS and scene == wrong_scene_of(stage):
        return marked(wrong_answer(item))
    return right(req)


# -- answer styles for the extraction tests (the bundled no_complication scenery) --------
def _styled(item: Any, scene: str) -> str:
    gold = {k: first(v) for k, v in item.gold.items()}
    key = next(iter(gold))
    styles = {
        # extracted and right
        "story.orig.belief": f"Let me think. The label misleads her.\n===BEGIN JSON===\n"
                             f"{final_json(gold)}\n===END JSON===\nThat is all.",
        "story.orig.world": f"```json\n{json.dumps({'final': gold}, indent=2)}\n```",
        "story.swap.belief": f"My answer is {final_json(gold)} as requested.",
        "story.swap.world": f"===BEGIN JSON===\n```json\n{final_json(gold)}\n```\n===END JSON===",
        "true_belief.orig.belief": f"===BEGIN JSON===\n{final_json(gold)}",  # END missing
        "true_belief.orig.world": f'===BEGIN JSON===\n{{"FINAL": {{"The {key.title()}": '
                                  f'"The {gold[key].upper()}."}}}}\n===END JSON===',
        # unparseable
        "true_belief.swap.belief": f'===BEGIN JSON===\n{{"final": {{"{key}": "{gold[key]}",}}}}\n'
                                   f"===END JSON===",  # trailing comma
        "true_belief.swap.world": f"I think it is {gold[key]}.",  # no JSON at all
        "informed.orig.belief": f'===BEGIN JSON===\n{{"answer": "{gold[key]}"}}\n===END JSON===',
        "informed.orig.world": f'```json\n{{"final": {{"{key}": "{gold[key]}"\n```',  # broken
        # parsed but wrong: the right and the wrong answer both named
        "informed.swap.belief": marked({key: f"{gold[key]} or {first(wrong_answer(item)[key])}"}),
    }
    return styles.get(scene, marked(gold))


STYLE_UNPARSEABLE = {"true_belief.swap.belief", "true_belief.swap.world",
                     "informed.orig.belief", "informed.orig.world"}
STYLE_WRONG = {"informed.swap.belief"}


def styled(req: Any) -> str:
    return _styled(req.item, req.item.id.split("::")[-1])


# -- generic json_final and ToMi ---------------------------------------------------------
def generic_right(req: Any) -> str:
    item = req.item
    if item.kind == "json_final":
        return right(req)
    if item.kind == "contains":
        return " ".join(w if isinstance(w, str) else w[0] for w in item.gold["contains"])
    raise ValueError(item.kind)


def generic_wrong(req: Any) -> str:
    """json_final questions: the wrong answer, or only the first asked object."""
    item = req.item
    if item.kind != "json_final":
        return generic_right(req)
    if item.meta.get("wrong"):
        return marked(wrong_answer(item))
    key, value = next(iter(item.gold.items()))
    return marked({key: first(value)})


def reality_tracker(req: Any) -> str:
    """Answers every ToMi question with the object's true location: right on reality and
    on questions that need no theory of mind, wrong on memory and on `_tom` questions."""
    item = req.item
    qtype = item.meta["tomi"]["question_type"]
    if qtype == "memory" or (qtype.endswith("_tom") and not qtype.endswith("no_tom")):
        return item.gold["excludes"][0]
    return item.gold["contains"][0]
