"""Generic items: one item per question, its kind and gold from the question's answer rule
(choices shuffled per item with the seed unless `shuffle: false`) and its `meta:` carried
to the aggregation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from typing import TypedDict

from pytest_tom.families.generic.schema import GenericDefaults
from pytest_tom.families.generic.schema import GenericQuestion
from pytest_tom.families.generic.schema import GenericScenario
from pytest_tom.families.generic.schema import GenericSuite
from pytest_tom.families.generic.schema import alternatives
from pytest_tom.families.generic.schema import question_id
from pytest_tom.families.generic.schema import rule_of
from pytest_tom.families.kit import LETTERS
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Suite
from pytest_tom.families.kit import tags_of


class RuleMeta(TypedDict, total=False):
    """What an answer rule adds to the item's meta (over the question's own `meta:`)."""

    gold_letter: str  # choices: the letter the gold is shown under
    wrong: dict[str, str | list[str]]  # json_final: object -> answers that must not appear


def expand(suite: Suite, data: GenericSuite, settings: Settings,
           line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
    """The items of a generic suite, in file order."""
    family = suite.family
    defaults = data.get("defaults") or {}
    items: list[ItemSpec] = []
    for si, sc in enumerate(data["scenarios"]):
        for qi, q in enumerate(sc["questions"]):
            items.append(item_of(family, suite, sc, q, qi, defaults, settings,
                                 line_of(("scenarios", si, "questions", qi))))
    return items


def item_of(family: str, suite: Suite, sc: GenericScenario, q: GenericQuestion, qi: int,
            defaults: GenericDefaults, settings: Settings, line: int) -> ItemSpec:
    """The item of question `q` (the `qi`-th) of scenario `sc`: its gold under the answer
    rule, the choices in the order shown (shuffled with the seed unless `shuffle: false`)."""
    rule = rule_of(q)[0]
    item_id = f"{sc['id']}::{question_id(q, qi)}"
    tags = tags_of(defaults, sc, q)
    kind = {"choices": "choice"}.get(rule, rule)
    choices: list[str] = []
    gold: Any
    meta: RuleMeta = {}
    if rule == "choices":
        choices = [str(c) for c in q["choices"]]
        answer = next(c for c in choices if c.strip().lower() == str(q["answer"]).strip().lower())
        if q.get("shuffle", defaults.get("shuffle", True)):
            settings.rng(suite.name, item_id).shuffle(choices)
        gold = answer
        meta["gold_letter"] = LETTERS[choices.index(answer)]
    elif rule == "yes_no":
        v = q["yes_no"]
        gold = ("yes" if v else "no") if isinstance(v, bool) else v
    elif rule == "names":
        gold = [str(n) for n in q["names"]]
    elif rule == "json_final":
        gold = {str(k): _texts(v) for k, v in q["json_final"].items()}
        meta["wrong"] = {str(k): _texts(v) for k, v in (q.get("wrong") or {}).items()}
    else:
        gold = {"contains": [alternatives(w) if isinstance(w, list) else str(w)
                             for w in q["contains"]],
                "excludes": [str(w) for w in q.get("excludes", [])]}
    carried = {**(q.get("meta") or {}), **meta}  # the rule's keys win over the question's
    data = {"context": sc["context"], "characters": [str(c) for c in sc.get("characters", [])]}
    return ItemSpec(
        id=item_id, suite=suite.name, family=family, scenario=str(sc["id"]), kind=kind,
        question=str(q["ask"]), gold=gold, choices=choices, tags=tags,
        source={"file": suite.path, "line": line, **(sc.get("source") or {})},
        meta=carried, data=data, line=line,
    )


def _texts(value: Any) -> str | list[str]:
    return [str(v) for v in value] if isinstance(value, list) else str(value)
