"""The ToMBench suite's shape and its checks: one scenario is one multiple-choice question
(a row of the release) with its task, its ABILITY field, the story, the question, two to
four options in file order and the right letter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from typing import TypedDict

from pytest_tom.families.kit import ID
from pytest_tom.families.kit import TAG
from pytest_tom.families.kit import Any_
from pytest_tom.families.kit import Checker
from pytest_tom.families.kit import Defaults
from pytest_tom.families.kit import Enum
from pytest_tom.families.kit import Field
from pytest_tom.families.kit import ListOf
from pytest_tom.families.kit import Obj
from pytest_tom.families.kit import Scenario
from pytest_tom.families.kit import Str
from pytest_tom.families.kit import SuiteDocument
from pytest_tom.families.kit import Text
from pytest_tom.families.kit import checked_scenarios
from pytest_tom.families.kit import describe

from .catalogue import TASK_NAMES
from .catalogue import parse_ability_field

LETTERS = "ABCD"
LANGUAGES = ("en", "zh")

SCENARIO = Obj(
    what="ToMBench question",
    fields={
        "id": Field(ID, required=True, doc="a unique name, e.g. false-belief-task-001"),
        "task": Field(Enum(values=TASK_NAMES),
                      doc="the ToMBench task (the release's file name; default: the defaults' task)"),
        "ability": Field(Str(), required=True,
                         doc="the ABILITY field: 'Dimension: ability', one or more"),
        "story": Field(Str(), required=True),
        "question": Field(Str(), required=True),
        "options": Field(ListOf(Text(), min_len=2, max_len=4), required=True,
                         doc="two to four options, in file order (shown as A, B, C, D)"),
        "answer": Field(Enum(values=tuple(LETTERS)), required=True,
                        doc="the letter of the right option"),
        "answer_as_released": Field(Str(nonempty=False),
                                    doc="the answer as the release writes it, when that is "
                                        "not a plain letter (the authors' reading compares it)"),
        "tags": Field(ListOf(TAG)),
        "source": Field(Any_()),
    },
)

DEFAULTS = Obj(what="defaults mapping", fields={
    "language": Field(Enum(values=LANGUAGES), doc="en or zh: the language of the prompts"),
    "task": Field(Enum(values=TASK_NAMES), doc="the task of every question without its own"),
    "tags": Field(ListOf(TAG)),
})


class _TomBenchQuestion(Scenario):
    ability: str
    story: str
    question: str
    options: Sequence[str | int | float]  # `Text`: a number is read as text
    answer: str  # one of LETTERS


class TomBenchScenario(_TomBenchQuestion, total=False):
    """One question, as `SCENARIO` accepts it (the required keys in the bases; `id`, `tags`
    and the free-form `source` from the kit's `Scenario`)."""

    task: str  # one of TASK_NAMES (else the defaults' task)
    answer_as_released: str


class TomBenchDefaults(Defaults, total=False):
    language: str  # one of LANGUAGES
    task: str


class _TomBenchScenarios(TypedDict):
    scenarios: list[TomBenchScenario]


class TomBenchSuite(SuiteDocument, _TomBenchScenarios, total=False):
    """A ToMBench suite file: what `expand` reads once the schema has accepted it (and
    `check` reads, guarding each value, as it also runs on a file the schema rejected)."""

    defaults: TomBenchDefaults


def option_texts(sc: TomBenchScenario) -> list[str]:
    return [str(o).strip() for o in sc["options"]]


def check(data: TomBenchSuite, ck: Checker) -> None:
    """Report every ToMBench-specific problem of a suite's `data` to `ck`."""
    given = data.get("defaults")
    defaults = given if isinstance(given, dict) else {}
    for base, sc in checked_scenarios(data, ck, "question"):
        if "task" not in sc and "task" not in defaults:
            ck.error(base, f"{describe(base)}: no task: give the question "
                     f"a 'task:' or the suite a 'defaults: {{task: ...}}' (one of "
                     f"{', '.join(TASK_NAMES[:3])} ...)")
        check_question(sc, base, ck)


def check_question(sc: TomBenchScenario, base: tuple[Any, ...], ck: Checker) -> None:
    """The answer names an option, the right option's text is not repeated by another, and
    the ability field names known abilities."""
    ability = sc.get("ability")
    if isinstance(ability, str):
        for problem in parse_ability_field(ability)[1]:
            ck.error((*base, "ability"), f"{describe((*base, 'ability'))}: {problem}")
    options, answer = sc.get("options"), sc.get("answer")
    if not isinstance(options, list) or not isinstance(answer, str) or answer not in LETTERS:
        return
    shown = LETTERS[:len(options)]
    if answer not in shown:
        ck.error((*base, "answer"), f"{describe((*base, 'answer'))}: {answer!r} names no option: "
                 f"this question has {len(options)} options ({', '.join(shown)})")
        return
    texts = option_texts(sc)
    right = texts[LETTERS.index(answer)]
    twins = [LETTERS[i] for i, t in enumerate(texts) if t == right and LETTERS[i] != answer]
    if twins:
        ck.error((*base, "options"), f"{describe((*base, 'options'))}: option {twins[0]} reads the "
                 f"same as the right option {answer} ({right!r}); an answer could not tell them "
                 f"apart: reword one")
