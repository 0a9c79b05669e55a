"""Hi-ToM items: one per question of a story, the story's questions grouped (the group is
the story: its joint accuracy and `--tom-shard` keep it whole)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Suite
from pytest_tom.families.kit import tags_of

from . import prompts
from .schema import HiToMScenario
from .schema import HiToMSuite

DECEPTION = {True: "tell", False: "no_tell"}  # the release's folders: Tell / No_Tell


def style_of(story: HiToMScenario, settings: Settings) -> str:
    """The prompting style an item of `story` runs with: `--tom-hitom-prompting`, else the
    story's own."""
    chosen = str(settings.options.get("hitom_prompting") or "release")
    return chosen if chosen in prompts.STYLES else str(story["prompting"]).lower()


def expand(suite: Suite, data: HiToMSuite, settings: Settings,
           line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
    """The items of a Hi-ToM suite, story by story."""
    family, defaults = suite.family, data.get("defaults") or {}
    words = prompts.wording(data)  # the suite's `defaults.prompt`, else pytest-tom's own
    items: list[ItemSpec] = []
    for si, s in enumerate(data["scenarios"]):
        tags = tags_of(defaults, s)
        choices = [str(c).strip() for c in s["choices"]]
        style = style_of(s, settings)
        deception = DECEPTION[bool(s["deception"])]
        length = int(s["story_length"])
        for qi, q in enumerate(s["questions"]):
            order = int(q["order"])
            answer = str(q["answer"]).strip()
            line = line_of(("scenarios", si, "questions", qi))
            sid = str(s["id"])
            items.append(ItemSpec(
                id=f"{sid}::order{order}", suite=suite.name, family=family, scenario=sid,
                kind=f"order{order}", question=str(q["ask"]).strip(), gold=answer, group=sid,
                choices=choices, tags=tags,
                markers=[f"order{order}", deception, style, f"length{length}"],
                source={"file": suite.path, "line": line, **(s.get("source") or {}),
                        **(q.get("source") or {})},
                meta={"order": order, "deception": deception, "style": style, "length": length,
                      "gold_letter": prompts.OPTION_LETTERS[choices.index(answer)]},
                data={"text": prompts.item_text(style, str(s["story"]), str(q["ask"]), choices,
                                                words),
                      "story": str(s["story"]), "words": words},  # the probes re-render it
                line=line,
            ))
    return items
