"""ToMATO items: one per question (item id = the question's id), options in file order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Suite
from pytest_tom.families.kit import tags_of

from .schema import LETTERS
from .schema import ToMATOSuite


def expand(suite: Suite, data: ToMATOSuite, settings: Settings,
           line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
    """The items of a ToMATO suite, in file order."""
    defaults = data.get("defaults") or {}
    items = []
    for si, sc in enumerate(data["scenarios"]):
        line = line_of(("scenarios", si))
        qid = str(sc["id"])
        state, order = str(sc["mental_state"]), int(sc["order"])
        false_belief = bool(sc.get("false_belief", False))
        tags = tags_of(defaults, sc)
        markers = [state, f"order{order}", *(["false_belief"] if false_belief else [])]
        items.append(ItemSpec(
            id=qid, suite=suite.name, family=suite.family, scenario=qid, kind=state,
            question=str(sc["question"]), gold=str(sc["answer"]),
            choices=[str(o).strip() for o in sc["options"]], tags=tags, markers=markers,
            source={"file": suite.path, "line": line, **(sc.get("source") or {})},
            meta={"mental_state": state, "order": order, "false_belief": false_belief,
                  "answer": str(sc["answer"]), "answer_index": LETTERS.index(str(sc["answer"]))},
            line=line,
            data={"conversation": str(sc["conversation"]).strip(),
                  "big_five": str(sc.get("big_five", ""))},
        ))
    return items
