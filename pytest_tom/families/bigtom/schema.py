"""The BigToM suite's shape and its checks: the causal template schema (one sentence per
variable, event, action and question blocks) and the check that each block's two
sentences differ."""

from __future__ import annotations

from typing import Final
from typing import TypedDict

from pytest_tom.families.kit import ID
from pytest_tom.families.kit import TAG
from pytest_tom.families.kit import Any_
from pytest_tom.families.kit import Checker
from pytest_tom.families.kit import Defaults
from pytest_tom.families.kit import Field
from pytest_tom.families.kit import ListOf
from pytest_tom.families.kit import Obj
from pytest_tom.families.kit import Scenario
from pytest_tom.families.kit import Str
from pytest_tom.families.kit import SuiteDocument
from pytest_tom.families.kit import checked_scenarios
from pytest_tom.families.kit import describe
from pytest_tom.families.kit import normalise

AWARE: Final = "aware"  # answer keys of a question block: the new-state answer ...
NOT_AWARE: Final = "not_aware"  # ... and the initial-state answer


class EventBlock(TypedDict):
    """`causal_event` / `random_event`: the event and how the agent perceives it, or not."""

    event: str
    aware: str
    not_aware: str


class ActionBlock(TypedDict):
    """`action`: what the agent does given the new state or the initial one."""

    new_state: str
    initial_state: str


class QuestionBlock(TypedDict):
    """`belief_question` / `action_question`: the question, the aware agent's answer (the
    new state) and the unaware one's (the initial state)."""

    ask: str
    aware: str
    not_aware: str


class Template(Scenario):
    """A BigToM scenario, a causal template (`SCENARIO`): every sentence is required."""

    context: str
    desire: str
    percept: str
    initial_belief: str
    causal_event: EventBlock
    random_event: EventBlock
    action: ActionBlock
    belief_question: QuestionBlock
    action_question: QuestionBlock


class _Templates(TypedDict):
    scenarios: list[Template]


class BigtomDocument(SuiteDocument, _Templates, total=False):
    """A BigToM suite file (the converter writes one per release)."""

    defaults: Defaults


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
SCENARIO = Obj(what="template", fields={  # a BigToM scenario is a causal template
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


def check(data: BigtomDocument, ck: Checker) -> None:
    """Report every BigToM-specific error of a suite's `data` to `ck`."""
    for base, t in checked_scenarios(data, ck, "template"):
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
