"""The BigToM family: causal templates expanded into 25 conditions each.

One scenario of a BigToM suite is a causal template: one sentence per variable
(context, desire, percept, initial belief, causal event with the agent's aware /
not-aware percept, the actions given the new / initial state, the belief and
action questions with their aware / not-aware answers, a random event with its
percepts). At collection each template becomes 25 items
(`<template>::<condition>`, see `bigtom_conditions`), two options each, their
order shuffled per item with the seed. An answer is right when it names the
right letter and not the other one. Aggregates: accuracy per condition, and the
joint scores TB ∧ FB and TC ∧ FC (see `pytest_tom.metrics.pairing`), laid out
like Table 2 of the paper.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tom.core.model import ItemSpec, Suite
from pytest_tom.core.outcome import UNPARSEABLE, Outcome
from pytest_tom.families.base import Family, FamilyResult, Message, ScoringContext, Settings
from pytest_tom.families.bigtom import prompts
from pytest_tom.families.bigtom.conditions import (
    AWARE,
    CONDITIONS,
    NOT_AWARE,
    compose,
)
from pytest_tom.families.bigtom.headline import METRICS, PLOTS
from pytest_tom.families.bigtom.metrics import aggregate_records
from pytest_tom.scoring.choice import LETTERS, letters_named
from pytest_tom.scoring.text import after_last, normalise
from pytest_tom.suite.schema import (
    ID,
    TAG,
    Any_,
    Checker,
    Field,
    ListOf,
    Obj,
    Str,
    check_unique_ids,
    describe,
)


def _sentence(doc: str) -> Field:
    return Field(Str(), required=True, doc=doc)


EVENT = Obj(what="block of an event (event, aware, not_aware)", fields={
    "event": _sentence("the event, one sentence"),
    "aware": _sentence("the agent perceives the event, one sentence"),
    "not_aware": _sentence("the agent does not perceive the event, one sentence"),
})
ACTION = Obj(what="block of actions (new_state, initial_state)", fields={
    "new_state": _sentence("what the agent does when it knows the new state, one sentence"),
    "initial_state": _sentence("what the agent does while it believes the initial state"),
})
QUESTION = Obj(what="question block (ask, aware, not_aware)", fields={
    "ask": _sentence("the question"),
    "aware": _sentence("the answer of an agent who perceived the causal event (new state)"),
    "not_aware": _sentence("the answer of an agent who did not (initial state)"),
})
TEMPLATE = Obj(what="template", fields={
    "id": Field(ID,
                required=True, doc="a unique name for the template"),
    "tags": Field(ListOf(TAG)),
    "source": Field(Any_()),
    "context": _sentence("the setting and the agent, one sentence"),
    "desire": _sentence("what the agent wants, one sentence"),
    "percept": _sentence("what the agent perceives or does at first, one sentence"),
    "initial_belief": _sentence("what the agent believes at first, one sentence"),
    "causal_event": Field(EVENT, required=True, doc="the event that changes the state"),
    "random_event": Field(EVENT, required=True, doc="an event that changes nothing relevant"),
    "action": Field(ACTION, required=True, doc="the agent's next action given each state"),
    "belief_question": Field(QUESTION, required=True, doc="the belief question and answers"),
    "action_question": Field(QUESTION, required=True, doc="the action question and answers"),
})
DEFAULTS = Obj(what="defaults mapping", fields={"tags": Field(ListOf(TAG))})


class BigTomFamily(Family):
    name = "bigtom"
    converters = {"bigtom": "pytest_tom.families.bigtom.convert"}
    headline_metrics = METRICS
    plots = PLOTS
    lower_is_better = ("initial_state_rate",)  # answers naming the initial state: an error rate
    methods = prompts.METHODS
    metric_patterns = ()  # names beyond aggregate([]) (usage_checks)
    scenario_schema = TEMPLATE
    defaults_schema = DEFAULTS
    description = "BigToM causal templates: 25 conditions per template, TB ∧ FB joint scores"

    # -- suite files -------------------------------------------------------------------
    def check(self, data: dict[str, Any], ck: Checker) -> None:
        templates = data.get("scenarios") or []
        check_unique_ids(templates, ("scenarios",), ck, "template")
        for ti, t in enumerate(templates):
            if not isinstance(t, dict):
                continue  # the schema has reported it
            base = ("scenarios", ti)
            for block, what in (("belief_question", "answers"), ("action_question", "answers"),
                                ("causal_event", "percepts"), ("random_event", "percepts"),
                                ("action", "actions")):
                a, b = ("new_state", "initial_state") if block == "action" else (AWARE, NOT_AWARE)
                pair = t.get(block)
                if not isinstance(pair, dict) or not all(isinstance(pair.get(k), str) for k in (a, b)):
                    continue  # missing or malformed: the schema has reported it
                if normalise(pair[a]) == normalise(pair[b]):
                    path = (*base, block, b)
                    ck.error(path, f"{describe(path)}: the {a} and {b} {what} of "
                             f"{describe((*base, block))} are the same; the two must differ "
                             f"(the item would have two identical options or stories)")

    def expand(self, suite: Suite, data: dict[str, Any], settings: Settings,
               line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
        default_tags = list((data.get("defaults") or {}).get("tags", []))
        items: list[ItemSpec] = []
        for ti, t in enumerate(data["scenarios"]):
            line = line_of(("scenarios", ti))
            tags = list(dict.fromkeys([*default_tags, *t.get("tags", [])]))
            for cond in CONDITIONS:
                items.append(self._item(suite, t, cond, tags, settings, line))
        return items

    def _item(self, suite: Suite, t: dict[str, Any], cond: Any, tags: list[str],
              settings: Settings, line: int) -> ItemSpec:
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
            id=item_id, suite=suite.name, family=self.name, scenario=tid, kind=cond.inference,
            question=parts.question, gold=parts.right, group=tid, choices=options, tags=tags,
            markers=cond.markers, source={"file": suite.path, "line": line, **(t.get("source") or {})},
            meta=meta, data={"story": parts.story,
                             "text": prompts.item_text(parts.story, parts.question, options)},
            line=line,
        )

    # -- model calls and scoring -------------------------------------------------------
    def conversation(self, item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
        return prompts.messages(method, item.data["text"], responses)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        """Right when the answer (after its last `Answer:`) names the right letter and not the other."""
        text = after_last(response, ("Answer:",)).strip()
        if not text:
            return Outcome(correct=False, error=UNPARSEABLE, detail="empty answer")
        letters = letters_named(text, len(item.choices))
        if not letters:
            return Outcome(correct=False, error=UNPARSEABLE,
                           detail="no option letter named (expected Answer:<option>)<answer>)")
        if len(letters) > 1:
            return Outcome(correct=False, parsed=sorted(letters), detail="names both options")
        letter = next(iter(letters))
        return Outcome(correct=letter == item.meta["gold_letter"],
                       parsed=f"{letter}) {item.choices[LETTERS.index(letter)]}",
                       extra={"initial_state": letter == item.meta["initial_state_letter"]})

    def aggregate(self, records: list[dict[str, Any]], settings: Settings) -> FamilyResult:
        return aggregate_records(records, settings)
