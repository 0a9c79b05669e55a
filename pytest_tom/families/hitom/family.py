"""The Hi-ToM family: stories about agents moving an object between containers, with one
question per ToM order (0: where the object really is; 1-4: what A thinks B thinks ...),
15 options each, in the authors' two prompting styles and with or without deceptive
public and private claims.

A scenario is one story with its questions (`hitom.schema`); each question is one item
(`<story>::order<k>`), the story's questions one group (`hitom.expand`). The prompt is the
authors' prompt file rebuilt (`hitom.prompts`); the answer is the option the reply names
first, by letter or by text (`hitom.scoring`). Figures: accuracy per order, per setting
and per story length, and the authors' joint accuracy (`hitom.headline`), laid out as the
paper's tables and heat maps (`hitom.metrics`).
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


class HiTomFamily(Family):
    name = "hitom"
    description = "Hi-ToM: higher-order beliefs (orders 0-4), with and without deception"
    converters = {"hitom": "pytest_tom.families.hitom.convert"}
    methods = ("vanilla",)  # the style is the story's (or --tom-hitom-prompting), one call
    options = OPTIONS
    headline_metrics = METRICS
    plots = PLOTS
    metric_patterns = ()  # no names beyond the declared ones
    scenario_schema = schema.STORY
    defaults_schema = schema.DEFAULTS
    answer_tokens = 256  # CoTP: the answer first, then its explanation

    def check(self, data: dict[str, Any], ck: Checker) -> None:
        schema.check_suite(data, ck)

    def expand(self, suite: Suite, data: dict[str, Any], settings: Settings,
               line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
        return expand.expand_items(self.name, suite, data, settings, line_of)

    def conversation(self, item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
        return prompts.messages(item.data["text"], responses)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        return scoring.score_answer(item, response)

    def aggregate(self, records: list[dict[str, Any]], settings: Settings,
                  declared: Mapping[str, Value]) -> FamilyResult:
        return aggregate_records(records, settings, declared)
