"""SimpleToM items: three per story (`<story>::aware`, `::action`, `::judge`), the story
their scenario, so the three answers of one story are one unit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Suite
from pytest_tom.families.kit import tags_of

from .schema import KINDS
from .schema import SimpleTomSuite


def expand(suite: Suite, data: SimpleTomSuite, settings: Settings,
           line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
    defaults = data.get("defaults") or {}
    items = []
    for si, sc in enumerate(data["scenarios"]):
        sid = str(sc["id"])
        tags = tags_of(defaults, sc)
        category = str(sc.get("scenario_name", ""))
        for kind in KINDS:
            q = sc[kind]
            line = line_of(("scenarios", si, kind))
            items.append(ItemSpec(
                id=f"{sid}::{kind}", suite=suite.name, family=suite.family, scenario=sid,
                kind=kind, question=str(q["question"]).strip(), gold=str(q["answer"]),
                choices=[str(o).strip() for o in q["options"]], tags=tags, markers=[kind],
                source={"file": suite.path, "line": line, **(sc.get("source") or {})},
                meta={"kind": kind, "scenario_name": category,
                      "severity": sc.get("severity"), "answer": str(q["answer"])},
                line=line, data={"story": str(sc["story"]).strip()},
            ))
    return items
