"""MMToM-QA's seven question types: three of belief inference, four of goal inference."""

from __future__ import annotations

from dataclasses import dataclass

BELIEF, GOAL = "belief", "goal"


@dataclass(frozen=True)
class QuestionType:
    code: str  # the release's `question_type`, as text: "1.1"
    name: str  # the metric's name and the item's marker
    inference: str  # BELIEF | GOAL
    label: str  # the paper's column


TYPES = (
    QuestionType("1.1", "true_belief", BELIEF, "true belief"),
    QuestionType("1.2", "false_belief", BELIEF, "false belief"),
    QuestionType("1.3", "belief_tracking", BELIEF, "belief tracking"),
    QuestionType("2.1", "goal_true_belief", GOAL, "goal given true belief"),
    QuestionType("2.2", "goal_false_belief", GOAL, "goal given false belief"),
    QuestionType("2.3", "goal_updated_belief", GOAL, "goal given updated belief"),
    QuestionType("2.4", "goal_future_actions", GOAL, "goal given future actions"),
)
BY_CODE = {t.code: t for t in TYPES}
INFERENCE_LABEL = {BELIEF: "belief inference", GOAL: "goal inference"}


def code_of(value: object) -> str:
    """A question type as the release writes it (1.1, a number) or a suite does ("1.1")."""
    return str(value).strip()
