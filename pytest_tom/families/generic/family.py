"""The generic family: custom suites of stories with questions and one answer rule each.

Answer rules: `choices` + `answer` (lettered options, shuffled per item with the
seed unless `shuffle: false`), `yes_no`, `names` (the exact set of characters,
from the scenario's `characters`), `contains` / `excludes` (whole words), and
`json_final` / `wrong` (a JSON answer with a top-level `final` object, judged per
object as in the robustness family; see `pytest_tom.scoring.json_final`).
A question's `meta:` mapping travels with its item to the aggregation: items
converted from ToMi carry `meta.tomi` and get a question type x story type table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tom.core.model import ItemSpec, Suite
from pytest_tom.core.outcome import Outcome
from pytest_tom.families.base import (
    Family,
    FamilyResult,
    Message,
    ScoringContext,
    Settings,
    single_call,
    two_calls,
)
from pytest_tom.families.generic.headline import METRICS, PLOTS
from pytest_tom.families.generic.metrics import tomi_result
from pytest_tom.families.generic.schema import (
    DEFAULTS,
    RULES,
    SCENARIO,
    alternatives,
    check_answer_map,
)
from pytest_tom.families.generic.scoring import score_answer
from pytest_tom.scoring import json_final
from pytest_tom.scoring.choice import LETTERS
from pytest_tom.suite.schema import (
    Checker,
    check_unique_ids,
    describe,
)

INSTRUCTIONS = {
    "choice": "Answer with the letter of the correct option.",
    "yes_no": "Answer yes or no.",
    "names": "Answer with the names of the characters only.",
    "contains": "Answer in a few words.",
    "json_final": "",  # built from the asked objects: json_final.instruction(keys)
}


def rule_of(q: dict[str, Any]) -> list[str]:
    """The answer rules a question uses (exactly one is valid)."""
    return [r for r in RULES if r in q]


def question_id(q: dict[str, Any], index: int) -> str:
    return str(q.get("id", f"q{index + 1}"))


class GenericFamily(Family):
    name = "generic"
    converters = {"tomi": "pytest_tom.families.generic.convert"}  # ToMi is a generic suite
    methods = ("vanilla", "cot")
    headline_metrics = METRICS  # none beyond turn, goal and the tags
    plots = PLOTS
    metric_patterns = ("tomi.*",)  # names beyond aggregate([]) (usage_checks)
    answer_tokens = 128  # json_final answers are a small JSON between markers
    scenario_schema = SCENARIO
    defaults_schema = DEFAULTS
    description = "custom suites: context + questions with choices, yes/no, names or word rules"

    def check(self, data: dict[str, Any], ck: Checker) -> None:
        scenarios = data.get("scenarios") or []
        check_unique_ids(scenarios, ("scenarios",), ck, "scenario")
        for si, sc in enumerate(scenarios):
            if not isinstance(sc, dict):
                continue
            base = ("scenarios", si)
            questions = sc.get("questions") or []
            seen: dict[str, int] = {}
            for qi, q in enumerate(questions):
                if not isinstance(q, dict):
                    continue
                qpath = (*base, "questions", qi)
                qid = question_id(q, qi)
                if qid in seen:
                    ck.error((*qpath, "id") if "id" in q else qpath,
                             f"duplicate question id {qid!r} in scenario {sc.get('id')!r} "
                             f"(first used by question {seen[qid] + 1}); ids must be unique")
                seen.setdefault(qid, qi)
                self._check_question(q, qpath, sc, base, ck)

    def _check_question(self, q: dict[str, Any], qpath: tuple[Any, ...], sc: dict[str, Any],
                        base: tuple[Any, ...], ck: Checker) -> None:
        rules = rule_of(q)
        if not rules:
            ck.error(qpath, f"{describe(qpath)}: missing answer: give one answer rule "
                     f"(choices + answer, yes_no, names, contains, or json_final)")
            return
        if len(rules) > 1:
            ck.error(qpath, f"{describe(qpath)}: more than one answer rule ({', '.join(rules)}); "
                     f"keep exactly one")
            return
        rule = rules[0]
        if rule == "choices":
            if "answer" not in q:
                ck.error(qpath, f"{describe(qpath)}: missing answer: a question with choices needs "
                         f"'answer:' set to one of them")
            elif isinstance(q["choices"], list) and str(q["answer"]).strip().lower() not in [
                    str(c).strip().lower() for c in q["choices"]]:
                ck.error((*qpath, "answer"), f"{describe((*qpath, 'answer'))}: {q['answer']!r} is not "
                         f"among the choices {q['choices']!r}; the answer must be one of them")
        elif "answer" in q:
            ck.error((*qpath, "answer"), f"{describe((*qpath, 'answer'))}: 'answer' goes with "
                     f"'choices'; a {rule} question carries its gold in '{rule}'", key=True)
        if "shuffle" in q and rule != "choices":
            ck.error((*qpath, "shuffle"), f"{describe((*qpath, 'shuffle'))}: 'shuffle' only applies "
                     f"to questions with choices", key=True)
        if "excludes" in q and rule != "contains":
            ck.error((*qpath, "excludes"), f"{describe((*qpath, 'excludes'))}: 'excludes' goes with "
                     f"'contains'", key=True)
        if "wrong" in q and rule != "json_final":
            ck.error((*qpath, "wrong"), f"{describe((*qpath, 'wrong'))}: 'wrong' goes with "
                     f"'json_final'", key=True)
        if "meta" in q and not isinstance(q["meta"], dict):
            ck.error((*qpath, "meta"), f"{describe((*qpath, 'meta'))}: expected a mapping of plain data")
        if rule == "json_final":
            check_answer_map(q, qpath, ck)
        if rule == "names":
            chars = sc.get("characters")
            if not isinstance(chars, list) or not chars:
                ck.error(qpath, f"{describe(qpath)}: a 'names' question needs the scenario's "
                         f"'characters:' list (every character who could be named), so that naming "
                         f"a wrong one can be detected; add it to {describe(base)}")
            else:
                known = {str(c).lower() for c in chars}
                for i, n in enumerate(q["names"] if isinstance(q["names"], list) else []):
                    if str(n).lower() not in known:
                        ck.error((*qpath, "names", i), f"{describe((*qpath, 'names', i))}: {n!r} is not "
                                 f"in the scenario's characters {chars!r}")

    def expand(self, suite: Suite, data: dict[str, Any], settings: Settings,
               line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
        defaults = data.get("defaults") or {}
        items: list[ItemSpec] = []
        for si, sc in enumerate(data["scenarios"]):
            for qi, q in enumerate(sc["questions"]):
                items.append(self._item(suite, sc, q, qi, defaults, settings,
                                        line_of(("scenarios", si, "questions", qi))))
        return items

    def _item(self, suite: Suite, sc: dict[str, Any], q: dict[str, Any], qi: int,
              defaults: dict[str, Any], settings: Settings, line: int) -> ItemSpec:
        rule = rule_of(q)[0]
        item_id = f"{sc['id']}::{question_id(q, qi)}"
        tags = list(dict.fromkeys([*defaults.get("tags", []), *sc.get("tags", []), *q.get("tags", [])]))
        kind = {"choices": "choice"}.get(rule, rule)
        choices: list[str] = []
        gold: Any
        meta: dict[str, Any] = {}
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
        meta = {**(q.get("meta") or {}), **meta}
        data = {"context": sc["context"], "characters": [str(c) for c in sc.get("characters", [])]}
        return ItemSpec(
            id=item_id, suite=suite.name, family=self.name, scenario=str(sc["id"]), kind=kind,
            question=str(q["ask"]), gold=gold, choices=choices, tags=tags,
            source={"file": suite.path, "line": line, **(sc.get("source") or {})},
            meta=meta, data=data, line=line,
        )

    def prompt(self, item: ItemSpec) -> str:
        parts = [item.data["context"].strip(), "", f"Question: {item.question}"]
        parts += item.choices_shown
        return "\n".join(parts)

    def conversation(self, item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
        instruction = INSTRUCTIONS[item.kind] or json_final.instruction(list(item.gold))
        if method == "cot":
            first = [{"role": "user", "content": f"{self.prompt(item)}\n\nLet's think step by step."}]
            return two_calls(first, f"Therefore, the answer is: ({instruction})", responses)
        msg = f"{self.prompt(item)}\n\n{instruction}\nAnswer:"
        return single_call([{"role": "user", "content": msg}], responses)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        return score_answer(item, response)

    def aggregate(self, records: list[dict[str, Any]], settings: Settings) -> FamilyResult:
        return tomi_result(records)


def _texts(value: Any) -> str | list[str]:
    return [str(v) for v in value] if isinstance(value, list) else str(value)
