"""Python-backend answerers used by the tests (imported by the plugin as `answerers:<fn>`).

They read the gold from the request's item, so they stand for a model that is
always right, or wrong on a known, deterministic subset.
"""

from __future__ import annotations

import json
from typing import Any

WRONG_SCENARIO_MARK = "WRONG"


def gold_text(item: Any) -> str:
    """A correct answer in the words a model would use."""
    if item.kind == "choice":
        letter = item.meta["gold_letter"]
        return f"{letter}) {item.gold}"
    if item.kind == "yes_no":
        return "Yes." if item.gold == "yes" else "No."
    if item.kind == "names":
        return ", ".join(item.gold) if item.gold else "Nobody."
    if item.kind == "contains":
        return " ".join(w if isinstance(w, str) else w[0] for w in item.gold["contains"])
    if item.kind == "json_final":
        final = {obj: answers[0] for obj, answers in item.gold.items()}
        return "===BEGIN JSON===\n" + json.dumps({"final": final}) + "\n===END JSON==="
    raise ValueError(f"no gold text for kind {item.kind}")


def wrong_text(item: Any) -> str:
    if item.kind == "choice":
        letter = next(c[0] for c in item.choices if c[0] != item.meta["gold_letter"])
        return f"{letter})"
    if item.kind == "yes_no":
        return "No." if item.gold == "yes" else "Yes."
    if item.kind == "names":
        return "Nobody knows." if item.gold else "Everyone."
    return "I do not know."


def right(req: Any) -> str:
    return gold_text(req.item)


def is_in_wrong_subset(item_id: str) -> bool:
    """Deterministic subset: every memory question, plus the belief questions of scenarios
    whose id sorts in the first quarter alphabetically is too clever; keep it simple:
    memory questions and questions of scenarios whose id starts with a-f."""
    scenario, _, question = item_id.partition("::")
    return question == "memory" or scenario[:1] in "abcdef"


def mixed(req: Any) -> str:
    return wrong_text(req.item) if is_in_wrong_subset(req.item.id) else gold_text(req.item)


def unparseable(req: Any) -> str:
    return "Hmm, hard to say."


def boom(req: Any) -> str:
    raise RuntimeError("the answerer broke")
