"""MMToM-QA items: one per question; the questions of one episode form a group."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Suite
from pytest_tom.families.kit import tags_of

from . import prompts
from .question_types import BY_CODE
from .question_types import code_of
from .schema import MMToMQASuite


def expand(suite: Suite, data: MMToMQASuite, settings: Settings,
           line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
    """The items of an MMToM-QA suite, one per question."""
    family, defaults = suite.family, data.get("defaults") or {}
    items: list[ItemSpec] = []
    for qi, q in enumerate(data["scenarios"]):
        qtype = BY_CODE[code_of(q["type"])]
        sid = str(q["id"])
        line = line_of(("scenarios", qi))
        options = [str(o).strip() for o in q["options"]]
        letter = str(q["answer"])
        episode = q.get("episode")
        items.append(ItemSpec(
            id=f"{sid}::{qtype.name}", suite=suite.name, family=family, scenario=sid,
            kind=qtype.inference, question=str(q["question"]).strip(),
            gold=options[prompts.LETTERS.index(letter)],
            group=f"episode{episode}" if episode is not None else sid,
            choices=options, tags=tags_of(defaults, q),
            markers=[qtype.inference, qtype.name],
            source={"file": suite.path, "line": line, **(q.get("source") or {})},
            meta={"type": qtype.code, "inference": qtype.inference, "gold_letter": letter},
            data={"text": prompts.question_text(q), "scenario": dict(q)},  # probes re-render
            line=line,
        ))
    return items
