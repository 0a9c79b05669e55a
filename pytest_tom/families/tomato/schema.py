"""The ToMATO suite's shape and its checks: one scenario is one four-option question about
one speaker of a conversation (a row of the release)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from pytest_tom.families.kit import ID
from pytest_tom.families.kit import TAG
from pytest_tom.families.kit import Any_
from pytest_tom.families.kit import Bool
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
MENTAL_STATES = ("belief", "intention", "desire", "emotion", "knowledge")
ORDERS = (1, 2)

SCENARIO = Obj(
    what="ToMATO question",
    fields={
        "id": Field(ID, required=True, doc="a unique name (the release's q_id)"),
        "conversation": Field(Str(), required=True,
                              doc="the transcript, one `Name: \"utterance\"` per line"),
        "question": Field(Str(), required=True),
        "options": Field(ListOf(Text(), min_len=4, max_len=4), required=True,
                         doc="the four options, in file order (shown as [A]..[D])"),
        "answer": Field(Enum(values=tuple(LETTERS)), required=True,
                        doc="the letter of the right option"),
        "mental_state": Field(Enum(values=MENTAL_STATES), required=True),
        "order": Field(Int(), required=True, doc="1 (first order) or 2 (second order)"),
        "false_belief": Field(Bool(), doc="the right answer is a false belief (ToMATO-FB)"),
        "big_five": Field(Str(), doc="the target speaker's Big Five traits, as the release "
                                     "writes them"),
        "tags": Field(ListOf(TAG)),
        "source": Field(Any_()),
    },
)

DEFAULTS = Obj(what="defaults mapping", fields={"tags": Field(ListOf(TAG))})


class _ToMATOQuestion(Scenario):
    conversation: str
    question: str
    options: Sequence[str | int | float]  # `Text`: a number is read as text
    answer: str  # one of LETTERS
    mental_state: str  # one of MENTAL_STATES
    order: int  # one of ORDERS


class ToMATOScenario(_ToMATOQuestion, total=False):
    """One question, as `SCENARIO` accepts it (the required keys in the bases; `id`, `tags`
    and the free-form `source` from the kit's `Scenario`)."""

    false_belief: bool
    big_five: str


class _ToMATOScenarios(TypedDict):
    scenarios: list[ToMATOScenario]


class ToMATOSuite(SuiteDocument, _ToMATOScenarios, total=False):
    """A ToMATO suite file: what `expand` reads once the schema has accepted it (and
    `check` reads, guarding each value, as it also runs on a file the schema rejected)."""

    defaults: Defaults  # its tags only


def check(data: ToMATOSuite, ck: Checker) -> None:
    """Every ToMATO-specific problem of a suite: ids unique, the order 1 or 2, the options
    four different texts."""
    for base, sc in checked_scenarios(data, ck, "question"):
        order = sc.get("order")
        if isinstance(order, int) and order not in ORDERS:
            ck.error((*base, "order"), f"{describe((*base, 'order'))}: {order} is not an order "
                     f"of ToMATO: write 1 (first order) or 2 (second order)")
        options = sc.get("options")
        if isinstance(options, list):
            texts = [str(o).strip() for o in options]
            twice = sorted({t for t in texts if texts.count(t) > 1})
            if twice:
                ck.error((*base, "options"), f"{describe((*base, 'options'))}: the option "
                         f"{twice[0]!r} is given twice; a reply could not tell them apart: "
                         f"reword one")
