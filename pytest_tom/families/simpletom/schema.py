"""The SimpleToM suite's shape and its checks: one scenario is one story with its three
questions (`aware`, `action`, `judge`), each with two to four options and the right
letter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal
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

LETTERS = "ABCD"
Kind = Literal["aware", "action", "judge"]  # a question of a story, and its key there
KINDS: tuple[Kind, ...] = ("aware", "action", "judge")
KIND_NAMES = {"aware": "mental state (aware?)", "action": "behaviour", "judge": "judgement"}

QUESTION = Obj(what="SimpleToM question", fields={
    "question": Field(Str(), required=True),
    "options": Field(ListOf(Text(), min_len=2, max_len=4), required=True,
                     doc="the options in file order (shown as (A), (B) ...)"),
    "answer": Field(Enum(values=tuple(LETTERS)), required=True,
                    doc="the letter of the right option"),
})

SCENARIO = Obj(
    what="SimpleToM story",
    fields={
        "id": Field(ID, required=True, doc="the story's id (the release's id without its kind)"),
        "story": Field(Str(), required=True),
        "scenario_name": Field(Str(), doc="the release's scenario category (food, sports ...)"),
        "severity": Field(Int(minimum=0), doc="the release's severity level (sev<k>)"),
        "aware": Field(QUESTION, required=True, doc="the mental-state question"),
        "action": Field(QUESTION, required=True, doc="the behaviour question"),
        "judge": Field(QUESTION, required=True, doc="the judgement question"),
        "tags": Field(ListOf(TAG)),
        "source": Field(Any_()),
    },
)

DEFAULTS = Obj(what="defaults mapping", fields={"tags": Field(ListOf(TAG))})


class SimpleTomQuestion(TypedDict):
    """One of a story's three questions, as `QUESTION` accepts it."""

    question: str
    options: Sequence[str | int | float]  # `Text`: a number is read as text
    answer: str  # one of LETTERS


class _SimpleTomStory(Scenario):
    story: str
    aware: SimpleTomQuestion
    action: SimpleTomQuestion
    judge: SimpleTomQuestion


class SimpleTomScenario(_SimpleTomStory, total=False):
    """A story, as `SCENARIO` accepts it (the required keys in the bases; `id`, `tags` and
    the free-form `source` from the kit's `Scenario`)."""

    scenario_name: str
    severity: int


class _SimpleTomScenarios(TypedDict):
    scenarios: list[SimpleTomScenario]


class SimpleTomSuite(SuiteDocument, _SimpleTomScenarios, total=False):
    """A SimpleToM suite file: what `expand` reads once the schema has accepted it (and
    `check` reads, guarding each value, as it also runs on a file the schema rejected)."""

    defaults: Defaults  # its tags only


def check(data: SimpleTomSuite, ck: Checker) -> None:
    """Ids unique; each answer names one of its question's options; no option twice."""
    for path, sc in checked_scenarios(data, ck, "story"):
        for kind in KINDS:
            q = sc.get(kind)
            if not isinstance(q, dict):
                continue
            base = (*path, kind)
            options, answer = q.get("options"), q.get("answer")
            if not isinstance(options, list) or not isinstance(answer, str):
                continue
            shown = LETTERS[:len(options)]
            if answer in LETTERS and answer not in shown:
                ck.error((*base, "answer"), f"{describe((*base, 'answer'))}: {answer!r} names no "
                         f"option: this question has {len(options)} ({', '.join(shown)})")
            texts = [str(o).strip() for o in options]
            twice = sorted({t for t in texts if texts.count(t) > 1})
            if twice:
                ck.error((*base, "options"), f"{describe((*base, 'options'))}: the option "
                         f"{twice[0]!r} is given twice: reword one")
