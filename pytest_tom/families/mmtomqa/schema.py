"""The MMToM-QA suite's shape: one scenario per question (the home, the person's actions,
the question and its two options), and the checks the schema cannot express."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from pytest_tom.families.kit import ID
from pytest_tom.families.kit import TAG
from pytest_tom.families.kit import Any_
from pytest_tom.families.kit import Checker
from pytest_tom.families.kit import Defaults
from pytest_tom.families.kit import Enum
from pytest_tom.families.kit import Field
from pytest_tom.families.kit import Int
from pytest_tom.families.kit import ListOf
from pytest_tom.families.kit import Obj
from pytest_tom.families.kit import Scenario
from pytest_tom.families.kit import Str
from pytest_tom.families.kit import SuiteDocument
from pytest_tom.families.kit import Text
from pytest_tom.families.kit import checked_scenarios
from pytest_tom.families.kit import describe
from pytest_tom.families.kit import normalise

from .question_types import BY_CODE
from .question_types import code_of

SCENARIO = Obj(what="MMToM-QA question", fields={  # a scenario is one question
    "id": Field(ID, required=True, doc="a unique name for the question"),
    "tags": Field(ListOf(TAG)),
    "source": Field(Any_()),
    "episode": Field(Int(minimum=0),
                     doc="the video episode: questions of one episode form one group"),
    "type": Field(Text(), required=True,
                  doc=f"the question type: {', '.join(BY_CODE)} (1.x belief, 2.x goal)"),
    "apartment": Field(Str(), required=True, doc="what is in the home, one line per room"),
    "person": Field(Str(), required=True, doc="the person's name"),
    "actions": Field(Str(), required=True, doc="what the person did, one paragraph"),
    "question": Field(Str(), required=True, doc="the question, without its options"),
    "options": Field(ListOf(Str(), min_len=2, max_len=2), required=True,
                     doc="the two options, (a) then (b)"),
    "answer": Field(Enum(values=("a", "b")), required=True, doc="the right option's letter"),
})
DEFAULTS = Obj(what="defaults mapping", fields={"tags": Field(ListOf(TAG))})


class QuestionParts(TypedDict):
    """The parts of a release question text, which `prompts.question_text` puts back
    together (and `convert.split_question` takes apart)."""

    apartment: str  # one line per room
    person: str
    actions: str
    question: str
    options: Sequence[str]  # (a) then (b)


class _MMToMQAQuestion(QuestionParts, Scenario):
    type: str | int | float  # `Text`: one of BY_CODE, maybe written as a number (1.1)
    answer: str  # a or b


class MMToMQAScenario(_MMToMQAQuestion, total=False):
    """One question, as `SCENARIO` accepts it (the required keys in the bases; `id`, `tags`
    and the free-form `source` from the kit's `Scenario`)."""

    episode: int


class _MMToMQAScenarios(TypedDict):
    scenarios: list[MMToMQAScenario]


class MMToMQASuite(SuiteDocument, _MMToMQAScenarios, total=False):
    """An MMToM-QA suite file: what `expand` reads once the schema has accepted it (and
    `check` reads, guarding each value, as it also runs on a file the schema rejected)."""

    defaults: Defaults  # its tags only


def check(data: MMToMQASuite, ck: Checker) -> None:
    """Report every MMToM-QA-specific error of a suite's `data` to `ck`."""
    for base, q in checked_scenarios(data, ck, "question"):
        kind = q.get("type")
        if isinstance(kind, str | int | float) and not isinstance(kind, bool) \
                and code_of(kind) not in BY_CODE:
            ck.error((*base, "type"), f"{describe((*base, 'type'))}: {kind!r} is not a question "
                     f"type; use one of {', '.join(BY_CODE)} (write it in quotes)")
        options = q.get("options")
        if isinstance(options, list) and len(options) == 2 and all(isinstance(o, str) for o in options) \
                and normalise(options[0]) == normalise(options[1]):
            ck.error((*base, "options"), f"{describe((*base, 'options'))}: the two options are "
                     f"the same; they must differ")
        for key in ("person", "actions"):
            if isinstance(q.get(key), str) and "\n" in q[key].strip():
                ck.error((*base, key), f"{describe((*base, key))}: one line, please (the "
                         f"prompt writes it on one line)")
