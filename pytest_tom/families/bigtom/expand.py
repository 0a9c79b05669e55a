"""BigToM items: each causal template expanded into its 25 conditions, two options per
item shuffled with the seed."""

from __future__ import annotations

from pytest_tom.families.bigtom import prompts
from pytest_tom.families.bigtom.conditions import CONDITIONS
from pytest_tom.families.bigtom.conditions import Condition
from pytest_tom.families.bigtom.conditions import compose
from pytest_tom.families.bigtom.schema import AWARE
from pytest_tom.families.bigtom.schema import NOT_AWARE
from pytest_tom.families.bigtom.schema import BigtomDocument
from pytest_tom.families.bigtom.schema import Template
from pytest_tom.families.kit import LETTERS
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import LineOf
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Suite
from pytest_tom.families.kit import tags_of


def expand(suite: Suite, data: BigtomDocument, settings: Settings,
           line_of: LineOf) -> list[ItemSpec]:
    """The items of a BigToM suite, template by template."""
    family, defaults = suite.family, data.get("defaults") or {}
    items: list[ItemSpec] = []
    for ti, t in enumerate(data["scenarios"]):
        line = line_of(("scenarios", ti))
        tags = tags_of(defaults, t)
        for cond in CONDITIONS:
            items.append(item_of(family, suite, t, cond, tags, settings, line))
    return items


def item_of(family: str, suite: Suite, t: Template, cond: Condition, tags: list[str],
            settings: Settings, line: int) -> ItemSpec:
    """The item of template `t` under condition `cond`."""
    tid = str(t["id"])
    item_id = f"{tid}::{cond.id}"
    parts = compose(t, cond)
    block = t[cond.question_block]
    options = [str(block[AWARE]), str(block[NOT_AWARE])]
    settings.rng(suite.name, item_id).shuffle(options)
    meta = {
        "condition": cond.id,
        "inference": cond.inference,
        "belief_condition": cond.belief,
        "initial_belief": cond.initial_belief,
        "gold_letter": LETTERS[options.index(parts.right)],
        "initial_state_letter": LETTERS[options.index(parts.initial_state_answer)],
    }
    return ItemSpec(
        id=item_id, suite=suite.name, family=family, scenario=tid, kind=cond.inference,
        question=parts.question, gold=parts.right, group=tid, choices=options, tags=tags,
        markers=cond.markers, source={"file": suite.path, "line": line, **(t.get("source") or {})},
        meta=meta, data={"story": parts.story,
                         "text": prompts.item_text(parts.story, parts.question, options)},
        line=line,
    )
