"""The MMToM-QA family, text only: a home, a person's actions in it, and a question about
the person's belief or goal with two options.

A scenario is one question (`mmtomqa.schema`): the apartment, the person, the actions, the
question, its options (a) and (b) and the right letter; the questions of one episode form
a group (`mmtomqa.expand`). The prompt is the authors' text-only prompt (`mmtomqa.prompts`);
the answer is read as an answer, or as the authors' script reads it with
`--tom-mmtomqa-reading=authors` (`mmtomqa.scoring`). Figures: accuracy per question type,
per belief and goal inference, overall (`mmtomqa.headline`), in the paper's layout
(`mmtomqa.metrics`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_tom.families.kit import (
    Checker,
    Family,
    FamilyResult,
    ItemSpec,
    Message,
    Outcome,
    ScoringContext,
    Settings,
    Suite,
    Value,
)

from . import expand, prompts, schema, scoring
from .headline import METRICS, PLOTS
from .metrics import aggregate_records
from .options import OPTIONS


class MmToMQAFamily(Family):
    name = "mmtomqa"
    description = "MMToM-QA (text only): belief and goal inference, two options"
    converters = {"mmtomqa": "pytest_tom.families.mmtomqa.convert"}
    methods = ("vanilla",)
    options = OPTIONS
    headline_metrics = METRICS
    plots = PLOTS
    metric_patterns = ()
    scenario_schema = schema.QUESTION
    defaults_schema = schema.DEFAULTS

    def check(self, data: dict[str, Any], ck: Checker) -> None:
        schema.check_suite(data, ck)

    def expand(self, suite: Suite, data: dict[str, Any], settings: Settings,
               line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
        return expand.expand_items(self.name, suite, data, settings, line_of)

    def conversation(self, item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
        return prompts.messages(item.data["text"], responses)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        reading = str(ctx.settings.options.get("mmtomqa_reading") or "answer")
        return scoring.score(item, response, reading)

    def aggregate(self, records: list[dict[str, Any]], settings: Settings,
                  declared: Mapping[str, Value]) -> FamilyResult:
        return aggregate_records(records, settings, declared)
