"""The 25 BigToM conditions and how each one stitches a story from a causal template.

A template (one scenario of a BigToM suite) holds one sentence per variable of
the causal graph. A condition chooses which sentences make the story, which
question is asked, and which of the two answers is right:

* forward belief / forward action: context, desire, percept, [initial belief],
  an event and the agent's percept of it; the belief / action question.
* backward belief: context, desire, percept, [initial belief], an event and the
  agent's *action* (no percept sentence); the belief question.
* true / false belief: the causal event (it changes the state), perceived /
  not perceived; the right answer is the new-state / initial-state answer.
* true / false control: the random event (it changes nothing), perceived / not
  perceived; the initial-state answer is right in both.
* percept to belief: context, desire, percept only; the initial-state belief.

Backward-belief controls: the story is the random event followed by the
initial-state action for both the true and the false control, so the two items
are identical apart from their option order. The authors' generator does the
same; it is kept so that the figures stay comparable (see docs/differences.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pytest_tom.families.bigtom.schema import AWARE
from pytest_tom.families.bigtom.schema import NOT_AWARE
from pytest_tom.families.bigtom.schema import Template

FORWARD_BELIEF = "forward_belief"
FORWARD_ACTION = "forward_action"
BACKWARD_BELIEF = "backward_belief"
PERCEPT_TO_BELIEF = "percept_to_belief"
INFERENCES = (FORWARD_BELIEF, FORWARD_ACTION, BACKWARD_BELIEF)

TRUE_BELIEF = "true_belief"
FALSE_BELIEF = "false_belief"
TRUE_CONTROL = "true_control"
FALSE_CONTROL = "false_control"
BELIEF_CONDITIONS = (TRUE_BELIEF, FALSE_BELIEF, TRUE_CONTROL, FALSE_CONTROL)

WITH_INITIAL = "with_initial_belief"  # markers of the initial-belief variant
WITHOUT_INITIAL = "without_initial_belief"
VARIANT_ID = {True: "with_init", False: "no_init"}  # the short form used in item ids



@dataclass(frozen=True)
class Condition:
    """One of the 25 ways to compose an item from a template."""

    inference: str
    belief: str | None  # None for percept to belief
    initial_belief: bool

    @property
    def id(self) -> str:
        """`forward_belief.false_belief.with_init`, or `percept_to_belief`."""
        if self.belief is None:
            return self.inference
        return f"{self.inference}.{self.belief}.{VARIANT_ID[self.initial_belief]}"

    @property
    def variant_marker(self) -> str:
        return WITH_INITIAL if self.initial_belief else WITHOUT_INITIAL

    @property
    def markers(self) -> list[str]:
        """Markers of the item: inference kind, belief condition, initial-belief variant."""
        return [m for m in (self.inference, self.belief, self.variant_marker) if m]

    @property
    def question_block(self) -> Literal["action_question", "belief_question"]:
        """The template key of the question asked (with its two answers)."""
        return "action_question" if self.inference == FORWARD_ACTION else "belief_question"

    @property
    def right_answer(self) -> Literal["aware", "not_aware"]:
        """Which answer of the question block is right: `aware` (new state) or `not_aware`."""
        return AWARE if self.belief == TRUE_BELIEF else NOT_AWARE


CONDITIONS: tuple[Condition, ...] = (
    *(Condition(inference, belief, initial)
      for inference in INFERENCES
      for initial in (True, False)
      for belief in BELIEF_CONDITIONS),
    Condition(PERCEPT_TO_BELIEF, None, False),
)
BY_ID: dict[str, Condition] = {c.id: c for c in CONDITIONS}


@dataclass(frozen=True)
class Composed:
    """The parts of one item: the story sentences, the question and its two answers."""

    sentences: list[str]
    question: str
    right: str
    wrong: str
    initial_state_answer: str

    @property
    def story(self) -> str:
        return " ".join(s.strip() for s in self.sentences)


def compose(template: Template, cond: Condition) -> Composed:
    """The story, question and answers of `cond` for one (validated) template."""
    sentences = [template["context"], template["desire"], template["percept"]]
    if cond.initial_belief:
        sentences.append(template["initial_belief"])
    block = template[cond.question_block]
    if cond.belief is not None:
        causal = cond.belief in (TRUE_BELIEF, FALSE_BELIEF)
        event = template["causal_event"] if causal else template["random_event"]
        sentences.append(event["event"])
        if cond.inference == BACKWARD_BELIEF:
            action = template["action"]
            sentences.append(action["new_state"] if cond.belief == TRUE_BELIEF
                             else action["initial_state"])
        else:
            perceived = cond.belief in (TRUE_BELIEF, TRUE_CONTROL)
            sentences.append(event[AWARE if perceived else NOT_AWARE])
    right_key = cond.right_answer
    wrong_key: Literal["aware", "not_aware"] = NOT_AWARE if right_key == AWARE else AWARE
    return Composed(
        sentences=[str(s) for s in sentences],
        question=str(block["ask"]),
        right=str(block[right_key]),
        wrong=str(block[wrong_key]),
        initial_state_answer=str(block[NOT_AWARE]),
    )
