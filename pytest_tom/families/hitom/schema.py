"""The Hi-ToM suite's shape: one scenario per story, with its questions (one per ToM order),
and the checks the schema cannot express (orders and lengths in the paper's range, each
answer one of the options)."""

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
from pytest_tom.families.kit import JSONObject
from pytest_tom.families.kit import ListOf
from pytest_tom.families.kit import Obj
from pytest_tom.families.kit import Scenario
from pytest_tom.families.kit import Str
from pytest_tom.families.kit import SuiteDocument
from pytest_tom.families.kit import Text
from pytest_tom.families.kit import checked_scenarios
from pytest_tom.families.kit import describe

ORDERS = (0, 1, 2, 3, 4)  # 0: where the object really is; k: k nested beliefs
LENGTHS = (1, 2, 3)  # chapters per story
MAX_OPTIONS = 26  # lettered A-Z

QUESTION = Obj(what="Hi-ToM question", fields={
    "order": Field(Int(minimum=0), required=True,
                   doc="the ToM order: 0 asks where the object really is, 1-4 nested beliefs"),
    "ask": Field(Str(), required=True, doc="the question"),
    "answer": Field(Text(), required=True, doc="the right option, as written in `choices`"),
    "source": Field(Any_()),
})
SCENARIO = Obj(what="Hi-ToM story", fields={  # a Hi-ToM scenario is a story
    "id": Field(ID, required=True, doc="a unique name for the story"),
    "tags": Field(ListOf(TAG)),
    "source": Field(Any_()),
    "prompting": Field(Enum(values=("VP", "CoTP")), required=True,
                       doc="the story's prompting style: VP (vanilla) or CoTP (chain of thought)"),
    "deception": Field(Bool(), required=True,
                       doc="true for the Tell stories (public and private claims), else false"),
    "story_length": Field(Int(minimum=1), required=True, doc="the number of chapters, 1-3"),
    "story": Field(Str(), required=True, doc="the numbered story lines"),
    "choices": Field(ListOf(Text(), min_len=2, max_len=MAX_OPTIONS, unique=True), required=True,
                     doc="the options, shown lettered A, B, ... (15 in the release)"),
    "questions": Field(ListOf(QUESTION, min_len=1), required=True,
                       doc="one question per ToM order"),
})
PROMPT = Obj(what="Hi-ToM prompt wording", fields={
    "vp": Field(Str(), required=True, doc="the VP instruction line (the prompt's first line)"),
    "cotp": Field(Str(), required=True, doc="the CoTP instruction line"),
    "note": Field(Str(), required=True, doc="the note after the choices (both styles)"),
})
DEFAULTS = Obj(what="defaults mapping", fields={
    "tags": Field(ListOf(TAG)),
    "prompt": Field(PROMPT, doc="other words for the prompt than pytest-tom's own: "
                    "`convert hitom --prompts` writes the authors' here"),
})


class _HiToMAsked(TypedDict):
    order: int  # one of ORDERS
    ask: str
    answer: str | int | float  # `Text`: one of the story's choices


class HiToMQuestion(_HiToMAsked, total=False):
    """A story's question, as `QUESTION` accepts it (the required keys in the base)."""

    source: JSONObject  # free-form: carried to the item's source


class _HiToMStory(Scenario):
    prompting: str  # VP or CoTP
    deception: bool
    story_length: int  # one of LENGTHS
    story: str
    choices: Sequence[str | int | float]  # `Text`, shown lettered A, B ...
    questions: list[HiToMQuestion]


class HiToMScenario(_HiToMStory, total=False):
    """A story, as `SCENARIO` accepts it (the required keys in the base; `id`, `tags` and
    the free-form `source` from the kit's `Scenario`)."""


class HiToMPrompt(TypedDict):
    """Other words for the prompt (`PROMPT`): the two instruction lines and the note."""

    vp: str
    cotp: str
    note: str


class HiToMDefaults(Defaults, total=False):
    prompt: HiToMPrompt


class _HiToMScenarios(TypedDict):
    scenarios: list[HiToMScenario]


class HiToMSuite(SuiteDocument, _HiToMScenarios, total=False):
    """A Hi-ToM suite file: what `expand` reads once the schema has accepted it (and
    `check` reads, guarding each value, as it also runs on a file the schema rejected)."""

    defaults: HiToMDefaults


def check(data: HiToMSuite, ck: Checker) -> None:
    """Report every Hi-ToM-specific error of a suite's `data` to `ck`."""
    prompt = (data.get("defaults") or {}).get("prompt")
    if isinstance(prompt, dict):
        for style in ("vp", "cotp"):
            line = prompt.get(style)
            if isinstance(line, str) and len(line.strip().splitlines()) > 1:
                path = ("defaults", "prompt", style)
                ck.error(path, f"{describe(path)}: the instruction is one line (the prompt's "
                         f"first), got {len(line.strip().splitlines())} lines")
    for base, s in checked_scenarios(data, ck, "story"):
        length = s.get("story_length")
        if isinstance(length, int) and not isinstance(length, bool) and length not in LENGTHS:
            ck.error((*base, "story_length"), f"{describe((*base, 'story_length'))}: Hi-ToM "
                     f"stories have 1 to 3 chapters, got {length}")
        choices = s.get("choices")
        texts = [str(c).strip() for c in choices] if isinstance(choices, list) else None
        seen: dict[int, int] = {}
        for qi, q in enumerate(s.get("questions") or []):
            if not isinstance(q, dict):
                continue
            path = (*base, "questions", qi)
            order = q.get("order")
            if isinstance(order, int) and not isinstance(order, bool):
                if order not in ORDERS:
                    ck.error((*path, "order"), f"{describe((*path, 'order'))}: Hi-ToM orders "
                             f"are 0 to 4, got {order}")
                elif order in seen:
                    ck.error((*path, "order"), f"{describe((*path, 'order'))}: order {order} is "
                             f"asked twice in this story (first by questions[{seen[order]}]); "
                             f"a story has one question per order")
                seen.setdefault(order, qi)
            answer = q.get("answer")
            if texts is not None and isinstance(answer, str | int | float) and \
                    not isinstance(answer, bool) and str(answer).strip() not in texts:
                ck.error((*path, "answer"), f"{describe((*path, 'answer'))}: {answer!r} is not "
                         f"one of the story's choices; write it as in "
                         f"{describe((*base, 'choices'))}")
